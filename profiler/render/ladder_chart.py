"""The ladder chart of one precision tier (`ladder_figure`): GFLOP/s against size and % of
cuBLAS, from a bench table; returns a matplotlib Figure. Artists carry a `gid` (`line:<kernel>`,
`label:<kernel>`) for tests and post-editing.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, NullLocator

from ..analyze.roofline import ladder_labels
from ..catalogue.manifest import REFERENCES, TIERS
from ..numbers import si_rate
from ..tiers import TIERS as TIER_RECORDS
from ..tiers import TIMED_STATUSES
from .chart_style import CEILING_COLOR, CUBLAS_COLOR, FONT, FOOTNOTE_LINE_IN, add_footnote, footnote_lines, kernel_colors, kernel_markers, reference_style
from .escape import mpl_label, mpl_text
from .label_layout import text_width_pt, thin_labels


def _size_axis(frame: pd.DataFrame) -> tuple[pd.Series, str, dict[float, str]]:
    """x value per row, axis label and tick labels: M for square shapes, else (M·N·K)^(1/3)."""
    square = bool(((frame["M"] == frame["N"]) & (frame["N"] == frame["K"])).all())
    if square:
        x = frame["M"].astype(float)
        ticks = {float(v): f"{int(v)}" for v in sorted(x.unique())}
        return x, "matrix size (M = N = K)", ticks
    x = (frame["M"].astype(float) * frame["N"] * frame["K"]) ** (1 / 3)
    ticks = {}
    for xv, m, n, k in sorted(zip(x, frame["M"], frame["N"], frame["K"])):
        ticks[float(xv)] = f"{m}" if m == n == k else f"{m}x{n}x{k}"
    return x, "size: (M·N·K)^(1/3), shape on the tick", ticks


LADDER_TITLES = {name: t.title for name, t in TIER_RECORDS.items()}


def bench_tiers(bench: pd.DataFrame) -> list[str]:
    """The precision tiers a bench table holds, FP32 first (tables from before tiers: all FP32)."""
    if "tier" not in bench:
        return ["fp32"]
    return [t for t in TIERS if t in set(bench["tier"].fillna("fp32"))]


def ladder_figure(bench: pd.DataFrame, title: str | None = None, tier: str = "fp32") -> Figure:
    """The ladder of one precision tier from a `bench` table: GFLOP/s against matrix size for
    every kernel of the tier and its cuBLAS reference (left), and each kernel's share of that
    reference at the same size (right). Kernel order, labels and colours come from the manifest;
    cuBLAS is the thick black line. Only rows that passed verification are drawn; the others are
    listed under the chart."""
    bench = _of_tier(bench, tier)
    frame, left_out = _drawn_rows(bench)
    frame["x"], xlabel, ticks = _size_axis(frame)
    labels = {k: (order, mpl_label(text)) for k, (order, text) in ladder_labels(frame["kernel"]).items()}
    names = sorted(labels, key=lambda n: (n not in REFERENCES, labels[n][0]))  # cuBLAS first in the legend
    notes = _notes(bench, frame, left_out)
    width = 13.0
    footnote_in = FOOTNOTE_LINE_IN * len(footnote_lines(notes, width))
    rotate = any("x" in t for t in ticks.values())
    tick_room = _rotated_tick_room(ticks.values()) if rotate else 0.0
    height = 5.2 + footnote_in + tick_room
    # room on the right for the legend: its longest label (about 0.66 em per character) plus the marker
    legend_in = (max(text_width_pt(labels[n][1], FONT) for n in names) + 5 * FONT) / 72 + 0.3
    right = min(0.85, 1 - legend_in / width)
    fig = Figure(figsize=(width, height), dpi=100)
    fig.subplots_adjust(left=0.08, right=right, top=1 - 0.55 / height,
                        bottom=(0.6 + footnote_in + tick_room) / height, wspace=0.22)
    ax_rate, ax_share = fig.subplots(1, 2)
    per = _medians(frame)
    handles = _draw_kernels(ax_rate, ax_share, per, names, labels, frame["kernel"])
    y_top = _draw_yardsticks(ax_rate, ax_share, frame, per, names, labels, tier)
    for ax in (ax_rate, ax_share):
        _size_axis_ticks(fig, ax, ticks, rotate, xlabel)
    _value_axes(ax_rate, ax_share, per, y_top)
    fig.legend(handles=handles, title="kernel", loc="upper left", bbox_to_anchor=(right + 0.015, 1 - 0.55 / height),
               frameon=False, fontsize=FONT, title_fontsize=FONT + 0.5, alignment="left")
    fig.suptitle(mpl_text(title or LADDER_TITLES.get(tier, f"The {tier} ladder against cuBLAS")), x=0.08, ha="left", fontsize=FONT + 3,
                 fontweight="bold", y=1 - 0.12 / height)
    add_footnote(fig, notes)
    return fig


def _of_tier(bench: pd.DataFrame, tier: str) -> pd.DataFrame:
    """The bench rows of `tier` (tables from before tiers: all FP32); none is a one-line error."""
    from ..errors import GemmprofError

    if bench is None or len(bench) == 0:
        raise GemmprofError("the bench table is empty: nothing to draw", "run gemmprof bench first")
    bench = bench[bench["tier"].fillna("fp32") == tier] if "tier" in bench else bench
    if bench.empty:
        raise GemmprofError(f"the bench table has no {tier} kernels: nothing to draw")
    return bench


def _drawn_rows(bench: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The rows the chart draws (timed, and square where the table mixes square and other
    shapes: a size axis fits square ones), and the other shapes, listed under the chart."""
    from ..errors import GemmprofError

    frame = bench.copy()
    timed = frame[frame["status"].isin(TIMED_STATUSES) & frame["gflops"].notna()] if "status" in frame else frame
    if timed.empty:
        raise GemmprofError("no kernel passed verification in this bench table: nothing to draw")
    frame = timed.copy()
    square = (frame["M"] == frame["N"]) & (frame["N"] == frame["K"])
    left_out = []
    if square.any() and not square.all():
        left_out = sorted({f"{r.M}x{r.N}x{r.K}" for r in frame[~square].itertuples()})
        frame = frame[square].copy()
    return frame, left_out


