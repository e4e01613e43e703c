"""The ladder: each kernel against the rung below it (the manifest's `predecessor`), cuBLAS on top.

`compare` turns a table of per-kernel facts (one row per kernel, see `QUANTITIES`) into what
changed from each kernel's predecessor: 'DRAM bytes x0.12', 'shared-load bank conflicts 2-way ->
none', 'occupancy 67% -> 33%', and what it bought in GFLOP/s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from ..catalogue.kernel_spec import KernelSpec
from ..catalogue.manifest import REFERENCES
from ..numbers import fmt_bytes, fmt_count, fmt_num, fmt_pct, fmt_ratio, fmt_way

# A ratio within this factor of 1 (or a percentage within this many points) is 'unchanged'.
SAME_RATIO = 0.03
SAME_POINTS = 2.0


@dataclass(frozen=True)
class Quantity:
    column: str
    label: str
    # ratio: 'x0.12 (a -> b)'; points: 'a -> b' for percentages; value: 'a -> b';
    # way: bank conflicts 'a -> b'; text: categorical 'a -> b'.
    kind: str
    unit: str = ""
    # Which way is better, for colouring: -1 lower, +1 higher, 0 neither.
    better: int = 0


# THE list of what the ladder compares, in the order it is shown.
QUANTITIES = (
    Quantity("gflops", "GFLOP/s", "ratio", "GFLOP/s", +1),
    Quantity("time_ms", "time", "ratio", "ms", -1),
    Quantity("bound", "verdict", "text"),
    Quantity("sm_busy_pct", "SMs busy", "points", "%", +1),
    Quantity("dram_bytes", "DRAM traffic", "ratio", "byte", -1),
    Quantity("l2_bytes", "L2 traffic", "ratio", "byte", -1),
    Quantity("l1_bytes", "L1 traffic", "ratio", "byte", -1),
    Quantity("global_load_per_math", "global loads per math instruction (FFMA or MMA)", "value", "", -1),
    Quantity("shared_load_per_math", "shared loads per math instruction (FFMA or MMA)", "value", "", -1),
    Quantity("all_per_math", "instructions per math instruction (FFMA or MMA)", "value", "", -1),
    Quantity("ffma_bank_conflict_pct", "FFMAs reading two operands from one register bank", "points", "%", -1),
    Quantity("epilogue_pct", "time after the main loop (share of PC samples)", "points", "%", -1),
    Quantity("shared_load_wavefronts", "shared-load wavefronts", "ratio", "wavefront", -1),
    Quantity("load_conflicts", "shared-load bank conflicts", "way", "", -1),
    Quantity("store_conflicts", "shared-store bank conflicts", "way", "", -1),
    Quantity("achieved_occupancy_pct", "occupancy", "points", "%", 0),
    Quantity("registers_per_thread", "registers per thread", "value", "", 0),
    Quantity("issue_pct", "issue slots busy", "points", "%", +1),
    Quantity("fp32_pct", "FP32 pipe", "points", "%", +1),
    Quantity("tensor_pct", "tensor cores (of the peak of their input type, TF32 or FP16)", "points", "%", +1),
    Quantity("top_stall", "top stall (costs only)", "text"),
)


def ladder_order(names: Iterable[str], specs: Sequence[KernelSpec]) -> list[str]:
    """Names in ladder order: manifest kernels by rung, then unknown names alphabetically, then
    cuBLAS (the top)."""
    names = list(dict.fromkeys(names))
    index = {s.name: s.index for s in specs}
    known = sorted((n for n in names if n in index), key=index.get)
    unknown = sorted(n for n in names if n not in index and n not in REFERENCES)
    return known + unknown + [r for r in REFERENCES if r in names]


def predecessor(name: str, present: Iterable[str], specs: Sequence[KernelSpec]) -> str | None:
    """The nearest rung below `name` that is in `present`: the manifest's predecessor, or its
    predecessor when that one is missing, and so on. cuBLAS's predecessor is the highest FP32
    rung present."""
    present = set(present)
    by_name = {s.name: s for s in specs}
    if name in REFERENCES:  # a cuBLAS reference: above its tier's highest rung (any rung if none is of it)
        rungs = [s for s in specs if s.name in present]
        mine = [s for s in rungs if s.tier == REFERENCES[name]]
        return max(mine or rungs, key=lambda s: s.index).name if rungs else None
    seen = set()
    spec = by_name.get(name)
    while spec is not None and spec.predecessor and spec.predecessor not in seen:
        seen.add(spec.predecessor)
        if spec.predecessor in present:
            return spec.predecessor
        spec = by_name.get(spec.predecessor)
    return None


def tier_rung(name: str, specs: Sequence[KernelSpec]) -> int | None:
    """How many steps up its own tier's ladder a kernel stands: 1 for a kernel whose predecessor
    is of another tier (or none), else its predecessor's rung + 1. The ladder is a tree (shape
    specialisations branch off a rung), so two kernels may share a rung; the manifest's index runs
    across tiers and says nothing about a tier. None for a kernel no manifest knows or a probe."""
    by_name = {s.name: s for s in specs}
    spec, rung, seen = by_name.get(name), 0, set()
    if spec is None or spec.planted:
        return None
    tier = spec.tier
    while spec is not None and spec.tier == tier and spec.name not in seen:
        seen.add(spec.name)
        rung += 1
        spec = by_name.get(spec.predecessor) if spec.predecessor else None
    return rung


def successor(name: str, present: Iterable[str], specs: Sequence[KernelSpec]) -> str | None:
    """The first kernel in ladder order whose predecessor (as `predecessor` finds it) is `name`."""
    present = list(present)
    for other in ladder_order(present, specs):
        if other != name and predecessor(other, present, specs) == name:
            return other
    return None


def changes(facts: pd.DataFrame, specs: Sequence[KernelSpec]) -> pd.DataFrame:
    """What changed from each kernel's predecessor. `facts` is indexed by kernel name with the
    columns of `QUANTITIES` (missing ones are skipped).

    One row per kernel and quantity that is known on both sides: kernel, predecessor, quantity,
    label, kind, before, after, ratio, change (text), changed (bool), better (True, False or None).
    """
    rows = []
    present = list(facts.index)
    for name in ladder_order(present, specs):
        pred = predecessor(name, present, specs)
        if pred is None:
            continue
        for q in QUANTITIES:
            if q.column not in facts.columns:
                continue
            before, after = facts.at[pred, q.column], facts.at[name, q.column]
            if _missing(before) or _missing(after):
                continue
            rows.append({"kernel": name, "predecessor": pred, "quantity": q.column, "label": q.label,
                         "kind": q.kind, "before": before, "after": after, **_change(q, before, after)})
    columns = ["kernel", "predecessor", "quantity", "label", "kind", "before", "after", "ratio", "change",
               "changed", "better"]
    return pd.DataFrame(rows, columns=columns)


def versus(facts: pd.DataFrame, name: str, reference: str) -> pd.DataFrame:
    """A kernel's facts beside its reference's (cuBLAS of its tier, same shape): one row per
    quantity known on both sides: quantity, label, kernel, reference (both as text), ratio
    (kernel / reference for numbers), better (True when the kernel is ahead, None when neither way
    is better or they are level)."""
    rows = []
    for q in QUANTITIES:
        if q.column not in facts.columns or q.column == "bound":
            continue
        mine, ref = facts.at[name, q.column], facts.at[reference, q.column]
        if _missing(mine) or _missing(ref):
            continue
        if q.kind == "text":
            rows.append({"quantity": q.column, "label": q.label, "kernel": str(mine), "reference": str(ref),
                         "ratio": np.nan, "better": None})
            continue
        mine, ref = float(mine), float(ref)
        level = _change(q, ref, mine)
        rows.append({"quantity": q.column, "label": q.label, "kernel": _show(q, mine), "reference": _show(q, ref),
                     "ratio": mine / ref if ref else np.nan, "better": level["better"]})
    return pd.DataFrame(rows, columns=["quantity", "label", "kernel", "reference", "ratio", "better"])


def _change(q: Quantity, before, after) -> dict:
    ratio = np.nan
    if q.kind == "text":
        changed = before != after
        text = f"{before} -> {after}" if changed else f"{after} (same)"
        return {"ratio": ratio, "change": text, "changed": changed, "better": None}
    before, after = float(before), float(after)
    if q.kind == "ratio" and before:
        ratio = after / before
        changed = abs(ratio - 1.0) > SAME_RATIO
        text = f"{fmt_ratio(ratio)} ({_show(q, before)} -> {_show(q, after)})"
    elif q.kind == "ratio":  # from nothing: no factor to quote
        changed = bool(after)
        text = f"{_show(q, before)} -> {_show(q, after)}"
    elif q.kind == "points":
        changed = abs(after - before) > SAME_POINTS
        text = f"{fmt_pct(before)} -> {fmt_pct(after)}"
    elif q.kind == "way":
        changed = fmt_way(before) != fmt_way(after)
        text = f"{fmt_way(before)} -> {fmt_way(after)}"
    else:
        changed = abs(after - before) > SAME_RATIO * max(abs(before), abs(after), 1e-30)
        text = f"{fmt_num(before)} -> {fmt_num(after)}"
    better = None
    if changed and q.better:
        better = (after > before) == (q.better > 0)
    return {"ratio": ratio, "change": text if changed else f"{_show(q, after)} (same)", "changed": changed,
            "better": better}


def _show(q: Quantity, value: float) -> str:
    if q.kind == "way":
        return fmt_way(value)
    if q.unit == "byte":
        return fmt_bytes(value)
    if q.unit == "%":
        return fmt_pct(value)
    if q.unit == "GFLOP/s":
        return f"{fmt_num(value)} GFLOP/s"
    if q.unit == "ms":
        return f"{fmt_num(value)} ms"
    if q.unit == "wavefront":
        return fmt_count(value)
    return fmt_num(value)


def _missing(v) -> bool:
    return v is None or (not isinstance(v, str) and pd.isna(v))


# ncu estimates shown beside a measured change, at most, and from this estimated speedup on.
ESTIMATES_SHOWN = 3
ESTIMATE_MIN_PCT = 1.0


def estimates_beside_measured(below_rules: pd.DataFrame, below_ns: float, here_ns: float) -> dict | None:
    """What ncu estimated fixing the rung below's problems would win (its rules' estimated
    speedups, largest first), beside what this rung measured against it (the same shape's
    launches: below's time over this one's, minus one, in %). None without both."""
    if below_rules is None or below_rules.empty or not (below_ns > 0 and here_ns > 0):
        return None
    rules = below_rules[pd.to_numeric(below_rules["estimated_speedup_pct"], errors="coerce") >= ESTIMATE_MIN_PCT]
    rules = rules.sort_values("estimated_speedup_pct", ascending=False, kind="stable").head(ESTIMATES_SHOWN)
    if rules.empty:
        return None
    return {"measured_pct": 100.0 * (below_ns / here_ns - 1.0),
            "estimates": [(_rule_name(r), float(r["estimated_speedup_pct"])) for r in rules.to_dict("records")]}


def _rule_name(rule: dict) -> str:
    """A rule's title, else its identifier (some of ncu's rules carry no title)."""
    for key in ("title", "rule"):
        if isinstance(rule.get(key), str) and rule[key].strip():
            return rule[key].strip()
    return "a rule"
