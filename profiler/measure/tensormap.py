"""TMA tensor maps for kernels that declare `tensor_maps` in the manifest (Hopper rungs).

A kernel that loads its operands with `cp.async.bulk.tensor` takes, after the fixed argument list,
one `const __grid_constant__ CUtensorMap` per entry of its `tensor_maps`. The maps are 128-byte
structs made on the host by the driver's `cuTensorMapEncodeTiled`, and CuPy's RawKernel cannot
pass a struct by value, so such kernels are launched here through the driver's `cuLaunchKernel`
(the CuPy function's CUfunction handle, CuPy's current stream).

`encoding` and `staged_operands` are the pure part (what the driver is asked for, derived from the
spec and the shape; unit-tested without a GPU); `TensorMapLauncher` does the ctypes calls and
caches the encoded maps per (operand, buffer address, shape), so timing loops do not pay for the
encoding.

Staged operands (manifest key `staging`): where an operand's rows are not a multiple of 16 bytes
(or of the kernel's `staging_row_bytes`), the launcher gives the kernel a buffer of its own with
the rows at an aligned pitch (a multiple of the kernel's `staging_pitch_bytes`), encodes the
operand's map over that buffer (true extent, padded pitch), and launches cooperatively, since the
kernel copies the operand there and then synchronises its grid. The buffer is kept while the
shape stays, one per operand.
"""

from __future__ import annotations

import ctypes
import functools
from dataclasses import dataclass

from ..errors import GemmprofError
from ..catalogue.kernel_spec import ELEMENT_BYTES, TensorMapSpec, staged_pitch
from ..tiers import ELEMENT_TYPES, TIERS

# CUtensorMapDataType (tiers.ELEMENT_TYPES), CUtensorMapSwizzle, ... (cuda.h)
DATA_TYPE = {name: e.tma_data_type for name, e in ELEMENT_TYPES.items()}
SWIZZLE = {0: 0, 32: 1, 64: 2, 128: 3}  # bytes -> CU_TENSOR_MAP_SWIZZLE_NONE / 32B / 64B / 128B
INTERLEAVE_NONE = 0
L2_PROMOTION = {0: 0, 64: 1, 128: 2, 256: 3}  # bytes -> CU_TENSOR_MAP_L2_PROMOTION_NONE / L2_64B / ...
OOB_FILL_NONE = 0
TENSOR_MAP_BYTES = 128  # sizeof(CUtensorMap), alignas(128) in cuda.h


@dataclass(frozen=True)
class Encoding:
    """The arguments of cuTensorMapEncodeTiled for one operand (all but the base address).
    Dimensions innermost (contiguous) first, as the driver wants them."""

    data_type: int
    global_dim: tuple[int, int]  # elements: (columns, rows) of the row-major matrix
    global_strides: tuple[int]  # bytes from one row to the next (rank - 1 entries)
    box: tuple[int, int]  # elements: (inner, outer)
    element_strides: tuple[int, int]
    interleave: int
    swizzle: int
    l2_promotion: int
    oob_fill: int

    @property
    def rank(self) -> int:
        return len(self.global_dim)


def operand_shape(operand: str, M: int, N: int, K: int) -> tuple[int, int]:
    """(rows, columns) of a row-major operand: A is MxK, B is KxN, C is MxN."""
    return {"A": (M, K), "B": (K, N), "C": (M, N)}[operand]


@dataclass(frozen=True)
class Staged:
    """A staged operand's copy: `rows` x `cols` elements at `pitch` elements a row."""

    operand: str
    rows: int
    cols: int
    pitch: int


def staged_operands(spec, M: int, N: int, K: int) -> dict[str, Staged]:
    """The operands of `spec.staging` that need their copy at this shape (rows not a multiple of
    the kernel's `staging_row_bytes`, TMA's 16 by default), each at the kernel's pitch
    (`staging_pitch_bytes`)."""
    element_bytes = ELEMENT_BYTES[TIERS[spec.tier].input]
    out = {}
    for operand in spec.staging:
        rows, cols = operand_shape(operand, M, N, K)
        if staged_pitch(cols, element_bytes, spec.staging_row_bytes) != cols:
            out[operand] = Staged(operand, rows, cols, staged_pitch(cols, element_bytes, spec.staging_pitch_bytes))
    return out