def _notes(bench: pd.DataFrame, frame: pd.DataFrame, left_out: list[str]) -> list[str]:
    """What the footnote says: shapes left off the size axis, context rows, rows not timed, rows
    timed while the GPU throttled."""
    notes = [f"not square, so not on the size axis: {', '.join(left_out)}"] if left_out else []
    if "status" in bench:
        bad = bench[~bench["status"].isin(TIMED_STATUSES)]
        context = sorted(set(bench.loc[bench["status"] == "CONTEXT", "kernel"]))
        if context:
            notes.append(f"context, dashed: {', '.join(context)}, timed beside the tier but outside its error bound "
                         f"(never a yardstick); its error is in the bench table")
        if len(bad):
            notes.append("not timed: " + ", ".join(f"{r.kernel} {r.M}x{r.N}x{r.K} ({r.status})"
                                                   for r in bad.itertuples()))
    if "throttled" in frame and frame["throttled"].fillna(False).astype(bool).any():
        hot = frame[frame["throttled"].fillna(False).astype(bool).to_numpy()]
        notes.append("throttled while timed (hollow markers): " + ", ".join(
            f"{r.kernel} {r.M}x{r.N}x{r.K}" for r in hot.itertuples()))
    return notes


def _medians(frame: pd.DataFrame) -> pd.DataFrame:
    """Per kernel and size: the median GFLOP/s and share of cuBLAS, and whether any row throttled."""
    frame["pct_of_cublas"] = frame.get("pct_of_cublas", np.nan)
    frame["throttled"] = frame["throttled"].fillna(False).astype(bool) if "throttled" in frame else False
    return frame.groupby(["kernel", "x"], sort=False).agg(
        gflops=("gflops", "median"), pct=("pct_of_cublas", "median"), throttled=("throttled", "any")).reset_index()


def _draw_kernels(ax_rate, ax_share, per: pd.DataFrame, names: list[str], labels: dict, kernels: pd.Series) -> list:
    """A line per kernel on both panels (cuBLAS on the rate panel only: it is the share's 100%),
    hollow rings where it throttled. Returns the legend's handles."""
    colors, markers = kernel_colors(kernels), kernel_markers(kernels)
    handles = []
    for name in names:
        rows = per[per["kernel"] == name].sort_values("x")
        if rows.empty:
            continue
        is_cublas = name in REFERENCES
        style = {"color": colors[name], "lw": 2.6 if is_cublas else 1.6, "marker": markers[name],
                 "ms": 6 if is_cublas else 5, "ls": reference_style(name)[2] if is_cublas else "-",
                 "zorder": 4 if is_cublas else 3}
        ax_rate.plot(rows["x"], rows["gflops"], gid=f"line:{name}", **style)
        if not is_cublas:
            ax_share.plot(rows["x"], rows["pct"], gid=f"share:{name}", **style)
        hot = rows[rows["throttled"].astype(bool)]
        for ax, column in ((ax_rate, "gflops"), (ax_share, "pct")):
            if len(hot) and not (is_cublas and ax is ax_share):
                ax.plot(hot["x"], hot[column], ls="none", marker="o", ms=9, mfc="none", mec=colors[name], zorder=5)
        handles.append(Line2D([], [], label=labels[name][1], **style))
    return handles


