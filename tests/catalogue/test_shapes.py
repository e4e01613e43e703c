"""The one bound on a GEMM dimension (profiler.catalogue.shapes): the int32 the kernels and cuBLAS take;
--sizes and --mnk parsed and merged."""

from __future__ import annotations

import numpy as np
import pytest

from profiler.errors import GemmprofError
from profiler.catalogue.shapes import MAX_DIM, check_shape, gather_shapes, parse_sizes


def test_the_bound_is_an_int32():
    assert MAX_DIM == np.iinfo(np.int32).max
    assert check_shape((96, 96, 131072)) == (96, 96, 131072)  # K-large, as cuBLAS takes it
    assert check_shape((MAX_DIM, 1, 1)) == (MAX_DIM, 1, 1)


@pytest.mark.parametrize("shape", [(0, 1, 1), (1, -1, 1), (1, 1, MAX_DIM + 1)])
def test_out_of_range_is_one_line_naming_the_shape(shape):
    with pytest.raises(GemmprofError) as err:
        check_shape(shape)
    assert "x".join(map(str, shape)) in err.value.message and str(MAX_DIM) in err.value.hint


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
