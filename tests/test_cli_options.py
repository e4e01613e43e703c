"""cli/_options.py: the --tier filter that bench and profile share."""

import pytest

from profiler.cli._options import only_tier
from profiler.dispatchers import select_for_bench
from profiler.errors import GemmprofError


def test_only_tier_keeps_the_kernels_and_dispatchers_of_that_tier():
    specs, dispatchers = only_tier("fp16", *select_for_bench(None))
    assert specs and {s.tier for s in specs} == {"fp16"}
    assert all(d.tier == "fp16" for d in dispatchers)
    specs, dispatchers = only_tier("fp32", *select_for_bench(None))
    assert "naive" in [s.name for s in specs] and "wgmma" not in [s.name for s in specs]
    assert "best" in [d.name for d in dispatchers]


def test_no_tier_keeps_everything():
    specs, dispatchers = select_for_bench(["naive..smem", "best"])
    assert only_tier(None, specs, dispatchers) == (specs, dispatchers)


def test_a_tier_the_selection_lacks_is_an_error():
    with pytest.raises(GemmprofError, match="no fp32-tc kernel among the selection"):
        only_tier("fp32-tc", *select_for_bench(["naive..smem"]))
