"""Correctness before timing: every kernel is checked against cuBLAS on fresh random inputs.

Two launches per check:
  1. beta = 0 with C poisoned to NaN: BLAS semantics say C is not read, so any element the kernel
     fails to write stays NaN and fails the check;
  2. beta != 0 on random C: exercises the read of C.
Two error measures:
  * `error`: ||C - C_ref||_F / ||C_ref||_F, the figure people compare (reported);
  * `worst_bound_ratio`: max_ij |C - C_ref|_ij / (|alpha| (|A||B|)_ij + |beta C0|_ij), checked
    against the rigorous FP32 error bound. A norm can hide one wrong element in 16M; this cannot.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .launch import Gemm

UNIT_ROUNDOFF = {"fp32": 2.0**-24, "fp16": 2.0**-11}
ALPHA, BETA = 1.25, -0.75  # not 1 and 0: a kernel that ignores them fails
FP64_REFERENCE_MAX_FLOP = 2 * 1024**3  # also check against float64 on the CPU up to this size


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


def bound_threshold(K: int) -> float:
    """Rigorous componentwise bound for two FP32-accumulated results of the same product:
    each is within gamma_K |A||B| (gamma_K ~ K u) of the exact one, plus a few roundings for
    alpha, beta and the final sum."""
    u = UNIT_ROUNDOFF["fp32"]
    return 2 * (K + 4) * u


@dataclass
class Check:
    passed: bool
    error: float  # relative Frobenius error vs cuBLAS (or vs float64 for cuBLAS itself)
    tolerance: float
    worst_bound_ratio: float
    bound_threshold: float
    error_fp64: float | None  # vs float64 CPU reference, small shapes only
    reason: str = ""


def relative_error(cp, out, ref) -> float:
    return float(cp.linalg.norm((out - ref).ravel()) / cp.linalg.norm(ref.ravel()))


def check(cp, run, reference, M: int, N: int, K: int, tier: str = "fp32", seed: int | None = None) -> Check:
    """Run `run` and `reference` on the same fresh inputs and compare (see module docstring)."""
    dtype = np.float16 if tier == "fp16" else np.float32
    g = Gemm.random(cp, M, N, K, dtype=dtype, seed=seed)
    C0 = g.C.copy()
    outs, refs = [], []
    for beta in (0.0, BETA):
        for runner, sink in ((run, outs), (reference, refs)):
            if beta == 0.0:
                g.C.fill(np.nan)
            else:
                g.C[...] = C0
            runner(g, ALPHA, beta)
            sink.append(g.C.copy())
    cp.cuda.runtime.deviceSynchronize()

    tolerance = fp16_tolerance(K) if tier == "fp16" else fp32_tolerance(K)
    threshold = bound_threshold(K)
    A, B = g.A.astype(np.float32), g.B.astype(np.float32)
    scale = ALPHA * (cp.abs(A) @ cp.abs(B))
    errors, ratios, reason = [], [], ""
    for beta, out, ref in zip((0.0, BETA), outs, refs):
        bad = int((~cp.isfinite(out)).sum())
        if bad:
            reason = reason or f"{bad} of {out.size} elements not finite (unwritten?) with beta={beta}"
            errors.append(math.inf)
            ratios.append(math.inf)
            continue
        errors.append(relative_error(cp, out, ref))
        bound = scale + abs(beta) * cp.abs(C0) + np.finfo(np.float32).tiny
        ratios.append(float((cp.abs(out - ref) / bound).max()))

    error_fp64 = None
    if 2 * M * N * K <= FP64_REFERENCE_MAX_FLOP:
        exact = ALPHA * (A.get().astype(np.float64) @ B.get().astype(np.float64)) + BETA * C0.get().astype(np.float64)
        out = outs[1].get().astype(np.float64)
        error_fp64 = float(np.linalg.norm(out - exact) / np.linalg.norm(exact)) if np.isfinite(out).all() else math.inf

    error, ratio = max(errors), max(ratios)
    if not reason and not error <= tolerance:
        reason = f"relative error {error:.2e} > tolerance {tolerance:.1e}"
    if not reason and tier == "fp32" and not ratio <= threshold:
        reason = f"an element is off by {ratio:.2e} x |A||B| (bound {threshold:.1e})"
    if not reason and error_fp64 is not None and not error_fp64 <= tolerance:
        reason = f"relative error vs float64 {error_fp64:.2e} > tolerance {tolerance:.1e}"
    return Check(not reason, error, tolerance, ratio, threshold, error_fp64, reason)
