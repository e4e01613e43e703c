"""Dispatch rules that raise a sweep's geometric mean most, rule by rule (`gemmprof dispatch
--objective geomean`): for sweeps of many shapes drawn at random, where the tolerance learner of
`dispatch.derive_rules` finds few rules that hold within tolerance at every shape they claim.

How: a decision list built top down over the same vocabulary of conditions. The shapes no rule
has claimed yet would all go to one fallback, the contract-free kernel with the best geometric
mean over them. Each step takes the (kernel, condition) pair that, claiming its shapes and leaving
the rest to the best fallback for the rest, raises the sum of log(share of the fastest) the most;
a pair must claim at least `MIN_SHAPES` shapes, leave none or at least as many to the fallback,
and gain at least `MIN_GAIN` a claimed shape, so that no rule is cut around one shape's noise.
Then the fallback, and, where it has a contract, the next kernels for the shapes outside it.

Measured (derived on one half of a sweep, scored on the other, seeds 0-4, mean % of cuBLAS): on
the 151-shape sample sweep (2026-11-27-h200/sample-validation/fp32) 81.5% against the tolerance
learner's 77.1%; on the default suite's 37 shapes (2026-11-23-h100/shapes-suite-19) 91.3% against
88.7%. Fitted to every shape of the default suite it scores 100.8% there against the tolerance
learner's 106.3%: on a suite of hand-picked shapes, each its own regime, the tolerance learner
fits closer, which is why it stays the default.

Pure: a bench table and the ladder in, rules out.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..catalogue.dispatchers import DEFAULT_MAX_RULES, DEFAULT_SMS, DispatchRule
from ..catalogue.expressions import evaluate
from ..catalogue.kernel_spec import KernelSpec
from .dispatch import conditions, share_of_best

MIN_SHAPES = 3
MIN_GAIN = math.log(1.02)  # 2% a claimed shape
NOT_RUN = math.log(0.01)  # a kernel that did not pass (or was not run) at a shape: as 1% of the fastest


def derive_geomean_rules(bench: pd.DataFrame, kernels: dict[str, KernelSpec], tier: str = "fp32",
                         sms: int = DEFAULT_SMS, max_rules: int = DEFAULT_MAX_RULES) -> tuple[DispatchRule, ...]:
    """Rules for the dispatcher of `tier` from a sweep on a GPU of `sms` SMs (see the module)."""
    share = share_of_best(bench, kernels, tier)
    if share.empty:
        raise ValueError("no kernel passed at any shape: nothing to derive from")
    shapes, names = list(share.index), list(share.columns)
    values = share.to_numpy(dtype=float)
    logs = np.full(values.shape, NOT_RUN)  # shapes x kernels
    ran = values > 0  # NaN (not run, or failed) is not
    logs[ran] = np.log(values[ran])
    vocabulary = conditions(shapes)
    holds = np.array([[bool(evaluate(c, *s, sms)) for s in shapes] for c in vocabulary]).reshape(len(vocabulary), len(shapes))
    takes = np.array([[kernels[k].unsupported_reason(*s) is None for s in shapes] for k in names])
    free = [i for i, k in enumerate(names) if not kernels[k].contract] or list(range(len(names)))
    left = np.ones(len(shapes), dtype=bool)
    rules: list[DispatchRule] = []
    while len(rules) < max_rules - 1 and left.sum() >= MIN_SHAPES:
        pick = _best_rule(logs, holds, takes, left, free)
        if pick is None:
            break
        k, c, claimed = pick
        rules.append(DispatchRule(names[k], vocabulary[c]))
        left &= ~claimed
    return tuple(rules) + _fallbacks(logs, takes, left, free, names)


def _best_rule(logs: np.ndarray, holds: np.ndarray, takes: np.ndarray, left: np.ndarray,
               free: list[int]) -> tuple[int, int, np.ndarray] | None:
    """(kernel, condition, shapes claimed) of the pair that gains most over sending every shape
    `left` to its best fallback, or None when none gains enough."""
    on_left = (logs * left[:, None]).sum(axis=0)  # per kernel, over the shapes left
    baseline = on_left[free].max()
    best = None
    for k in range(logs.shape[1]):
        claimed = holds & takes[k] & left  # conditions x shapes
        count = claimed.sum(axis=1)
        sums = claimed.astype(float) @ logs  # conditions x kernels: each kernel over each claim
        gain = sums[:, k] + (on_left[free] - sums[:, free]).max(axis=1) - baseline
        rest = left.sum() - count  # what the fallback then takes: a region of its own, or nothing
        enough = (count >= MIN_SHAPES) & ((rest == 0) | (rest >= MIN_SHAPES))
        gain = np.where(enough & (gain >= MIN_GAIN * np.maximum(count, 1)), gain, -np.inf)
        c = int(np.argmax(gain))  # the earlier condition on a tie: simpler first
        if gain[c] > -np.inf and (best is None or gain[c] > best[0]):
            best = (gain[c], k, c, claimed[c])
    return best and best[1:]


def _fallbacks(logs: np.ndarray, takes: np.ndarray, left: np.ndarray, free: list[int],
               names: list[str]) -> tuple[DispatchRule, ...]:
    """The last rules: the fallback with the best geometric mean over the shapes no rule claimed
    (all shapes where none are left); then, where it has a contract, the kernel best over the
    shapes outside it, and so on (a dispatcher passes over a rule whose kernel does not take a
    shape)."""
    rows = left.copy() if left.any() else np.ones_like(left)
    out: list[DispatchRule] = []
    pool = list(free)
    while rows.any():
        pool = [i for i in pool if (takes[i] & rows).any()]
        if not pool:
            break
        k = max(pool, key=lambda i: logs[rows, i].sum())
        out.append(DispatchRule(names[k], 1))
        rows &= ~takes[k]
        pool.remove(k)
    return tuple(out)
