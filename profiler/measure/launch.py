"""Launch ladder kernels and cuBLAS on CuPy buffers.

`Gemm` holds one problem's device buffers; `KernelRunner` and `CublasRunner` launch one GEMM on
them. cuBLAS runs strict FP32 (CUBLAS_DEFAULT_MATH: no TF32 tensor-core math) on the row-major
matrices through the usual trick: row-major C = A @ B is column-major C^T = B^T @ A^T, so cuBLAS
is called with A and B swapped and no transposes.

Kernels whose manifest entry lists `textures` (e.g. ["A", "B"]) also get one 1D linear texture
object per listed matrix as trailing arguments; `LinearTextures` makes them, once per buffer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import GemmprofError
from ..catalogue.kernel_spec import KernelSpec
from ..catalogue.manifest_parse import TEXEL_FLOATS
from ..tiers import REFERENCE_ROWS
from ..tiers import tier as tier_record

CUBLAS_MATH_MODE = "CUBLAS_DEFAULT_MATH (strict FP32, no TF32)"
CUBLAS_COMPUTE_32F_FAST_TF32 = 77  # cublasComputeType_t (cublas_api.h), where CuPy does not name it


# Shared memory a launch may use without asking: static and dynamic together.
DEFAULT_SHARED_LIMIT = 48 * 1024


def needs_opt_in(dynamic_bytes: int, static_bytes: int) -> bool:
    """Whether a launch must first raise the function's dynamic shared memory limit: the default
    48 KB bounds the static and dynamic bytes together, so 48 KB of dynamic memory beside a
    kernel's own `__shared__` variables fails with an invalid argument unless asked for."""
    return dynamic_bytes > 0 and dynamic_bytes + static_bytes > DEFAULT_SHARED_LIMIT


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


# The calling convention every manifest kernel follows, in bytes per parameter: int M, N, K;
# float alpha; A; B; float beta; C (pointers whatever the tier), then a pointer per staged
# operand, a 64-bit cudaTextureObject_t per texture and a CUtensorMap per tensor map. The launch
# below passes exactly this; `build` holds each cubin's entry to it.
FIXED_PARAMETER_BYTES = (4, 4, 4, 4, 8, 8, 4, 8)
STAGING_POINTER_BYTES = 8
TEXTURE_HANDLE_BYTES = 8


def parameter_bytes(spec: KernelSpec) -> list[int]:
    from .tensormap import TENSOR_MAP_BYTES

    return [*FIXED_PARAMETER_BYTES, *[STAGING_POINTER_BYTES] * len(spec.staging),
            *[TEXTURE_HANDLE_BYTES] * len(spec.textures), *[TENSOR_MAP_BYTES] * len(spec.tensor_maps)]


# --- 1D linear textures (manifest key `textures`) -------------------------------------------------

CUDA_DEV_ATTR_TEXTURE_ALIGNMENT = 14  # cudaDevAttrTextureAlignment (driver_types.h)
TEXEL_BYTES = TEXEL_FLOATS * 4  # one float4 texel
MAX_TEXEL_INDEX = 2**31 - 1  # tex1Dfetch takes an int index


@dataclass(frozen=True)
class LinearTexturePlan:
    """What the texture object over one matrix is, as a function of its buffer alone.

    The enum fields are CUDA runtime names (cupy.cuda.runtime has them). For a linear resource the
    runtime ignores addressMode and filterMode (cuda_runtime_api.h, cudaCreateTextureObject):
    tex1Dfetch takes integer texel indices, does no filtering, and an index past the end of the
    buffer reads zero. Border is still asked for, so a zero is what any reading of the descriptor
    gives. readMode matters only for 8- and 16-bit integer texels; floats come back as stored.
    """

    matrix: str
    ptr: int
    size_bytes: int
    texels: int  # the texture's width, in float4 texels
    resource_type: str = "cudaResourceTypeLinear"
    channel_bits: tuple[int, int, int, int] = (32, 32, 32, 32)
    channel_kind: str = "cudaChannelFormatKindFloat"
    read_mode: str = "cudaReadModeElementType"
    normalized_coords: int = 0
    address_mode: str = "cudaAddressModeBorder"  # ignored for linear resources
    filter_mode: str = "cudaFilterModePoint"  # ignored for linear resources


