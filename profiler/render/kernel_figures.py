"""Small per-kernel figures for the report: where a warp's cycles go, and how many times each byte
was fetched at each memory level. Each function returns a matplotlib Figure (no pyplot state);
the caller saves it. Bars carry a `gid` (`bar:<name>`) for tests."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..analyze.stalls import GROUPS, explain, stall_group
from ..numbers import fmt_bytes, fmt_num, fmt_pct, fmt_times
from .escape import mpl_text

FONT = 9
WIDTH_IN = 6.4

# One colour per group of stall reasons (stall_table.GROUPS; Okabe-Ito, colour-blind safe).
GROUP_COLORS = {
    "memory": "#D55E00",
    "shared / MIO": "#E69F00",
    "sync": "#CC79A7",
    "pipes / issue": "#0072B2",
    "ready (not a cost)": "#AAAAAA",
}
LEVEL_COLOR = "#0072B2"


def stall_figure(stalls: pd.DataFrame, title: str = "Warp stalls") -> Figure:
    """Horizontal bars: stall cycles per issued instruction of each reason in `stalls` (rows of
    `stalls.top_stalls`), largest on top, coloured by what the reason waits for, with its share
    of all cycles between issues at the bar's end."""
    values = pd.to_numeric(stalls["cycles_per_inst"], errors="coerce")
    rows = stalls[np.isfinite(values) & (values >= 0)].sort_values("cycles_per_inst", ascending=True)  # a corrupt table's inf: no bar
    height = 0.9 + 0.32 * max(len(rows), 1)
    fig = Figure(figsize=(WIDTH_IN, height), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    top = float(rows["cycles_per_inst"].max()) if len(rows) else 0.0
    top = top if top > 0 else 1.0
    for y, r in enumerate(rows.to_dict("records")):
        group = stall_group(r["reason"])
        ax.barh(y, r["cycles_per_inst"], color=GROUP_COLORS[group], height=0.62, gid=f"bar:{r['reason']}")
        ax.text(r["cycles_per_inst"] + top * 0.01, y, f" {fmt_num(r['cycles_per_inst'])} ({fmt_pct(r['share_pct'])})",
                va="center", ha="left", fontsize=FONT - 1, color="#333333")
    ax.set_yticks(range(len(rows)), [explain(r).label for r in rows["reason"]], fontsize=FONT)
    ax.set_xlim(0, top * 1.3)
    ax.set_xlabel("stall cycles per issued instruction (share of all cycles between issues)", fontsize=FONT - 0.5)
    ax.tick_params(axis="x", labelsize=FONT - 1)
    ax.set_title(mpl_text(title), fontsize=FONT + 1, loc="left")
    used = [g for g in GROUPS if any(stall_group(r) == g for r in rows["reason"])]
    if used:
        handles = [ax.barh([0], [0], color=GROUP_COLORS[g], label=g) for g in used]
        ax.legend(handles=handles, labels=used, fontsize=FONT - 1.5, frameon=False, loc="lower right")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    fig.tight_layout()
    return fig


def traffic_figure(traffic: pd.DataFrame, title: str = "Bytes moved against the GEMM minimum") -> Figure:
    """Horizontal bars on a log axis: how many times each byte the GEMM needs was fetched at DRAM,
    L2 and L1 (rows of `global_memory.traffic`), with the minimum (1x) marked."""
    times = pd.to_numeric(traffic["times"], errors="coerce")
    traffic = traffic[np.isfinite(times)]  # a level a corrupt table gives no finite ratio for: no bar
    levels = [lvl for lvl in ("L1", "L2", "DRAM") if lvl in set(traffic["level"])]
    rows = traffic.set_index("level").loc[levels]
    fig = Figure(figsize=(WIDTH_IN, 0.9 + 0.36 * max(len(rows), 1)), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    values = [max(v, 1e-3) for v in rows["times"]]
    for y, (level, v) in enumerate(zip(levels, values)):
        ax.barh(y, v, color=LEVEL_COLOR, height=0.6, gid=f"bar:{level}", left=0)
        ax.text(v * 1.1, y, f"{fmt_times(v)}  ({fmt_bytes(rows.loc[level, 'bytes'])})", va="center",
                fontsize=FONT - 1, color="#333333", bbox=dict(facecolor="white", edgecolor="none", pad=1.0))
    ax.set_xscale("log")
    low = min([0.5] + [v / 2 for v in values])
    high = max([10.0] + [v * 12 for v in values])
    ax.set_xlim(low, high)
    ax.axvline(1.0, color="#333333", lw=1, ls="--")
    ax.text(1.0, len(levels) - 0.45, " minimum: A, B, C read once, C written once", fontsize=FONT - 1.5,
            color="#333333", va="bottom")
    ax.set_yticks(range(len(levels)), levels, fontsize=FONT)
    ax.set_ylim(-0.6, len(levels) - 0.1)
    ax.set_xlabel("times each byte was fetched (bytes moved / minimum)", fontsize=FONT - 0.5)
    ax.tick_params(axis="x", labelsize=FONT - 1)
    ax.set_title(mpl_text(title), fontsize=FONT + 1, loc="left")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    fig.tight_layout()
    return fig



# The timeline's lines: what each shows, its colour and style (Okabe-Ito).
TIMELINE_LINES = (("math", "#0072B2", "-", 1.6), ("dram", "#D55E00", "-", 1.0), ("l2", "#E69F00", "-", 1.0),
                  ("sm_active", "#555555", "--", 1.0))


def timeline_figure(tl, title: str = "Over the launch") -> Figure:
    """Lines over the launch's duration (µs): its math pipe, DRAM and L2 throughput, in % of their
    peaks, and the share of the SMs' time with a block, from ncu's PM sampling (`analyze.timeline`)."""
    fig = Figure(figsize=(WIDTH_IN, 2.9), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    labels = {"math": tl.math_name, "dram": "DRAM", "l2": "L2", "sm_active": "SMs with a block"}
    for key, color, style, width in TIMELINE_LINES:
        values = getattr(tl, key)
        if np.isnan(values).all():
            continue
        ax.plot(tl.t_us, values, color=color, ls=style, lw=width, label=labels[key], gid=f"line:{key}")
    ax.set_ylim(0, 105)
    ax.set_xlim(0, float(tl.t_us[-1]) if len(tl.t_us) else 1.0)
    ax.set_xlabel("time since the launch started (µs)", fontsize=FONT - 0.5)
    ax.set_ylabel("% of peak", fontsize=FONT - 0.5)
    ax.tick_params(labelsize=FONT - 1)
    ax.legend(fontsize=FONT - 1.5, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=4)
    ax.set_title(mpl_text(title), fontsize=FONT + 1, loc="left")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    fig.tight_layout()
    return fig
