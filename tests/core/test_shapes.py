"""The one bound on a GEMM dimension (profiler.shapes): the int32 the kernels and cuBLAS take."""

from __future__ import annotations

import numpy as np
import pytest

from profiler.errors import GemmprofError
from profiler.shapes import MAX_DIM, check_shape


def test_the_bound_is_an_int32():
    assert MAX_DIM == np.iinfo(np.int32).max
    assert check_shape((96, 96, 131072)) == (96, 96, 131072)  # K-large, as cuBLAS takes it
    assert check_shape((MAX_DIM, 1, 1)) == (MAX_DIM, 1, 1)


@pytest.mark.parametrize("shape", [(0, 1, 1), (1, -1, 1), (1, 1, MAX_DIM + 1)])
def test_out_of_range_is_one_line_naming_the_shape(shape):
    with pytest.raises(GemmprofError) as err:
        check_shape(shape)
    assert "x".join(map(str, shape)) in err.value.message and str(MAX_DIM) in err.value.hint
