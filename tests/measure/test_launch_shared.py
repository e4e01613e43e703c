"""When a launch asks for more shared memory than the default: static and dynamic bytes together
past 48 KB (skinny_any's 48 KB of stages beside its 128 bytes of `__shared__` failed to launch
with an invalid argument while only the dynamic bytes were compared)."""

import pytest

from profiler.measure.launch import DEFAULT_SHARED_LIMIT, needs_opt_in


@pytest.mark.parametrize(
    ("dynamic", "static", "expected"),
    [
        (49152, 128, True),  # skinny_any: 48 KB of stages and the split's flag
        (49152, 0, False),  # exactly the default
        (49152 - 128, 128, False),
        (110592, 0, True),
        (0, 49152, False),  # nothing dynamic to ask for
        (1, DEFAULT_SHARED_LIMIT, True),
    ],
)
def test_opt_in_counts_static_and_dynamic_shared_memory(dynamic, static, expected):
    assert needs_opt_in(dynamic, static) is expected
