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

from ..tiers import UNIT_ROUNDOFF, fp16_tolerance, fp32_tolerance, tier as tier_record
from .launch import Gemm

__all__ = ["ALPHA", "BETA", "Check", "bound_threshold", "check", "fp16_tolerance", "fp32_tolerance", "relative_error",
           "UNIT_ROUNDOFF"]

ALPHA, BETA = 1.25, -0.75  # not 1 and 0: a kernel that ignores them fails
FP64_REFERENCE_MAX_FLOP = 2 * 1024**3  # also check against float64 on the CPU up to this size


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
    error_fp64: float | None  # vs a float64 reference: on the CPU at small shapes, on the GPU at every shape where the tier asks
    reason: str = ""


def relative_error(cp, out, ref) -> float:
    return float(cp.linalg.norm((out - ref).ravel()) / cp.linalg.norm(ref.ravel()))


def check(cp, run, reference, M: int, N: int, K: int, tier: str = "fp32", seed: int | None = None) -> Check:
    """Run `run` and `reference` on the same fresh inputs and compare (see module docstring)."""
    t = tier_record(tier)
    g = Gemm.random(cp, M, N, K, dtype=t.dtype, seed=seed)
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

    tolerance = t.tolerance(K)
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
    if t.fp64_every_shape:  # FP64 GEMM on the GPU (cuBLAS DGEMM): seconds on the CPU become milliseconds
        error_fp64 = fp64_error(cp, A, B, C0, outs[1])
    elif 2 * M * N * K <= FP64_REFERENCE_MAX_FLOP:
        exact = ALPHA * (A.get().astype(np.float64) @ B.get().astype(np.float64)) + BETA * C0.get().astype(np.float64)
        out = outs[1].get().astype(np.float64)
        error_fp64 = float(np.linalg.norm(out - exact) / np.linalg.norm(exact)) if np.isfinite(out).all() else math.inf

    error, ratio = max(errors), max(ratios)
    if not reason and not error <= tolerance:
        reason = f"relative error {error:.2e} > tolerance {tolerance:.1e}"
    if not reason and t.componentwise and not ratio <= threshold:
        reason = f"an element is off by {ratio:.2e} x |A||B| (bound {threshold:.1e})"
    if not reason and error_fp64 is not None and not error_fp64 <= tolerance:
        reason = f"relative error vs float64 {error_fp64:.2e} > tolerance {tolerance:.1e}"
    return Check(not reason, error, tolerance, ratio, threshold, error_fp64, reason)


def fp64_error(cp, A, B, C0, out) -> float:
    """||out - exact||_F / ||exact||_F with exact = ALPHA A B + BETA C0 computed in float64 on the
    device (the beta != 0 launch's output); inf when `out` has a non-finite element."""
    if not bool(cp.isfinite(out).all()):
        return math.inf
    exact = ALPHA * (A.astype(np.float64) @ B.astype(np.float64)) + BETA * C0.astype(np.float64)
    exact_norm = float(cp.linalg.norm(exact.ravel()))
    exact -= out.astype(np.float64)
    return float(cp.linalg.norm(exact.ravel())) / exact_norm
