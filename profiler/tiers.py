"""Precision tiers: one frozen record per tier, looked up by name.

A tier says what a kernel takes and gives (the element type of A and B; C is always FP32), which
cuBLAS call it is measured against, how far from that call it may be, what peak "% of peak" means
for it and how charts title it. Verification, the bench worker, the ncu target, TMA encoding,
the peaks, the memory model and the charts all read these records; none of them spells a tier
fact again.

The cuBLAS rows are `Reference`s: each tier has one yardstick (the row "% of cuBLAS" is against)
and may have context rows, timed beside it under the same inputs but never a yardstick and never a
win: `fp32-tc` (FP32 in and out, tensor cores inside) is measured against strict SGEMM, with
cuBLAS's own TF32 tensor-core SGEMM (FAST_TF32) beside it to show what giving up FP32 accuracy buys.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .errors import GemmprofError

# Unit roundoff of each element type (half an ulp of 1): the scale of every tolerance below.
UNIT_ROUNDOFF = {"fp32": 2.0**-24, "fp16": 2.0**-11, "tf32": 2.0**-11}


def fp32_tolerance(K: int) -> float:
    """Relative Frobenius tolerance for an FP32 GEMM with inner dimension K.

    Rounding errors of a length-K dot product of random data grow like u*sqrt(K) (u = 2^-24, a
    random walk); on the H200 a sequential-sum kernel against cuBLAS measured about 0.3*u*sqrt(K)
    (4.5e-7 at K=512). 4*u*sqrt(K) leaves a 10x margin and is still 1.5e-5 at K=4096, where
    dropping one 8-wide k-tile gives ~4e-2 and one wrong element of 4096^2 ~2e-4.
    """
    return 4 * UNIT_ROUNDOFF["fp32"] * math.sqrt(K)


def fp16_tolerance(K: int) -> float:
    """FP16 inputs, FP32 accumulation, against FP32 cuBLAS on the same FP16 inputs: the inputs
    are identical, so only accumulation order and the tensor cores' internal rounding differ;
    1e-2 is the tier's agreed bound, far above that and far below a wrong tile (~1e-1)."""
    return 1e-2


@dataclass(frozen=True)
class ElementType:
    """An element type of A or B: its numpy name, its size, its CUtensorMapDataType (cuda.h)."""

    name: str
    numpy: str
    bytes: int
    tma_data_type: int


ELEMENT_TYPES = {
    "fp32": ElementType("fp32", "float32", 4, 7),  # CU_TENSOR_MAP_DATA_TYPE_FLOAT32
    "fp16": ElementType("fp16", "float16", 2, 6),  # CU_TENSOR_MAP_DATA_TYPE_FLOAT16
}

# The status of a bench record: PASS (verified against the reference, timed), FAIL (verified
# wrong), ERROR (did not run to the end: a fault, a dead worker), SKIP (not run: outside the
# kernel's contract, a GPU too old for it, no dispatch rule for the shape).
PASS, FAIL, ERROR, SKIP = "PASS", "FAIL", "ERROR", "SKIP"
# Status of a context row's bench record: verified and its error recorded, timed whatever the
# verdict, never a yardstick nor a win. Rows of these statuses carry a time.
CONTEXT = "CONTEXT"
TIMED_STATUSES = (PASS, CONTEXT)
# A kernel that ran and is wrong or broke (not a SKIP: that is a kernel not run).
FAILED_STATUSES = (FAIL, ERROR)
STATUSES = (PASS, FAIL, ERROR, SKIP, CONTEXT)

# The baseline every FP32 kernel is verified and timed against; its rows and reports carry this name.
CUBLAS = "cublas"


@dataclass(frozen=True)
class Reference:
    """One cuBLAS row: its name in tables and reports, the tier whose inputs it takes, how cuBLAS
    is called (`measure.launch.CublasRunner` dispatches on `call`), and whether it is context
    only (timed beside the tier's yardstick, its error shown, never a yardstick nor a win)."""

    name: str
    tier: str
    call: str  # "sgemm" | "gemmex-fp16" | "gemmex-fast-tf32"
    label: str  # in charts and report pages
    idea: str  # said where a rung would say its idea
    math: str  # how cuBLAS computes it, in a few words (the bench's header line)
    context: bool = False


