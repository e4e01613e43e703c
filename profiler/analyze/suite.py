"""A suite's summary: per kernel (or dispatcher) and tier, the geometric mean and the minimum of
% of cuBLAS over the suite's shapes, and how many of them it passed.

Pure: a bench table and the suite's shapes in, one row per kernel out. A kernel that skipped or
failed a shape has a mean over fewer shapes than the suite: `passed` < `shapes` says so, and such
a row is never ranked as covering the suite (`covers` is False).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

import pandas as pd

from ..catalogue.manifest import REFERENCES
from ..tiers import PASS

COLUMNS = ["tier", "kernel", "shapes", "passed", "covers", "geomean_pct_cublas", "min_pct_cublas", "min_shape"]


def summarize(bench: pd.DataFrame, shapes: list[tuple[int, int, int]]) -> pd.DataFrame:
    """One row per (tier, kernel) benched at any suite shape; references (cuBLAS) left out."""
    wanted = {tuple(map(int, s)) for s in shapes}
    rows = []
    if bench.empty:
        return pd.DataFrame(rows, columns=COLUMNS)
    tiers = bench["tier"] if "tier" in bench else pd.Series("fp32", index=bench.index)
    table = bench.assign(tier=tiers.fillna("fp32"))
    in_suite = table[[(int(m), int(n), int(k)) in wanted for m, n, k in zip(table["M"], table["N"], table["K"])]]
    for (tier, kernel), group in in_suite.groupby(["tier", "kernel"], sort=False):
        if kernel in REFERENCES:
            continue
        ok = group[(group["status"] == PASS) & (group["pct_of_cublas"] > 0)] if "pct_of_cublas" in group else group.iloc[:0]
        pcts = [float(p) for p in ok["pct_of_cublas"]]
        worst = ok.loc[ok["pct_of_cublas"].idxmin()] if pcts else None
        rows.append({
            "tier": tier, "kernel": kernel, "shapes": len(wanted), "passed": len(pcts), "covers": len(pcts) == len(wanted),
            "geomean_pct_cublas": geomean(pcts),
            "min_pct_cublas": min(pcts) if pcts else math.nan,
            "min_shape": f"{int(worst['M'])}x{int(worst['N'])}x{int(worst['K'])}" if worst is not None else "",
        })
    return pd.DataFrame(rows, columns=COLUMNS)


def geomean(values) -> float:
    """The geometric mean of positive numbers (NaN for none): how % of cuBLAS is averaged over shapes."""
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else math.nan


@dataclass(frozen=True)
class SuiteRun:
    """A bench run over a named suite: its shapes in the suite's order and `summarize`'s table,
    best geometric mean first."""

    name: str
    shapes: tuple[tuple[int, int, int], ...]
    summary: pd.DataFrame


def suite_of_run(bench: pd.DataFrame | None, meta: Mapping | None) -> SuiteRun | None:
    """The suite a run's `run.json` names (`bench --suite`), summarized over its bench table;
    None for a run of no suite."""
    named = (meta or {}).get("suite")
    if bench is None or bench.empty or not isinstance(named, Mapping) or not named.get("shapes"):
        return None
    shapes = tuple(tuple(int(d) for d in s) for s in named["shapes"])
    table = summarize(bench, list(shapes)).sort_values("geomean_pct_cublas", ascending=False, kind="stable")
    return SuiteRun(str(named.get("name") or "suite"), shapes, table.reset_index(drop=True))