def encoding(tm: TensorMapSpec, tier: str, M: int, N: int, K: int, pitch: int | None = None) -> Encoding:
    """What to ask cuTensorMapEncodeTiled for, for operand `tm.operand` of an (M, N, K) problem,
    whose rows lie `pitch` elements apart (default: packed, `cols`)."""
    rows, cols = operand_shape(tm.operand, M, N, K)
    etype = tm.element_type(tier)
    row_bytes = (pitch or cols) * tm.element_bytes(tier)
    if row_bytes % 16:
        raise GemmprofError(f"tensor map of {tm.operand}: a row is {row_bytes} bytes, TMA needs a multiple of 16")
    return Encoding(
        data_type=DATA_TYPE[etype],
        global_dim=(cols, rows),
        global_strides=(row_bytes,),
        box=(tm.box[0], tm.box[1]),
        element_strides=(1, 1),
        interleave=INTERLEAVE_NONE,
        swizzle=SWIZZLE[tm.swizzle],
        l2_promotion=L2_PROMOTION[tm.l2_promotion],
        oob_fill=OOB_FILL_NONE,
    )


class _Driver:
    """The driver entry points CuPy does not wrap, typed (libcuda.so.1: the driver CuPy itself runs on)."""

    def __init__(self):
        lib = ctypes.CDLL("libcuda.so.1")
        u64p, u32p = ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint32)
        lib.cuTensorMapEncodeTiled.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p,
                                               u64p, u64p, u32p, u32p, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                               ctypes.c_int]
        lib.cuTensorMapEncodeTiled.restype = ctypes.c_int
        lib.cuLaunchKernel.argtypes = [ctypes.c_void_p, *([ctypes.c_uint] * 7), ctypes.c_void_p,
                                       ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]
        lib.cuLaunchKernel.restype = ctypes.c_int
        lib.cuLaunchCooperativeKernel.argtypes = [ctypes.c_void_p, *([ctypes.c_uint] * 7), ctypes.c_void_p,
                                                  ctypes.POINTER(ctypes.c_void_p)]
        lib.cuLaunchCooperativeKernel.restype = ctypes.c_int
        lib.cuGetErrorName.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        lib.cuGetErrorName.restype = ctypes.c_int
        lib.cuOccupancyMaxActiveBlocksPerMultiprocessor.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_void_p,
                                                                    ctypes.c_int, ctypes.c_size_t]
        lib.cuOccupancyMaxActiveBlocksPerMultiprocessor.restype = ctypes.c_int
        self.lib = lib

    def check(self, status: int, what: str) -> None:
        if status:
            name = ctypes.c_char_p()
            self.lib.cuGetErrorName(status, ctypes.byref(name))
            raise GemmprofError(f"{what} failed: {(name.value or b'CUDA error').decode()} ({status})")

    def resident_per_sm(self, handle: int, threads: int, smem_bytes: int) -> int:
        """How many CTAs of the CUfunction `handle` an SM holds at once at this block size and
        dynamic shared memory."""
        blocks = ctypes.c_int()
        self.check(self.lib.cuOccupancyMaxActiveBlocksPerMultiprocessor(
            ctypes.byref(blocks), ctypes.c_void_p(handle), threads, smem_bytes), "cuOccupancyMaxActiveBlocksPerMultiprocessor")
        return blocks.value

    def encode(self, enc: Encoding, address: int) -> ctypes.Array:
        """A CUtensorMap (128 bytes, 128-byte aligned) describing `enc` at device `address`."""
        raw = ctypes.create_string_buffer(2 * TENSOR_MAP_BYTES)  # room to align
        offset = -ctypes.addressof(raw) % TENSOR_MAP_BYTES
        tensor_map = (ctypes.c_ubyte * TENSOR_MAP_BYTES).from_buffer(raw, offset)
        n = enc.rank
        self.check(self.lib.cuTensorMapEncodeTiled(
            ctypes.addressof(tensor_map), enc.data_type, n, ctypes.c_void_p(address),
            (ctypes.c_uint64 * n)(*enc.global_dim), (ctypes.c_uint64 * (n - 1))(*enc.global_strides),
            (ctypes.c_uint32 * n)(*enc.box), (ctypes.c_uint32 * n)(*enc.element_strides),
            enc.interleave, enc.swizzle, enc.l2_promotion, enc.oob_fill), "cuTensorMapEncodeTiled")
        return tensor_map