def linear_texture_plan(matrix: str, ptr: int, shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int,
                        alignment: int) -> LinearTexturePlan:
    """The float4 texture over a row-major float32 matrix, or a GemmprofError saying which of the
    texture's conditions the buffer breaks (the kernels' "alignment check")."""
    if itemsize != 4:
        raise GemmprofError(f"texture over {matrix}: float4 texels need float32 data, not {itemsize}-byte elements")
    rows, row_len = shape
    if tuple(strides) != (row_len * itemsize, itemsize):
        raise GemmprofError(f"texture over {matrix}: the matrix must be one contiguous row-major buffer (strides {tuple(strides)})")
    if row_len % TEXEL_FLOATS:
        raise GemmprofError(f"texture over {matrix}: rows of {row_len} floats are not whole float4 texels")
    if ptr % alignment:
        raise GemmprofError(
            f"texture over {matrix}: base address {ptr:#x} is not aligned to the device's textureAlignment ({alignment} bytes)",
            "pass a buffer of its own, not a view at an offset",
        )
    size = rows * row_len * itemsize
    texels = size // TEXEL_BYTES
    if texels - 1 > MAX_TEXEL_INDEX:
        raise GemmprofError(f"texture over {matrix}: {texels} texels do not fit tex1Dfetch's int index")
    return LinearTexturePlan(matrix, ptr, size, texels)


class LinearTextures:
    """Texture objects over a `Gemm`'s matrices, made on first use and kept while the same buffer
    comes back (timing loops launch many times on one Gemm and pay for them once). One entry per
    matrix: a new buffer replaces the old entry, so at most one stale buffer per matrix is held."""

    def __init__(self, cp, matrices: tuple[str, ...]):
        from cupy.cuda import runtime, texture

        self.runtime, self.texture = runtime, texture
        self.matrices = matrices
        self.alignment = runtime.deviceGetAttribute(CUDA_DEV_ATTR_TEXTURE_ALIGNMENT, cp.cuda.Device().id)
        self._made: dict[str, tuple[object, object, np.uint64]] = {}  # matrix -> (array, TextureObject, handle)
        self.created = 0

    def handles(self, g: Gemm) -> tuple[np.uint64, ...]:
        out = []
        for matrix in self.matrices:
            array = getattr(g, matrix)
            made = self._made.get(matrix)
            if made is None or made[0] is not array:
                obj = self._create(matrix, array)
                made = self._made[matrix] = (array, obj, np.uint64(obj.ptr))
                self.created += 1
            out.append(made[2])
        return tuple(out)

    def _create(self, matrix: str, array):
        rt, tx = self.runtime, self.texture
        plan = linear_texture_plan(matrix, array.data.ptr, array.shape, array.strides, array.dtype.itemsize, self.alignment)
        channels = tx.ChannelFormatDescriptor(*plan.channel_bits, getattr(rt, plan.channel_kind))
        resource = tx.ResourceDescriptor(getattr(rt, plan.resource_type), arr=array, chDesc=channels, sizeInBytes=plan.size_bytes)
        sampling = tx.TextureDescriptor(addressModes=(getattr(rt, plan.address_mode),), filterMode=getattr(rt, plan.filter_mode),
                                        readMode=getattr(rt, plan.read_mode), normalizedCoords=plan.normalized_coords)
        try:
            return tx.TextureObject(resource, sampling)
        except rt.CUDARuntimeError as exc:
            raise GemmprofError(
                f"texture over {matrix} ({plan.texels} float4 texels) could not be created: {exc}",
                "a 1D linear texture holds at most cudaDeviceGetTexture1DLinearMaxWidth texels",
            ) from None


