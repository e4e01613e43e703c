"""Choose the tolerance of a dispatcher's derivation (`analyze.dispatch.derive_rules`) by how its
rules do on shapes they were not derived from.

The tolerance is how close to the fastest kernel a rule's kernel must be at every shape it claims.
Tight, the greedy search peels off thin slices of volume that the next shapes do not follow; loose,
it sends shapes to kernels a few percent slower. Which is better depends on the sweep, so it is
measured: for each candidate tolerance, rules derived on half of the sweep's shapes are scored on
the other half, over several splits, and the candidate with the highest mean geometric mean wins.

Checked nested on the two 151-shape sample sweeps (H200; tolerance chosen on the derivation half
of each outer split, scored on its held-out half, six outer splits): FP32 75.5% -> 78.4% of
cuBLAS against the fixed 3%, FP16 72.4% -> 72.7%.

Pure: a bench table in, a tolerance and its scores out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from ..catalogue.dispatchers import DEFAULT_MAX_RULES, DEFAULT_SMS
from ..catalogue.kernel_spec import KernelSpec
from .dispatch import derive_rules, score, split_shapes

CANDIDATES = (0.02, 0.03, 0.05, 0.10, 0.15)
SPLITS = 4
FIRST_SEED = 100  # apart from the seeds a user's --hold-out takes (0, 1, 2, ...)


@dataclass(frozen=True)
class TolerancePick:
    """The chosen tolerance and, per candidate, the mean held-out geometric mean % of cuBLAS of
    its rules over the splits that could be scored (NaN: none could)."""

    tolerance: float
    scores: dict[float, float]
    splits: int


def choose_tolerance(bench: pd.DataFrame, kernels: dict[str, KernelSpec], tier: str = "fp32", sms: int = DEFAULT_SMS,
                     max_rules: int = DEFAULT_MAX_RULES, splits: int = SPLITS) -> TolerancePick:
    """The candidate tolerance whose rules, derived on half of `bench`'s shapes, score best on the
    other half (mean over `splits` splits; a tie goes to the tighter tolerance). Raises
    ValueError when no split leaves shapes on both sides to derive and score on."""
    halves = []
    for seed in range(FIRST_SEED, FIRST_SEED + splits):
        derive, held = split_shapes(bench, 0.5, seed)
        if not derive.empty and not held.empty:
            halves.append((derive, held))
    if not halves:
        raise ValueError("too few shapes to split in two: give the sweep more shapes, or a fixed --tolerance")
    scores = {tol: _mean_held_out(halves, kernels, tier, sms, tol, max_rules) for tol in CANDIDATES}
    measured = {tol: s for tol, s in scores.items() if not math.isnan(s)}
    if not measured:
        raise ValueError("no split's rules could be scored on its held-out shapes")
    best = max(measured, key=lambda tol: (measured[tol], -tol))
    return TolerancePick(best, scores, len(halves))


def _mean_held_out(halves, kernels, tier, sms, tolerance, max_rules) -> float:
    values = []
    for derive, held in halves:
        try:
            rules = derive_rules(derive, kernels, tier, sms, tolerance, max_rules)
        except ValueError:  # no kernel passed in this half
            continue
        pct = score(rules, held, kernels, tier, sms).geomean_pct
        if not math.isnan(pct):
            values.append(pct)
    return sum(values) / len(values) if values else math.nan
