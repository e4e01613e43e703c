"""Launch ladder kernels and cuBLAS on CuPy buffers.

`Gemm` holds one problem's device buffers; `KernelRunner` and `CublasRunner` launch one GEMM on
them. cuBLAS runs strict FP32 (CUBLAS_DEFAULT_MATH: no TF32 tensor-core math) on the row-major
matrices through the usual trick: row-major C = A @ B is column-major C^T = B^T @ A^T, so cuBLAS
is called with A and B swapped and no transposes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..manifest import CUBLAS, KernelSpec

CUBLAS_MATH_MODE = "CUBLAS_DEFAULT_MATH (strict FP32, no TF32)"


@dataclass
class Gemm:
    """Device buffers of one (M, N, K) problem: A (MxK), B (KxN), C (MxN), row-major."""

    M: int
    N: int
    K: int
    A: object
    B: object
    C: object

    @classmethod
    def random(cls, cp, M: int, N: int, K: int, dtype=np.float32, seed: int | None = None) -> Gemm:
        """Fresh standard-normal inputs (never zeros: zeros hide wrong indexing)."""
        rng = cp.random.default_rng(seed)
        A = rng.standard_normal((M, K), dtype=np.float32).astype(dtype)
        B = rng.standard_normal((K, N), dtype=np.float32).astype(dtype)
        C = rng.standard_normal((M, N), dtype=np.float32)
        return cls(M, N, K, A, B, C)

    @property
    def flop(self) -> int:
        return 2 * self.M * self.N * self.K


class KernelRunner:
    """One ladder kernel loaded from its cubin, ready to launch on a `Gemm`."""

    def __init__(self, cp, spec: KernelSpec, cubin: str):
        self.spec = spec
        self.name = spec.name
        self.cp = cp
        self.function = cp.RawModule(path=str(cubin)).get_function(spec.entry)
        self._dynamic_limit = 0
        self._tma = None
        if spec.tensor_maps:  # takes CUtensorMaps by value: launched through the driver API
            from .tensormap import TensorMapLauncher

            self._tma = TensorMapLauncher(spec, self.function)

    def __call__(self, g: Gemm, alpha: float, beta: float) -> None:
        launch = self.spec.launch(g.M, g.N, g.K)
        if launch.smem_bytes > 48 * 1024 and launch.smem_bytes > self._dynamic_limit:
            self.function.max_dynamic_shared_size_bytes = launch.smem_bytes
            self._dynamic_limit = launch.smem_bytes
        if self._tma is not None:
            self._tma(self.cp, g, alpha, beta, launch)
            return
        self.function(
            launch.grid,
            launch.block,
            (np.int32(g.M), np.int32(g.N), np.int32(g.K), np.float32(alpha), g.A, g.B, np.float32(beta), g.C),
            shared_mem=launch.smem_bytes,
        )


class CublasRunner:
    """cuBLAS SGEMM (FP32 tier) or GemmEx with FP16 inputs and FP32 compute (FP16 tier)."""

    name = CUBLAS

    def __init__(self, cp, tier: str = "fp32"):
        from cupy_backends.cuda.libs import cublas

        self.cublas = cublas
        self.tier = tier
        self.handle = cp.cuda.device.get_cublas_handle()
        cublas.setMathMode(self.handle, cublas.CUBLAS_DEFAULT_MATH)
        cublas.setPointerMode(self.handle, cublas.CUBLAS_POINTER_MODE_HOST)
        # Host scalars must outlive the (asynchronous) call: keep them here.
        self._alpha = np.zeros(1, np.float32)
        self._beta = np.zeros(1, np.float32)

    def __call__(self, g: Gemm, alpha: float, beta: float) -> None:
        cb = self.cublas
        self._alpha[0], self._beta[0] = alpha, beta
        a, b = self._alpha.ctypes.data, self._beta.ctypes.data
        if self.tier == "fp32":
            cb.sgemm(self.handle, cb.CUBLAS_OP_N, cb.CUBLAS_OP_N, g.N, g.M, g.K,
                     a, g.B.data.ptr, g.N, g.A.data.ptr, g.K, b, g.C.data.ptr, g.N)
        else:
            from cupy_backends.cuda.api import runtime

            cb.gemmEx(self.handle, cb.CUBLAS_OP_N, cb.CUBLAS_OP_N, g.N, g.M, g.K,
                      a, g.B.data.ptr, runtime.CUDA_R_16F, g.N, g.A.data.ptr, runtime.CUDA_R_16F, g.K,
                      b, g.C.data.ptr, runtime.CUDA_R_32F, g.N, cb.CUBLAS_COMPUTE_32F, cb.CUBLAS_GEMM_DEFAULT)
