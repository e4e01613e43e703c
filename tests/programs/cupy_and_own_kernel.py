"""A program that is not gemmprof: a CuPy matmul (cuBLAS) and a kernel of its own (a CuPy
RawKernel), each inside NVTX ranges, the GEMM's range named by the shape convention `gemm MxNxK`.
Work outside the ranges (random inputs, a warm-up matmul that creates the cuBLAS handle, NVRTC
compiling the kernel) is what `--nvtx-include app/` must leave out.

    gemmprof profile --nvtx-include app/ -- python3 tests/programs/cupy_and_own_kernel.py [M N K]

Expected under that filter: the launches of one cuBLAS SGEMM inside 'app/gemm MxNxK' and one
launch of `scale_rows` inside 'app/scale'; nothing else.
"""

import sys

import cupy as cp
from cupy.cuda import nvtx

SCALE_ROWS = r"""
extern "C" __global__ void scale_rows(float* c, const float* s, int m, int n) {
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m && j < n) c[i * n + j] *= s[i];
}
"""


def main(M: int = 512, N: int = 512, K: int = 512) -> int:
    rng = cp.random.default_rng(3)
    a = rng.standard_normal((M, K), dtype=cp.float32)
    b = rng.standard_normal((K, N), dtype=cp.float32)
    s = rng.standard_normal(M, dtype=cp.float32)
    kernel = cp.RawKernel(SCALE_ROWS, "scale_rows")
    block = (16, 16)
    grid = ((N + 15) // 16, (M + 15) // 16)
    warm = a @ b  # outside the ranges: cuBLAS handle and workspace
    kernel(grid, block, (warm, s, cp.int32(M), cp.int32(N)))  # compiles (NVRTC) and loads the module
    cp.cuda.runtime.deviceSynchronize()

    nvtx.RangePush("app")
    nvtx.RangePush(f"gemm {M}x{N}x{K}")
    c = a @ b
    nvtx.RangePop()
    nvtx.RangePush("scale")
    kernel(grid, block, (c, s, cp.int32(M), cp.int32(N)))
    nvtx.RangePop()
    nvtx.RangePop()
    cp.cuda.runtime.deviceSynchronize()

    expected = (a.get() @ b.get()) * s.get()[:, None]
    error = float(abs(c.get() - expected).max() / abs(expected).max())
    print(f"cupy_and_own_kernel: {M}x{N}x{K}, max relative error {error:.2e}")
    return 0 if error < 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main(*(int(v) for v in sys.argv[1:4])))
