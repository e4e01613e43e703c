"""Warp stall reasons per launch: the breakdown of cycles between issues, the top stalls (with what
each means and cures, from THE stall table `profiler.stall_table`), and PC-sample reasons per line.

ncu's WarpStateStats section reports, per reason, the cycles a warp spends stalled on it per
issued instruction (`stall_<reason>` columns of the `kernels` table); their sum, 'selected'
included, is the average number of cycles between two instructions of one warp. The source page
counts PC samples per reason and instruction (`samples_<reason>` of the `source` table).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..stall_table import BY_REASON, GROUPS, LAUNCH_REASONS, STALLS, Stall, explain
from .values import number as _value

__all__ = ["BY_REASON", "GROUPS", "STALLS", "Stall", "explain", "stall_group", "stall_breakdown", "top_stalls",
           "sampled_reasons"]


def stall_group(reason: str) -> str:
    """The group of a reason (`stall_table.GROUPS`)."""
    return explain(reason).group


def stall_breakdown(kernels: pd.DataFrame) -> pd.DataFrame:
    """One row per launch and stall reason: cycles per issued instruction, and its share of all
    cycles between two issues of one warp ('selected' counted in the total, as ncu does).

    Columns: report, launch, reason, cycles_per_inst, share_pct, benign.
    """
    rows = []
    for record in kernels.to_dict("records"):
        values = {r: _value(record.get(f"stall_{r}")) for r in LAUNCH_REASONS}
        total = np.nansum(list(values.values()))
        for reason in LAUNCH_REASONS:
            if reason == "selected":  # the issue cycle: in the total, not a stall
                continue
            v = values[reason]
            if np.isnan(v):
                continue
            rows.append({
                "report": record.get("report"), "launch": record.get("launch"), "reason": reason,
                "cycles_per_inst": v, "share_pct": 100.0 * v / total if total > 0 else np.nan,
                "benign": not BY_REASON[reason].cost,
            })
    return pd.DataFrame(rows, columns=["report", "launch", "reason", "cycles_per_inst", "share_pct", "benign"])


def top_stalls(kernels: pd.DataFrame, n: int = 5, include_benign: bool = True) -> pd.DataFrame:
    """The `n` stall reasons costing each launch the most cycles per issued instruction, with
    label, meaning and cure. Reasons costing nothing are left out.

    Columns: report, launch, rank, reason, label, cycles_per_inst, share_pct, benign, meaning, cure.
    """
    stalls = stall_breakdown(kernels)
    if not include_benign:
        stalls = stalls[~stalls["benign"]]
    stalls = stalls[stalls["cycles_per_inst"] > 0]
    stalls = stalls.sort_values(["report", "launch", "cycles_per_inst"], ascending=[True, True, False], kind="stable")
    top = stalls.groupby(["report", "launch"], sort=False, dropna=False).head(n).copy()
    top.insert(2, "rank", top.groupby(["report", "launch"], sort=False, dropna=False).cumcount() + 1)
    top.insert(4, "label", [BY_REASON[r].label for r in top["reason"]])
    top["meaning"] = [BY_REASON[r].meaning for r in top["reason"]]
    top["cure"] = [BY_REASON[r].cure for r in top["reason"]]
    return top.reset_index(drop=True)


def sampled_reasons(source: pd.DataFrame, n: int = 3) -> list[list[tuple[str, float]]]:
    """For each row of a `source` (or `sass`) table, its `n` largest PC-sample reasons as
    (reason, samples), 'selected' included (a hot FFMA line is mostly issuing)."""
    columns = [c for c in source.columns if c.startswith("samples_")]
    out = []
    for record in source[columns].to_dict("records"):
        pairs = [(c[len("samples_"):], _value(v)) for c, v in record.items()]
        pairs = sorted((p for p in pairs if p[1] > 0), key=lambda p: -p[1])
        out.append(pairs[:n])
    return out

