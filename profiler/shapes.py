"""GEMM shapes as commands and shape suites take them: the one bound on a dimension, and its check."""

from __future__ import annotations

from .errors import GemmprofError

Shape = tuple[int, int, int]

# The largest M, N or K gemmprof accepts: what the int32 in the kernels' signature
# (`int M, int N, int K`, passed as numpy.int32) and in cuBLAS's `int m, n, k` and leading
# dimensions (lda = K, ldb = ldc = N in the row-major call) can hold. The kernels index A, B and C
# with 64-bit offsets (`(size_t)row * K`), so a matrix may hold more than 2^31 elements and
# the int is the only bound the indexing sets (K-large shapes such as 96x96x131072 are real).
# Whether a shape fits the GPU's memory, or a kernel's grid and texture limits, the GPU answers
# at run time: an ERROR row that says why, not a refused shape.
MAX_DIM = 2**31 - 1


def check_shape(shape: Shape) -> Shape:
    """`shape` itself when each of M, N, K is in 1..MAX_DIM; a one-line error otherwise."""
    if any(d < 1 or d > MAX_DIM for d in shape):
        raise GemmprofError(f"shape {'x'.join(map(str, shape))} is out of range", f"each of M, N, K must be between 1 and {MAX_DIM}")
    return shape