class KernelRunner:
    """One ladder kernel loaded from its cubin, ready to launch on a `Gemm`."""

    def __init__(self, cp, spec: KernelSpec, cubin: str):
        self.spec = spec
        self.name = spec.name
        self.cp = cp
        self.cubin = str(cubin)
        self.function = cp.RawModule(path=self.cubin).get_function(spec.entry)
        self._cooperative = None  # the same kernel from a module loaded for cooperative launches
        self._dynamic_limit: dict[int, int] = {}
        self._tma = None
        if spec.tensor_maps:  # takes CUtensorMaps by value: launched through the driver API
            from .tensormap import TensorMapLauncher

            self._tma = TensorMapLauncher(spec, self.function)
        self.textures = LinearTextures(cp, spec.textures) if spec.textures else None
        self.sms = int(cp.cuda.Device().attributes["MultiProcessorCount"])  # SMS in the launch geometry

    def __call__(self, g: Gemm, alpha: float, beta: float) -> None:
        launch = self.spec.launch(g.M, g.N, g.K, self.sms)
        function = self._function(launch)
        if self._tma is not None:
            self._tma(self.cp, g, alpha, beta, launch)
            return
        args = (np.int32(g.M), np.int32(g.N), np.int32(g.K), np.float32(alpha), g.A, g.B, np.float32(beta), g.C)
        if self.textures is not None:
            args += self.textures.handles(g)  # cudaTextureObject_t: a 64-bit handle
        function(launch.grid, launch.block, args, shared_mem=launch.smem_bytes)

    def cannot_launch(self, M: int, N: int, K: int) -> str | None:
        """Why this GPU cannot start the launch at (M, N, K), or None: a cooperative grid must be
        resident at once (wgmma_stagedswap160 past one tile of 160x128 an SM)."""
        from .tensormap import driver, function_handle

        launch = self.spec.launch(M, N, K, self.sms)
        if not launch.cooperative:
            return None
        threads = launch.block[0] * launch.block[1] * launch.block[2]
        per_sm = driver().resident_per_sm(function_handle(self._function(launch)), threads, launch.smem_bytes)
        ctas = launch.grid[0] * launch.grid[1] * launch.grid[2]
        if ctas <= per_sm * self.sms:
            return None
        return (f"{self.name} waits for its whole grid, and its {ctas} CTAs at {M}x{N}x{K} exceed the "
                f"{per_sm * self.sms} this GPU holds at once ({per_sm} an SM)")

    def _function(self, launch):
        """The function for `launch` (loaded for cooperative launches where it is one), its dynamic
        shared memory limit raised where the launch needs it."""
        function = self.function if self._tma is not None or not launch.cooperative else self._cooperative_function()
        if needs_opt_in(launch.smem_bytes, function.shared_size_bytes) and launch.smem_bytes > self._dynamic_limit.get(id(function), 0):
            function.max_dynamic_shared_size_bytes = launch.smem_bytes
            self._dynamic_limit[id(function)] = launch.smem_bytes
        return function

    def _cooperative_function(self):
        """CuPy launches a kernel of a module loaded with this flag by cuLaunchCooperativeKernel: a
        grid that waits for its own blocks fails on a GPU that cannot hold it at once, never hangs."""
        if self._cooperative is None:
            self._cooperative = self.cp.RawModule(path=self.cubin, enable_cooperative_groups=True).get_function(self.spec.entry)
        return self._cooperative


class CublasRunner:
    """One cuBLAS row (`tiers.REFERENCE_ROWS`): strict SGEMM, GemmEx with FP16 inputs and FP32
    compute, or GemmEx on FP32 inputs with CUBLAS_COMPUTE_32F_FAST_TF32 (the fp32-tc tier's
    context row). `name` defaults to the yardstick of `tier`. The TF32 row asks for tensor cores
    through its compute type, not the handle's math mode, so the strict rows sharing the handle
    stay strict."""

    def __init__(self, cp, tier: str = "fp32", name: str | None = None):
        from cupy_backends.cuda.libs import cublas

        self.cublas = cublas
        self.tier = tier
        self.name = name or tier_record(tier).reference
        self.call = REFERENCE_ROWS[self.name].call
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
        if self.call == "sgemm":
            cb.sgemm(self.handle, cb.CUBLAS_OP_N, cb.CUBLAS_OP_N, g.N, g.M, g.K,
                     a, g.B.data.ptr, g.N, g.A.data.ptr, g.K, b, g.C.data.ptr, g.N)
            return
        from cupy_backends.cuda.api import runtime

        in_type, compute = {
            "gemmex-fp16": (runtime.CUDA_R_16F, cb.CUBLAS_COMPUTE_32F),
            "gemmex-fast-tf32": (runtime.CUDA_R_32F, getattr(cb, "CUBLAS_COMPUTE_32F_FAST_TF32", CUBLAS_COMPUTE_32F_FAST_TF32)),
        }[self.call]
        cb.gemmEx(self.handle, cb.CUBLAS_OP_N, cb.CUBLAS_OP_N, g.N, g.M, g.K,
                  a, g.B.data.ptr, in_type, g.N, g.A.data.ptr, in_type, g.K,
                  b, g.C.data.ptr, runtime.CUDA_R_32F, g.N, compute, cb.CUBLAS_GEMM_DEFAULT)
