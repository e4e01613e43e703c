"""Shape options of the commands (profiler.cli._options): --sizes and --mnk parsed and merged."""

import numpy as np
import pytest

from profiler.cli._options import gather_shapes, only_tier, parse_sizes
from profiler.dispatchers import select_for_bench
from profiler.errors import GemmprofError
from profiler.shapes import MAX_DIM


@pytest.mark.parametrize("text,shapes", [("256,512", [(256, 256, 256), (512, 512, 512)]),
                                         ("1536x512x2048, 777", [(1536, 512, 2048), (777, 777, 777)]),
                                         ("256..2048", [(256,) * 3, (512,) * 3, (1024,) * 3, (2048,) * 3]),
                                         ("1000..1999", [(1000,) * 3])])
def test_parse_sizes(text, shapes):
    assert parse_sizes(text) == shapes


@pytest.mark.parametrize("text", ["", "abc", "12,-4", "0", "1x2", "2147483648", "96x96x2147483648", "512..256", "0..8"])
def test_parse_sizes_rejects_malformed(text):
    with pytest.raises(GemmprofError):
        parse_sizes(text)


def test_the_bound_is_the_int32_the_kernels_and_cublas_take():
    # a real K-large shape that cuBLAS takes, and the largest M, N or K an int holds
    assert parse_sizes("96x96x131072,1x1x2147483647") == [(96, 96, 131072), (1, 1, 2**31 - 1)]
    assert MAX_DIM == np.iinfo(np.int32).max


def test_gather_shapes_merges_and_dedups():
    assert gather_shapes("128,256", (1536, 512, 2048), "1024") == [(128, 128, 128), (256, 256, 256), (1536, 512, 2048)]
    assert gather_shapes(None, None, "1024") == [(1024, 1024, 1024)]
    assert gather_shapes("128,128", None, "1") == [(128, 128, 128)]


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
