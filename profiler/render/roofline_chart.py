"""The hierarchical roofline chart (`roofline_figure`): returns a matplotlib Figure; the caller
decides where it goes (`fig.savefig`, an <img> in the report, a test's assertions).

Artists carry a `gid` so that tests (and anyone post-editing a figure) can find them:
`point:<kernel>:<level>`, `ceiling:<name>`, `ceiling-label:<name>`, `label:<kernel>`,
`leader:<kernel>`, `subtitle`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from ..analyze.roofline import LEVELS, Roofline, roofline
from ..catalogue.manifest import REFERENCES
from ..numbers import si_rate, si_tick
from .chart_style import CEILING_COLOR, FONT, FOOTNOTE_LINE_IN, LEVEL_MARKERS, add_footnote, footnote_lines, kernel_colors
from .escape import mpl_label, mpl_text
from .label_layout import from_log_fraction, log_fraction, spread_labels, text_width_pt


def _intensity_tick(value: float, _pos=None) -> str:
    return f"{value:g}"


def roofline_figure(kernels: pd.DataFrame, title: str | None = None, rf: Roofline | None = None) -> Figure:
    """A hierarchical roofline of the launches in a `kernels` table: log-log FLOP/s against
    arithmetic intensity, a bandwidth ceiling per memory level and the FP32 FMA peak (the tensor
    peak too when a launch used tensor cores), all from the reports' own peak metrics. Each kernel
    is a row of points, one per memory level (colour per kernel, marker per level), labelled once
    at its right end; labels are spread apart so none overlap. `rf`: the roofline of `kernels`,
    when the caller has it already."""
    rf = roofline(kernels) if rf is None else rf
    points, table = rf.points.assign(label=rf.points["label"].map(mpl_label)), rf.ceilings  # names: never mathtext
    chart = _Chart(points, table[table["kind"] == "memory"], table[table["kind"] == "compute"],
                   kernel_colors(points["kernel"]))
    notes = list(rf.notes)
    width = 11.5
    footnote_in = FOOTNOTE_LINE_IN * len(footnote_lines(notes, width))
    height = 6.4 + footnote_in
    fig = Figure(figsize=(width, height), dpi=100)
    bottom = (0.62 + footnote_in) / height
    fig.subplots_adjust(left=0.085, right=0.74, top=1 - 0.62 / height, bottom=bottom)
    ax = fig.add_subplot()
    ax.set_xscale("log")
    ax.set_yscale("log")
    limits = _set_limits(fig, ax, chart)
    _draw_ceilings(ax, chart, limits)
    ends = _draw_points(ax, chart)
    _draw_kernel_labels(fig, ax, chart, limits, ends)
    _style_axes(ax)
    _add_legends(ax, chart, ends)
    _add_titles(fig, chart, rf, title, height)
    add_footnote(fig, notes)
    return fig


@dataclass(frozen=True)
class _Chart:
    """What the roofline draws: the points (labels safe for matplotlib), the memory and compute
    ceilings, a colour per kernel."""

    points: pd.DataFrame
    memory: pd.DataFrame
    compute: pd.DataFrame
    colors: dict

    @property
    def top(self) -> float:
        return float(self.compute["value"].max())

    def diagonal_labels(self) -> dict[str, str]:
        return {c["name"]: f"{c['name']} {si_rate(c['value'], c['unit'])}" for c in self.memory.to_dict("records")}


@dataclass(frozen=True)
class _Limits:
    """The axes' data limits, and the two x where every row's leader starts and its label sits."""

    x_low: float
    x_high: float
    y_low: float
    y_high: float
    x_anchor: float
    x_label: float


def _set_limits(fig: Figure, ax, chart: _Chart) -> _Limits:
    """Limits first (label placement works in axes fractions): every point, every ridge, room on
    the right for the leaders and the kernel labels, and headroom above the top roof for the
    diagonals' labels, which continue each diagonal above it (no point can be there): as tall as
    the longest of them at the slope it will have."""
    points, top = chart.points, chart.top
    ridges = [top / bw for bw in chart.memory["value"]]
    x_low = min([points["intensity"].min() / 4, min(ridges) / 40])
    x_points_high = max([points["intensity"].max(), *ridges])
    label_fraction = 0.80  # where the column of kernel labels starts, in axes width
    x_anchor = x_points_high * 1.25  # every row's leader starts here: leaders in label order cannot cross
    x_label = x_points_high * 3.0
    x_high = from_log_fraction(1 / label_fraction, x_low, x_label)
    y_low = points["flops"].min() / 3
    ax.set_xlim(x_low, x_high)
    y_high = top * 2.5
    box = ax.get_position()
    width_px, height_px = (box.width * fig.get_figwidth() * fig.dpi, box.height * fig.get_figheight() * fig.dpi)
    x_decades = math.log10(x_high / x_low)
    longest = max((text_width_pt(t, FONT - 0.5) for t in chart.diagonal_labels().values()), default=0.0) * fig.dpi / 72
    text_height = (FONT + 2) / 72 * fig.dpi
    for _ in range(3):  # the slope depends on the headroom: settle it
        y_decades = math.log10(y_high / y_low)
        angle = math.atan2(height_px / y_decades, width_px / x_decades)
        need_px = (longest + 6) * math.sin(angle) + text_height * math.cos(angle)
        base = math.log10(top / y_low)
        y_high = max(y_high, top * 10 ** (need_px * base / max(height_px - need_px, 1.0)))
    ax.set_ylim(y_low, y_high)
    return _Limits(x_low, x_high, y_low, y_high, x_anchor, x_label)


def _draw_ceilings(ax, chart: _Chart, limits: _Limits) -> None:
    """Ceilings, one style each kind (memory thin, compute thick): each memory diagonal rises to
    the highest compute peak; each compute peak runs flat from its ridge with the fastest memory
    level to the right. Each labelled: a diagonal where it meets the top roof, continuing it."""
    memory, top, x_low = chart.memory, chart.top, limits.x_low
    fastest = float(memory["value"].max()) if len(memory) else None
    for c in memory.to_dict("records"):
        ridge = top / c["value"]  # a straight line on log-log axes: its two ends are enough
        ax.plot([x_low, ridge], [c["value"] * x_low, top], color=CEILING_COLOR, lw=1.1, zorder=1,
                gid=f"ceiling:{c['name']}")
    roof_end = limits.x_anchor
    for c in chart.compute.to_dict("records"):
        start = c["value"] / fastest if fastest else x_low
        ax.plot([start, roof_end], [c["value"], c["value"]], color=CEILING_COLOR, lw=1.8, zorder=1,
                gid=f"ceiling:{c['name']}")
        # The top roof: above its height, left of where it starts (nothing is drawn there: the
        # diagonals meet it at its start and to the right). A lower roof: above its right end,
        # where only faster (tensor) points could be, and they are far above.
        at_top = c["value"] >= top
        ax.annotate(f"{c['name']} {si_rate(c['value'], c['unit'])}",
                    xy=(start if at_top else roof_end, c["value"]), xytext=(-6 if at_top else 0, 2),
                    textcoords="offset points", ha="right", va="bottom", fontsize=FONT, color=CEILING_COLOR,
                    fontweight="bold", gid=f"ceiling-label:{c['name']}")
    (x0, y0), (x1, y1) = ax.transData.transform([(1.0, 1.0), (10.0, 10.0)])
    angle = math.degrees(math.atan2(y1 - y0, x1 - x0))
    diagonal_labels = chart.diagonal_labels()
    for c in memory.to_dict("records"):
        ax.annotate(diagonal_labels[c["name"]], xy=(top / c["value"], top), xytext=(2, 2), textcoords="offset points",
                    rotation=angle, rotation_mode="anchor", ha="left", va="bottom", fontsize=FONT - 0.5,
                    color=CEILING_COLOR, gid=f"ceiling-label:{c['name']}")


def _draw_points(ax, chart: _Chart) -> list[tuple]:
    """One row per kernel (a thin line joining its levels), one marker per level. Returns each
    row's (label, kernel, rightmost intensity, FLOP/s)."""
    rows = chart.points.sort_values(["order", "M", "N", "K"], kind="stable").groupby("label", sort=False)
    ends = []
    for label, row in rows:
        kernel = row["kernel"].iloc[0]
        color = chart.colors[kernel]
        row = row.sort_values("intensity")
        ax.plot(row["intensity"], row["flops"], color=color, lw=1.0, alpha=0.45, zorder=2, gid=f"line:{label}")
        for level, point in row.groupby("level", sort=False):
            ax.plot(point["intensity"], point["flops"], ls="none", marker=LEVEL_MARKERS.get(level, "o"),
                    ms=7.5 if kernel in REFERENCES else 6.5, mfc=color, mec="white", mew=0.7, zorder=3,
                    gid=f"point:{label}:{level}")
        ends.append((label, kernel, float(row["intensity"].max()), float(row["flops"].iloc[0])))
    return ends


