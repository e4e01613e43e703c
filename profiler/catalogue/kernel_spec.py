"""What one manifest entry says about a kernel: `KernelSpec` (file, entry point, tier, launch
geometry and shared memory as expressions, contract, tensor maps, textures, staged operands) and
the `Launch` it gives at a shape."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..tiers import TIERS as TIER_RECORDS
from .expressions import DEFAULT_SMS, Expr, evaluate
from .kernel_paths import KERNELS_DIR
from ..tiers import ELEMENT_TYPES


# Bytes of one element of each element type (fp16 inputs; fp32 inputs and every C).
ELEMENT_BYTES = {name: e.bytes for name, e in ELEMENT_TYPES.items()}


@dataclass(frozen=True)
class Launch:
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    smem_bytes: int
    cooperative: bool = False  # cuLaunchCooperativeKernel: every CTA resident, or the launch fails


@dataclass(frozen=True)
class TensorMapSpec:
    """One TMA tensor map a kernel takes (manifest key `tensor_maps`): the launcher encodes it for
    the operand's row-major buffer and passes it, by value, after the fixed argument list."""

    operand: str  # "A", "B" or "C"
    box: tuple[int, int]  # elements copied per TMA: (inner = along the contiguous dimension, outer)
    swizzle: int = 128  # bytes: 0 (none), 32, 64 or 128; with a swizzle, box[0] spans at most that
    # bytes L2 fetches at least on a TMA load's miss: 0 (none), 64, 128 or 256. A box whose rows
    # are narrower than 256 bytes shares each 256-byte fill with its neighbour's.
    l2_promotion: int = 256

    @classmethod
    def of(cls, entry: dict) -> TensorMapSpec:
        """From a manifest entry or `dataclasses.asdict`'s dict: the keys it leaves out at their defaults."""
        return cls(entry["operand"], tuple(entry["box"]), **{k: entry[k] for k in ("swizzle", "l2_promotion") if k in entry})

    @classmethod
    def parse(cls, entry: dict, label: str) -> TensorMapSpec:
        unknown = sorted(set(entry) - {"operand", "box", "swizzle", "l2_promotion"})
        if unknown or "operand" not in entry or "box" not in entry:
            raise ValueError(f"{label}: a tensor map needs operand and box" + (f"; unknown keys {unknown}" if unknown else ""))
        tm = cls.of(entry)
        if tm.operand not in ("A", "B", "C"):
            raise ValueError(f"{label}: tensor map operand must be A, B or C, got {tm.operand!r}")
        if len(tm.box) != 2 or not all(isinstance(b, int) and 1 <= b <= 256 for b in tm.box):
            raise ValueError(f"{label}: tensor map box must be two integers in 1..256, got {list(tm.box)}")
        if tm.swizzle not in (0, 32, 64, 128):
            raise ValueError(f"{label}: tensor map swizzle must be 0, 32, 64 or 128 bytes, got {tm.swizzle}")
        if tm.l2_promotion not in (0, 64, 128, 256):
            raise ValueError(f"{label}: tensor map l2_promotion must be 0, 64, 128 or 256 bytes, got {tm.l2_promotion}")
        return tm

    def element_type(self, tier: str) -> str:
        """A and B have the tier's input type; C is always float."""
        return TIER_RECORDS[tier].input if self.operand in ("A", "B") else "fp32"

    def element_bytes(self, tier: str) -> int:
        return ELEMENT_BYTES[self.element_type(tier)]

    def check(self, tier: str, label: str) -> None:
        """TMA's rules on the box: inner extent a multiple of 16 bytes, within the swizzle span."""
        inner = self.box[0] * self.element_bytes(tier)
        if inner % 16:
            raise ValueError(f"{label}: tensor map of {self.operand}: box inner extent {inner} bytes is not a multiple of 16")
        if self.swizzle and inner > self.swizzle:
            raise ValueError(f"{label}: tensor map of {self.operand}: box inner extent {inner} bytes exceeds the {self.swizzle}-byte swizzle")


STAGED_ROW_BYTES = 16  # TMA's rule on a global row pitch