def _draw_yardsticks(ax_rate, ax_share, frame: pd.DataFrame, per: pd.DataFrame, names: list[str], labels: dict,
                     tier: str) -> float:
    """cuBLAS as 100% on the share panel, the tier's peak (FP32 FMA, or the FP16 tensor cores;
    older tables carry only the FP32 one) on the rate panel. Returns the rate panel's top."""
    reference = next((n for n in names if n in REFERENCES), None)
    ref_color, _marker, ref_ls = reference_style(reference) if reference else (CUBLAS_COLOR, "o", "-")
    ax_share.axhline(100, color=ref_color, lw=2.6, ls=ref_ls, zorder=4, gid="line:cublas-100")
    ax_share.annotate(f"{labels[reference][1] if reference else 'cuBLAS'} = 100%", xy=(0.01, 100),
                      xycoords=("axes fraction", "data"), xytext=(0, 4), textcoords="offset points", fontsize=FONT,
                      color=ref_color, fontweight="bold")
    peak_column = "peak_gflops" if "peak_gflops" in frame and frame["peak_gflops"].notna().any() else "peak_fp32_gflops"
    if not (peak_column in frame and frame[peak_column].notna().any()):
        return float(per["gflops"].max()) * 1.6
    peak = float(frame[peak_column].median())
    ax_rate.axhline(peak, color=CEILING_COLOR, lw=1.1, ls=(0, (5, 3)), zorder=2, gid="line:fp32-peak")
    what = TIER_RECORDS[tier].peak_label if tier in TIER_RECORDS else "FP32 peak"
    ax_rate.annotate(f"{what} {si_rate(peak * 1e9, 'FLOP/s')} (clock seen while timing)",
                     xy=(0.01, peak), xycoords=("axes fraction", "data"), xytext=(0, 3),
                     textcoords="offset points", fontsize=FONT - 0.5, color=CEILING_COLOR)
    return peak * 1.6


TICK_ROTATION = 30  # degrees: shapes (MxNxK) are too long to stand side by side
TICK_FONT = 10  # matplotlib's default tick label size, which these axes keep


def _rotated_tick_room(labels) -> float:
    """How much taller (inches) the longest shape label stands rotated than a label lying flat:
    the room the figure adds under its axes, so the axis title never runs into the notes."""
    longest = max(text_width_pt(label, TICK_FONT) for label in labels)
    angle = math.radians(TICK_ROTATION)
    return (longest * math.sin(angle) + TICK_FONT * (math.cos(angle) - 1)) / 72 + 0.05


def _size_axis_ticks(fig: Figure, ax, ticks: dict[float, str], rotate: bool, xlabel: str) -> None:
    """A log2 size axis with a tick per size. Sizes close together (1000, 1023, 1024) would print
    on top of each other: a tick for each, a label only where it has room."""
    ax.set_xscale("log", base=2)
    span = (min(ticks), max(ticks))
    ax.set_xlim(span[0] / 1.15, span[1] * 1.15)
    xs = sorted(ticks)
    px = ax.transData.transform([(x, 1.0) for x in xs])[:, 0]
    char_px = 0.62 * FONT / 72 * fig.dpi
    widths = [len(ticks[x]) * char_px * (math.cos(math.radians(TICK_ROTATION)) if rotate else 1.0) for x in xs]
    shown = {x: ticks[x] if keep else "" for x, keep in zip(xs, thin_labels(px, widths, char_px))}
    ax.xaxis.set_major_locator(FixedLocator(xs))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p, shown=shown: shown.get(float(v), "")))
    ax.xaxis.set_minor_locator(NullLocator())
    if rotate:
        ax.tick_params(axis="x", labelrotation=TICK_ROTATION)
        for label in ax.get_xticklabels():
            label.set_ha("right")
            label.set_rotation_mode("anchor")
    ax.set_xlabel(xlabel)
    ax.grid(True, color="#e4e4e4", lw=0.7)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def _value_axes(ax_rate, ax_share, per: pd.DataFrame, y_top: float) -> None:
    """GFLOP/s on a log scale up to `y_top`; the share of cuBLAS from 0 to past 100% and past the
    best kernel."""
    ax_rate.set_yscale("log")
    ax_rate.set_ylim(float(per["gflops"].min()) / 1.6, y_top)
    ax_rate.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:,.0f}"))
    ax_rate.yaxis.set_minor_formatter(NullFormatter())
    ax_rate.set_ylabel("GFLOP/s, timed by gemmprof bench (log scale)")
    ax_rate.set_title("throughput (bench: median of timed launches, not ncu)", loc="left", fontsize=FONT + 1)
    ax_share.set_ylim(0, max(110.0, float(per.loc[~per["kernel"].isin(list(REFERENCES)), "pct"].max()) * 1.1))
    ax_share.set_ylabel("% of cuBLAS at the same size (bench)")
    ax_share.set_title("share of cuBLAS", loc="left", fontsize=FONT + 1)