def _draw_kernel_labels(fig: Figure, ax, chart: _Chart, limits: _Limits, ends: list[tuple]) -> None:
    """A column right of the rightmost points, spread apart vertically in the order of the rows'
    heights. Each row runs on (dotted) to a common x, and its leader goes from there to its
    label: leaders between two common x in the same order never cross."""
    colors, y_low, y_high = chart.colors, limits.y_low, limits.y_high
    axes_height_px = ax.get_position().height * fig.get_figheight() * fig.dpi
    gap = (FONT + 3.5) / 72 * fig.dpi / axes_height_px
    wanted = [log_fraction(flops, y_low, y_high) for *_, flops in ends]
    placed = spread_labels(wanted, gap, low=gap / 2, high=1 - gap / 2)
    for (label, kernel, x_end, flops), y_frac in zip(ends, placed):
        y_text = from_log_fraction(y_frac, y_low, y_high)
        ax.plot([x_end, limits.x_anchor], [flops, flops], color=colors[kernel], lw=0.7, ls=(0, (1, 2)), alpha=0.6,
                zorder=2, gid=f"leader:{label}")
        ax.annotate(label, xy=(limits.x_anchor, flops), xytext=(limits.x_label, y_text), textcoords="data", ha="left",
                    va="center", fontsize=FONT + (0.5 if kernel in REFERENCES else 0), color=colors[kernel],
                    fontweight="bold" if kernel in REFERENCES else "normal", zorder=4, gid=f"label:{label}",
                    arrowprops={"arrowstyle": "-", "color": colors[kernel], "lw": 0.7, "alpha": 0.6,
                                "shrinkA": 2, "shrinkB": 0, "relpos": (0.0, 0.5)})