@functools.cache
def driver() -> _Driver:
    return _Driver()


def function_handle(function) -> int:
    """The CUfunction of a RawModule.get_function's RawKernel (its .kernel is the loaded
    cupy.cuda.Function of the current device) or of a cupy.cuda.Function."""
    return getattr(function, "kernel", function).ptr


class TensorMapLauncher:
    """Launches a kernel that takes tensor maps: fixed arguments, a pointer per staged operand, then
    one map per `tensor_maps`."""

    MAX_CACHED = 64

    def __init__(self, spec, function):
        self.spec = spec
        self.function = function  # RawModule.get_function's RawKernel (or a cupy.cuda.Function)
        self.driver = driver()
        self._maps: dict[tuple, ctypes.Array] = {}
        self._staging: dict[str, tuple[Staged, object]] = {}  # operand -> (shape, its buffer)

    def tensor_map(self, tm: TensorMapSpec, buffer, M: int, N: int, K: int, pitch: int | None = None) -> ctypes.Array:
        key = (tm, buffer.data.ptr, M, N, K, pitch)
        if key not in self._maps:
            if len(self._maps) >= self.MAX_CACHED:
                self._maps.clear()
            self._maps[key] = self.driver.encode(encoding(tm, self.spec.tier, M, N, K, pitch), buffer.data.ptr)
        return self._maps[key]

    def staging_buffers(self, cp, staged: dict[str, Staged], buffers: dict) -> dict:
        """The copies' buffers for this shape: made on first use, kept while the shape stays, let
        go when it changes (an operand no longer staged holds none)."""
        for operand in [op for op, (s, _) in self._staging.items() if staged.get(op) != s]:
            del self._staging[operand]  # freed before a new one is made
        for operand, s in staged.items():
            if operand not in self._staging:
                self._staging[operand] = (s, cp.empty((s.rows, s.pitch), dtype=buffers[operand].dtype))
        return {operand: buffer for operand, (_, buffer) in self._staging.items()}

    def __call__(self, cp, g, alpha: float, beta: float, launch) -> None:
        buffers = {"A": g.A, "B": g.B, "C": g.C}
        staged = staged_operands(self.spec, g.M, g.N, g.K)
        copies = self.staging_buffers(cp, staged, buffers)
        args = [ctypes.c_int(g.M), ctypes.c_int(g.N), ctypes.c_int(g.K), ctypes.c_float(alpha),
                ctypes.c_void_p(g.A.data.ptr), ctypes.c_void_p(g.B.data.ptr), ctypes.c_float(beta),
                ctypes.c_void_p(g.C.data.ptr)]
        args += [ctypes.c_void_p(copies[op].data.ptr if op in copies else None) for op in self.spec.staging]
        args += [self.tensor_map(tm, copies.get(tm.operand, buffers[tm.operand]), g.M, g.N, g.K,
                                 staged[tm.operand].pitch if tm.operand in staged else None)
                 for tm in self.spec.tensor_maps]
        params = (ctypes.c_void_p * len(args))(*(ctypes.addressof(a) for a in args))
        stream = cp.cuda.get_current_stream().ptr
        handle = function_handle(self.function)
        lib = self.driver.lib
        geometry = (ctypes.c_void_p(handle), *launch.grid, *launch.block, launch.smem_bytes, ctypes.c_void_p(stream), params)
        if launch.cooperative:  # the kernel synchronises its grid: every CTA must be resident
            self.driver.check(lib.cuLaunchCooperativeKernel(*geometry), f"cuLaunchCooperativeKernel({self.spec.entry})")
        else:
            self.driver.check(lib.cuLaunchKernel(*geometry, None), f"cuLaunchKernel({self.spec.entry})")
