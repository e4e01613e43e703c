"""Launches of the same kernel, folded into one row: how a report of many launches reads.

A report written by another program (a training step, a benchmark loop) holds hundreds of launches
of a few kernels; the question there is which kernel the time goes to and what holds it back, not
launch 517. Pure functions over the `kernels` table.
"""

from __future__ import annotations

from typing import Sequence

import pandas as pd

from ..catalogue.kernel_spec import KernelSpec
from ..catalogue.manifest import REFERENCES
from .roofline import kernel_names

# Launches are the same kernel when they run the same function on the same launch shape and GEMM shape.
GROUP_KEYS = ["report", "function", "kernel_key", "M", "N", "K", "grid", "block"]
# Text columns: the most common value of the group (ties: the one seen first).
MODE_COLUMNS = ["kernel", "occupancy_limiter", "top_stall"]


def group_launches(kernels: pd.DataFrame) -> pd.DataFrame:
    """One row per kernel (GROUP_KEYS): `launches`, `total_duration_ns`, `share_pct` (of the
    report's kernel time), `first_launch`, and the median of every numeric column (so
    `duration_ns` is the median launch). Sorted by total time, the largest first, per report."""
    if kernels.empty:
        return kernels.assign(launches=pd.Series(dtype="int64"), total_duration_ns=pd.Series(dtype="float64"),
                              share_pct=pd.Series(dtype="float64"), first_launch=pd.Series(dtype="int64"))
    keys = [k for k in GROUP_KEYS if k in kernels.columns]
    numeric = [c for c in kernels.select_dtypes("number").columns if c not in keys and c != "launch"]
    groups = kernels.groupby(keys, sort=False, dropna=False)
    folded = groups[numeric].median()
    folded["launches"] = groups.size()
    folded["total_duration_ns"] = groups["duration_ns"].sum(min_count=1)
    folded["first_launch"] = groups["launch"].min()
    for column in (c for c in MODE_COLUMNS if c in kernels.columns):
        folded[column] = groups[column].agg(_most_common)
    folded = folded.reset_index()
    report_total = folded.groupby("report", sort=False)["total_duration_ns"].transform("sum")
    folded["share_pct"] = 100.0 * folded["total_duration_ns"] / report_total
    order = folded["report"].map({r: i for i, r in enumerate(kernels["report"].unique())})
    folded = folded.assign(_order=order).sort_values(["_order", "total_duration_ns"], ascending=[True, False], kind="stable")
    return folded.drop(columns="_order").reset_index(drop=True)


def in_ladder_order(kernels: pd.DataFrame, specs: Sequence[KernelSpec]) -> pd.DataFrame:
    """The rows of a kernels table (per launch or folded) in ladder order: the manifest's kernels
    by rung, then kernels no manifest knows in the order they appear, then the cuBLAS references
    in their own order. Rows of one kernel keep their order (launches, or time for folded rows)."""
    rung = {s.name: s.index for s in specs}
    references = list(REFERENCES)
    seen: dict[str, int] = {}
    keys = []
    for name in kernel_names(kernels):
        if name in rung:
            keys.append((0, rung[name]))
        elif name in REFERENCES:
            keys.append((2, references.index(name)))
        else:
            keys.append((1, seen.setdefault(name, len(seen))))
    order = sorted(range(len(kernels)), key=lambda i: keys[i])
    return kernels.iloc[order].reset_index(drop=True)


def _most_common(values: pd.Series):
    counts = values.dropna().value_counts(sort=False)
    return counts.idxmax() if len(counts) else None