def _style_axes(ax) -> None:
    ax.xaxis.set_major_locator(LogLocator(base=10))
    ax.xaxis.set_major_formatter(FuncFormatter(_intensity_tick))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_major_locator(LogLocator(base=10))
    ax.yaxis.set_major_formatter(FuncFormatter(si_tick))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.grid(True, which="major", color="#e4e4e4", lw=0.7, zorder=0)
    ax.set_axisbelow(True)
    ax.set_xlabel("arithmetic intensity (FLOP per byte moved at that memory level)")
    ax.set_ylabel("FLOP/s in the profiled launch (Nsight Compute)")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def _add_legends(ax, chart: _Chart, ends: list[tuple]) -> None:
    """Legends outside the axes: kernels, then memory levels (marker shapes)."""
    kernel_handles = [Line2D([], [], ls="none", marker="o", ms=7, mfc=chart.colors[k], mec="white", label=label)
                      for label, k, *_ in ends]
    first = ax.legend(handles=kernel_handles, title="kernel", loc="upper left", bbox_to_anchor=(1.02, 1.0),
                      frameon=False, fontsize=FONT, title_fontsize=FONT + 0.5, alignment="left")
    ax.add_artist(first)
    present = [lv.name for lv in LEVELS if lv.name in set(chart.points["level"])]
    bandwidths = {c["name"]: si_rate(c["value"], c["unit"]) for c in chart.memory.to_dict("records")}
    level_handles = [Line2D([], [], ls="none", marker=LEVEL_MARKERS[name], ms=7, mfc="#d0d0d0", mec="#555555",
                            label=f"{name} (ceiling {bandwidths[name]})" if name in bandwidths else name)
                     for name in present]
    ax.legend(handles=level_handles, title="bytes counted at", loc="lower left", bbox_to_anchor=(1.02, 0.0),
              frameon=False, fontsize=FONT, title_fontsize=FONT + 0.5, alignment="left")


def _add_titles(fig: Figure, chart: _Chart, rf: Roofline, title: str | None, height: float) -> None:
    """The title (GPU and, for one or two, the shapes) and the subtitle saying what the points and
    the ceilings are."""
    shapes = chart.points[["M", "N", "K"]].drop_duplicates().dropna()
    shape = (" at " + ", ".join(f"{int(m)}x{int(n)}x{int(k)}" for m, n, k in shapes.itertuples(index=False))
             if 0 < len(shapes) <= 2 else "")
    fig.suptitle(mpl_text(title or f"Roofline{(' on ' + rf.gpu) if rf.gpu else ''}{shape}"), x=0.085, ha="left",
                 fontsize=FONT + 3, fontweight="bold", y=1 - 0.12 / height)
    fig.text(0.085, 1 - 0.42 / height, "points: one launch per kernel under Nsight Compute (not the timed bench); "
             "ceilings: the reports' own peak metrics at the clocks the launches ran at",
             fontsize=FONT, color="#444444", ha="left", gid="subtitle")
