"""Where a launch's time goes in its code: the share of PC samples before, in and after the main
loop, and the line that holds most of a region's samples.

The main loop is the span of the math instructions (MMA, else FFMA or DFMA) executed at least
`HOT_SHARE` as often as the busiest of them (the loop body runs once per k step, prologue and
epilogue once per tile; an epilogue may loop too, so the span is set by the math); PC samples are
taken at a fixed interval, so a region's share of them is its share of the warps' time. A kernel
whose epilogue holds a large share (the C load and store of a short-K GEMM, a slow store pattern)
is told so, with the line, instead of being told to speed up a loop that is not the problem.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .memory import OPCODE_CLASSES, opcodes
from .techniques import HOT_SHARE

REGIONS = ("prologue", "loop", "epilogue")
# Instruction classes whose share of the samples a verdict may quote (`<class>_samples_pct`).
SAMPLED_CLASSES = ("atomic", "mbarrier", "barrier", "global_store", "local_load", "local_store", "fp64")
_COLUMNS = ["report", "launch", *[f"{r}_pct" for r in REGIONS], "epilogue_line", "epilogue_line_pct",
            "epilogue_code", "epilogue_top_reason", *[f"{c}_samples_pct" for c in SAMPLED_CLASSES]]


def time_regions(sass: pd.DataFrame) -> pd.DataFrame:
    """Per launch: prologue_pct, loop_pct, epilogue_pct (shares of all PC samples); the epilogue's
    hottest source line with its share of all samples, its SASS and its top stall reason; and the
    share of samples at atomics, mbarrier waits, barriers, global stores, local memory and FP64 math."""
    if sass is None or sass.empty or "samples" not in sass.columns:
        return pd.DataFrame(columns=_COLUMNS)
    rows = []
    for (report, launch), group in sass.groupby(["report", "launch"], sort=False, dropna=False):
        rows.append({"report": report, "launch": launch, **_split(group)})
    return pd.DataFrame(rows, columns=_COLUMNS)


def _math_mask(classes: np.ndarray, executed: np.ndarray) -> np.ndarray:
    """The launch's math instructions, as `memory.instruction_mix` picks its math op: MMAs when it ran
    any (the FFMAs are then the epilogue's), FP64 when those outnumber the FFMAs, else the FFMAs."""
    ran = executed > 0
    for cls in ("mma",):
        if (mask := (classes == cls) & ran).any():
            return mask
    fp64, ffma = (classes == "fp64") & ran, (classes == "ffma") & ran
    return fp64 if executed[fp64].sum() > executed[ffma].sum() else ffma


def _split(group: pd.DataFrame) -> dict:
    g = group.sort_values("offset", kind="stable")
    executed = g["inst_executed"].fillna(0).to_numpy(dtype="float64")
    samples = g["samples"].fillna(0).to_numpy(dtype="float64")
    total = samples.sum()
    empty = {f"{r}_pct": np.nan for r in REGIONS} | {f"{c}_samples_pct": np.nan for c in SAMPLED_CLASSES} | {"epilogue_line": None, "epilogue_line_pct": np.nan,
                                                      "epilogue_code": None, "epilogue_top_reason": None}
    if total <= 0 or executed.max() <= 0:
        return empty
    classes = np.array([OPCODE_CLASSES.get(o, "other") for o in opcodes(g)])
    math = _math_mask(classes, executed)
    basis = executed[math] if math.any() else executed
    threshold = HOT_SHARE * basis.max()
    hot = np.flatnonzero((executed >= threshold) & (math if math.any() else True))
    first, last = hot.min(), hot.max()
    # the loop body around its math: the waits before the first MMA, the arrives and branch after the last
    while first > 0 and executed[first - 1] >= threshold:
        first -= 1
    while last < len(executed) - 1 and executed[last + 1] >= threshold:
        last += 1
    region = np.where(np.arange(len(g)) < first, 0, np.where(np.arange(len(g)) > last, 2, 1))
    out = {f"{name}_pct": 100.0 * samples[region == i].sum() / total for i, name in enumerate(REGIONS)}
    out |= {f"{c}_samples_pct": 100.0 * samples[classes == c].sum() / total for c in SAMPLED_CLASSES}
    tail = g[region == 2]
    tail = tail[tail["samples"].fillna(0) > 0]
    if tail.empty:
        return empty | out
    if "line" in tail.columns and tail["line"].notna().any():
        by_line = tail.groupby("line")["samples"].sum()
        line = by_line.idxmax()
        mine = tail[tail["line"] == line]
        out |= {"epilogue_line": int(line), "epilogue_line_pct": 100.0 * by_line.max() / total}
    else:
        mine = tail.loc[[tail["samples"].idxmax()]]
        out |= {"epilogue_line": None, "epilogue_line_pct": 100.0 * mine["samples"].sum() / total}
    top = mine.loc[mine["samples"].idxmax()]
    out["epilogue_code"] = str(top["sass"])
    reasons = {c[len("samples_"):]: mine[c].fillna(0).sum() for c in mine.columns
               if c.startswith("samples_") and c not in ("samples_selected", "samples_not_selected")}
    out["epilogue_top_reason"] = max(reasons, key=reasons.get) if reasons and max(reasons.values()) > 0 else None
    return out
