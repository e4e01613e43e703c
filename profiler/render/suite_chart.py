"""The suite chart: each kernel's % of cuBLAS at each shape of a suite, as a heatmap (seaborn).

A suite mixes squares, projections, tall-skinny and K-large shapes; a line over "matrix size"
(the ladder chart) has no axis for them, and a table of 37 columns reads as noise. The heatmap
puts kernels down and shapes across in the suite's order, white at cuBLAS's speed, blue above it,
red below, each cell labelled with its number where there is room. A cell with no number is a
shape where the kernel did not pass verification or was not run.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..catalogue.manifest import REFERENCES
from ..tiers import PASS
from .chart_style import FONT, add_footnote
from .escape import mpl_text

# Colour scale of % of cuBLAS: white at parity, saturated at half and one and a half times it.
PARITY, LOW, HIGH = 100.0, 50.0, 150.0
# Cells are labelled with their number up to this many (beyond, the colour alone reads better).
MAX_LABELLED_CELLS = 800
# Up to this many kernels the shapes run down the chart (one kernel over 64 shapes is a strip too
# long to read across); more kernels run down and the shapes across.
TRANSPOSE_KERNELS = 3


def suite_frame(bench: pd.DataFrame, shapes, tier: str = "fp32") -> pd.DataFrame:
    """kernel x shape ('MxNxK', in the suite's order) -> % of cuBLAS where the kernel passed,
    NaN elsewhere; kernels of `tier` only, best geometric mean first (pure)."""
    labels = ["x".join(map(str, s)) for s in shapes]
    rows = bench if "tier" not in bench else bench[bench["tier"].fillna("fp32") == tier]
    rows = rows[~rows["kernel"].isin(REFERENCES)]
    if "pct_of_cublas" not in rows:
        return pd.DataFrame(index=pd.Index([], name="kernel"), columns=labels, dtype=float)
    passed = rows[(rows["status"] == PASS) & (rows["pct_of_cublas"] > 0)]
    frame = pd.DataFrame({
        "kernel": passed["kernel"].astype(str),
        "shape": [f"{int(m)}x{int(n)}x{int(k)}" for m, n, k in zip(passed["M"], passed["N"], passed["K"])],
        "pct": passed["pct_of_cublas"].astype(float),
    })
    table = frame.pivot_table(index="kernel", columns="shape", values="pct", aggfunc="median")
    table = table.reindex(index=list(dict.fromkeys(rows["kernel"].astype(str))), columns=labels)
    geomean = np.exp(np.log(table).mean(axis=1, skipna=True))
    return table.loc[geomean.sort_values(ascending=False, kind="stable").index]


def suite_figure(bench: pd.DataFrame, shapes, title: str, tier: str = "fp32") -> Figure:
    """The heatmap of `suite_frame` as a matplotlib Figure (not saved)."""
    import seaborn as sns

    from ..errors import GemmprofError

    table = suite_frame(bench, shapes, tier)
    if table.empty or table.isna().all().all():
        raise GemmprofError(f"no {tier} kernel passed at a shape of the suite: nothing to chart")
    across = len(table.index) > TRANSPOSE_KERNELS  # few kernels: shapes down, a column per kernel
    shown = table if across else table.T
    rows, columns = shown.shape
    if across:
        fig = Figure(figsize=(max(6.0, 0.34 * columns + 2.8), max(2.4, 0.32 * rows + 2.2)))
    else:
        fig = Figure(figsize=(max(4.5, 1.1 * columns + 3.2), max(2.4, 0.24 * rows + 1.6)))
    ax = fig.add_subplot()
    ax.set_facecolor("#e6e6e6")  # no number: not passed, or not run
    labelled = rows * columns <= MAX_LABELLED_CELLS
    sns.heatmap(shown, ax=ax, cmap="RdBu", center=PARITY, vmin=LOW, vmax=HIGH, annot=labelled, fmt=".0f",
                annot_kws={"fontsize": FONT - 3}, linewidths=0.5, linecolor="white",
                cbar_kws={"label": "% of cuBLAS (same shape, same run)", "shrink": 0.8})
    shape_label = "shape (MxNxK), in the suite's order"
    ax.set_xlabel(shape_label if across else "", fontsize=FONT)
    ax.set_ylabel("" if across else shape_label, fontsize=FONT)
    ax.set_yticklabels([mpl_text(t.get_text()) for t in ax.get_yticklabels()], rotation=0,
                       fontsize=FONT - 1 if across else FONT - 2)
    ax.set_xticklabels([mpl_text(t.get_text()) for t in ax.get_xticklabels()], rotation=90 if across else 0,
                       fontsize=FONT - 2 if across else FONT - 1)
    ax.set_title(mpl_text(title), fontsize=FONT + 1, loc="left")
    missing = int(table.isna().sum().sum())
    notes = [f"{missing} grey cells: the kernel did not pass verification there, or was not run."] if missing else []
    fig.tight_layout()
    add_footnote(fig, notes)
    return fig
