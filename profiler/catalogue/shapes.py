"""GEMM shapes as commands and shape suites take them: the one bound on a dimension, its check,
and the `--sizes` text (`1024,2048`, `MxNxK` items, `256..8192`) read into shapes."""

from __future__ import annotations

import re

from ..errors import GemmprofError

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


def parse_sizes(text: str) -> list[Shape]:
    """'256,512,1000' -> square shapes. Also accepts 'MxNxK' items for rectangles and 'A..B' for
    the powers-of-two sweep from A to B (256..8192 = 256,512,...,8192)."""
    shapes = []
    for item in filter(None, (t.strip() for t in text.split(","))):
        if m := re.fullmatch(r"(\d+)\.\.(\d+)", item):
            n, last = int(m.group(1)), int(m.group(2))
            if n < 1 or last < n:
                raise GemmprofError(f"bad range {item!r} in --sizes", "write A..B with 1 <= A <= B, e.g. 256..8192")
            while n <= last:
                shapes.append((n, n, n))
                n *= 2
        elif re.fullmatch(r"\d+", item):
            n = int(item)
            shapes.append((n, n, n))
        elif re.fullmatch(r"\d+x\d+x\d+", item):
            m, n, k = (int(v) for v in item.split("x"))
            shapes.append((m, n, k))
        else:
            raise GemmprofError(f"bad size {item!r} in --sizes {text!r}", "give comma-separated integers (1024,2048), MxNxK items, or a doubling range 256..8192")
    if not shapes:
        raise GemmprofError(f"--sizes {text!r} names no size", "e.g. --sizes 1024,2048,4096")
    for shape in shapes:
        check_shape(shape)
    return shapes


def gather_shapes(sizes: str | None, mnk: Shape | None, default: str) -> list[Shape]:
    shapes = parse_sizes(sizes) if sizes else []
    if mnk:
        shapes.append(check_shape(tuple(mnk)))
    shapes = shapes or parse_sizes(default)
    return list(dict.fromkeys(shapes))  # keep order, drop repeats
