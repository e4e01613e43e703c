"""ptxas's report read per entry point (profiler.measure.build, no compiler needed)."""


import pytest

from profiler.errors import GemmprofError
from profiler.measure.build import parse_ptxas

PTXAS = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'sgemm_a' for 'sm_90'
ptxas info    : Function properties for sgemm_a
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 0 barriers, 400 bytes cmem[0]
ptxas info    : Compiling entry function 'sgemm_b' for 'sm_90'
ptxas info    : Function properties for sgemm_b
    16 bytes stack frame, 12 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 8192 bytes smem, 400 bytes cmem[0]
"""


def test_parse_ptxas_picks_the_right_entry():
    assert parse_ptxas(PTXAS, "sgemm_a") == {"registers": 32, "shared_bytes": 0, "stack_bytes": 0,
                                             "spill_store_bytes": 0, "spill_load_bytes": 0, "barriers": 0}
    b = parse_ptxas(PTXAS, "sgemm_b")
    assert (b["registers"], b["shared_bytes"], b["stack_bytes"], b["spill_store_bytes"], b["spill_load_bytes"], b["barriers"]) == (255, 8192, 16, 12, 8, 1)
    with pytest.raises(GemmprofError, match="sgemm_c"):
        parse_ptxas(PTXAS, "sgemm_c")