def staged_pitch(cols: int, element_bytes: int, row_bytes: int = STAGED_ROW_BYTES) -> int:
    """Elements per row of a staged copy: `cols` rounded up to a multiple of `row_bytes` (the
    kernel's `staging_pitch_bytes`; TMA's 16 at least)."""
    per = row_bytes // element_bytes
    return -(-cols // per) * per


@dataclass(frozen=True)
class KernelSpec:
    """One rung of the ladder, as the manifest describes it."""

    name: str
    file: str
    entry: str
    tier: str  # a tiers.TIERS name: "fp32", "fp16" (half in, float accumulate and out), "fp32-tc"
    idea: str
    grid: tuple[Expr, ...]
    block: tuple[Expr, ...]
    smem_bytes: Expr = 0
    predecessor: str | None = None
    # Divisibility the kernel needs, e.g. {"M": 128, "N": 128, "K": 8}; absent = any size.
    contract: dict[str, int] = field(default_factory=dict)
    spill_free: bool = True
    # On the ladder to show what a shortcut costs (1xTF32): verification must FAIL it. Its FAIL is
    # never timed, and neither `bench`'s exit status nor the GPU tests count it as a failure.
    expect_fail: bool = False
    arch: str | None = None  # e.g. "sm_90a" for wgmma; None = the device's own
    min_cc: int = 0  # lowest compute capability (e.g. 80 for cp.async) the kernel runs on
    nvcc_flags: tuple[str, ...] = ()
    # TMA tensor maps the kernel takes after the fixed arguments, in this order (Hopper rungs).
    tensor_maps: tuple[TensorMapSpec, ...] = ()
    # Matrices the kernel reads through 1D linear textures ("A", "B"): one cudaTextureObject_t per
    # entry, in this order, as extra trailing kernel arguments (see TEXTURE_ROW_DIM and launch.py).
    textures: tuple[str, ...] = ()
    # Operands ("A", "B") the kernel copies itself, when TMA cannot address their rows (a row not a
    # multiple of 16 bytes), into a buffer of the launcher's at an aligned pitch (`staged_pitch`):
    # one pointer per entry after C (null when the rows are aligned already), and the operand's
    # tensor map over that buffer. Such a kernel synchronises its grid between the copy and the
    # GEMM, so it is launched cooperatively (every CTA resident, or the launch fails).
    staging: tuple[str, ...] = ()
    # The staged copies' row pitch, a multiple of this many bytes (16, 32, 64 or 128; the kernel
    # pads its copies alike): 128 starts every row on a cache line, so that each 128-byte row of a
    # TMA box is one line, not parts of two.
    staging_pitch_bytes: int = STAGED_ROW_BYTES
    # Which rows are copied: an operand's rows that are not a multiple of this many bytes (16,
    # TMA's rule, the default; 32 copies rows that start inside a 32-byte sector too, which cost a
    # TMA box a fifth more L2 sectors; at most staging_pitch_bytes).
    staging_row_bytes: int = STAGED_ROW_BYTES
    # Where the kernel waits for other blocks of its grid (e.g. the splits of a tile before they
    # sum it): true, or an expression over M, N, K that is nonzero at the shapes where it waits.
    # Those launches are cooperative: every CTA resident, or the launch fails (never hangs).
    cooperative: bool | Expr = False
    # Probe kernels only (kernels/probes): the bottleneck planted in the kernel (a diagnosis cause
    # key) and the shape [M, N, K] at which it dominates and is profiled.
    planted: str = ""
    probe_shape: tuple[int, ...] = ()
    index: int = 0  # position in the ladder, 1-based; extra manifests continue after the ladder
    directory: str = ""  # the directory of the manifest that declared it ("" = kernels/)

    @classmethod
    def from_dict(cls, fields: dict) -> KernelSpec:
        """Back from `dataclasses.asdict` (e.g. through JSON, where tuples became lists)."""
        maps = tuple(TensorMapSpec.of(t) for t in fields.get("tensor_maps", ()))
        tuples = ("grid", "block", "nvcc_flags", "textures", "staging", "probe_shape")
        return cls(**{**fields, **{k: tuple(fields[k]) for k in tuples if k in fields}, "tensor_maps": maps})

    @property
    def source(self) -> Path:
        """The .cu file: `file` is relative to the directory of the manifest that names it."""
        return (Path(self.directory) if self.directory else KERNELS_DIR) / self.file

    def unsupported_reason(self, M: int, N: int, K: int) -> str | None:
        """Why this kernel cannot run shape (M, N, K), or None when it can."""
        if min(M, N, K) < 1:
            return f"M, N, K must be positive, got {M}x{N}x{K}"
        wrong = [
            f"{dim}={value} is not a multiple of {self.contract[dim]}"
            for dim, value in (("M", M), ("N", N), ("K", K))
            if dim in self.contract and value % self.contract[dim]
        ]
        return f"{self.name} needs " + ", ".join(wrong) if wrong else None

    def gpu_too_old(self, cc: tuple[int, int]) -> str | None:
        """Why a GPU of compute capability `cc` cannot run this kernel (below min_cc), or None."""
        if self.min_cc and cc[0] * 10 + cc[1] < self.min_cc:
            return f"{self.name} needs compute capability {self.min_cc // 10}.{self.min_cc % 10}, this GPU has {cc[0]}.{cc[1]}"
        return None

    def cannot_run(self, M: int, N: int, K: int, cc: tuple[int, int]) -> str | None:
        """Why this kernel cannot run shape (M, N, K) on a GPU of compute capability `cc`, or None."""
        return self.gpu_too_old(cc) or self.unsupported_reason(M, N, K)

    def launch(self, M: int, N: int, K: int, sms: int = DEFAULT_SMS) -> Launch:
        """The launch at shape (M, N, K) on a GPU of `sms` SMs (the name SMS of the expressions)."""
        def dims(exprs: tuple[Expr, ...]) -> tuple[int, int, int]:
            values = [evaluate(e, M, N, K, sms) for e in exprs] + [1] * (3 - len(exprs))
            return (values[0], values[1], values[2])

        # Staging kernels wait for the whole grid's copy at every shape.
        c = self.cooperative
        cooperative = bool(self.staging) or (c if isinstance(c, bool) else evaluate(c, M, N, K, sms) != 0)
        return Launch(dims(self.grid), dims(self.block), evaluate(self.smem_bytes, M, N, K, sms), cooperative)

    def flop(self, M: int, N: int, K: int) -> int:
        return 2 * M * N * K