@dataclass(frozen=True)
class Tier:
    """One precision tier (see the module docstring)."""

    name: str
    input: str  # element type of A and B (ELEMENT_TYPES); C is FP32 in every tier
    reference: str  # the cuBLAS row "% of cuBLAS" is against (REFERENCE_ROWS)
    context: tuple[str, ...]  # cuBLAS rows timed beside it for context (REFERENCE_ROWS)
    tolerance: Callable[[int], float]  # relative Frobenius tolerance as a function of K
    componentwise: bool  # also held to the rigorous FP32 componentwise bound
    fp64_every_shape: bool  # error vs an FP64 reference at every shape (on the GPU), not only small ones
    peak: str  # key of specs.PEAKS: what "% of peak" is of
    peak_label: str
    title: str  # of the tier's ladder chart
    ladder: str  # what a report of its kernels is headed by
    # Its kernels execute more tensor FLOPs than the GEMM's 2MNK (3xTF32: three MMAs per product), so
    # a profiled launch's headline rate is the GEMM's 2MNK / time and the executed rate is shown as such.
    extra_products: bool = False
    # Tiers whose kernels this tier's dispatchers may choose: the same inputs, yardstick and bound,
    # so a strict FP32 kernel answers an fp32-tc shape where the tensor cores do not pay.
    also_runs: tuple[str, ...] = ()

    def runs_kernels_of(self, other: str) -> bool:
        return other == self.name or other in self.also_runs

    @property
    def element(self) -> ElementType:
        return ELEMENT_TYPES[self.input]

    @property
    def element_bytes(self) -> int:
        return self.element.bytes

    @property
    def dtype(self):
        import numpy as np

        return np.dtype(self.element.numpy)


REFERENCE_ROWS: dict[str, Reference] = {r.name: r for r in (
    Reference(CUBLAS, "fp32", "sgemm", "cuBLAS",
              "cuBLAS SGEMM in strict FP32, the reference at the top of the ladder", "SGEMM, strict FP32 (no TF32)"),
    Reference(f"{CUBLAS}-fp16", "fp16", "gemmex-fp16", "cuBLAS FP16",
              "cuBLAS GemmEx (fp16 in, FP32 accumulate), the reference of its tier", "GemmEx, FP16 in, FP32 accumulate"),
    Reference(f"{CUBLAS}-tf32", "fp32-tc", "gemmex-fast-tf32", "cuBLAS TF32",
              "cuBLAS GemmEx with CUBLAS_COMPUTE_32F_FAST_TF32 (FP32 in and out, one TF32 product on the "
              "tensor cores): context for the fp32-tc tier, outside the FP32 bound, never its yardstick",
              "GemmEx, CUBLAS_COMPUTE_32F_FAST_TF32", context=True),
)}

TIERS: dict[str, Tier] = {t.name: t for t in (
    Tier("fp32", "fp32", CUBLAS, (), fp32_tolerance, componentwise=True, fp64_every_shape=False,
         peak="fp32", peak_label="FP32 peak", title="The ladder against cuBLAS (FP32 SGEMM)", ladder="SGEMM ladder"),
    Tier("fp16", "fp16", f"{CUBLAS}-fp16", (), fp16_tolerance, componentwise=False, fp64_every_shape=False,
         peak="tensor_fp16", peak_label="FP16 tensor peak",
         title="The tensor-core ladder against cuBLAS (FP16 GemmEx, FP32 accumulate)",
         ladder="FP16 tensor-core ladder"),
    Tier("fp32-tc", "fp32", CUBLAS, (f"{CUBLAS}-tf32",), fp32_tolerance, componentwise=True, fp64_every_shape=True,
         peak="tensor_tf32", peak_label="TF32 tensor peak",
         title="FP32 on tensor cores against cuBLAS strict SGEMM (cuBLAS FAST_TF32 for context)",
         ladder="FP32 tensor-core ladder", extra_products=True, also_runs=("fp32",)),
)}


def tier(name: str) -> Tier:
    """The tier called `name`; an unknown name is a user error naming the known ones."""
    try:
        return TIERS[name]
    except KeyError:
        raise GemmprofError(f"unknown precision tier {name!r}", f"one of: {', '.join(TIERS)}") from None


def reference(name: str) -> Reference:
    """The cuBLAS row called `name` (a KeyError for a kernel name: callers check `in REFERENCE_ROWS`)."""
    return REFERENCE_ROWS[name]


def cublas_rows(tier_name: str) -> list[Reference]:
    """The cuBLAS rows a bench of `tier_name` times: its yardstick, then its context rows."""
    t = tier(tier_name)
    return [REFERENCE_ROWS[t.reference], *(REFERENCE_ROWS[c] for c in t.context)]
