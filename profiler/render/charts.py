"""Charts: the hierarchical roofline and the ladder. Each function returns a matplotlib Figure;
the caller decides where it goes (`fig.savefig`, an <img> in the report, a test's assertions).

Artists carry a `gid` so that tests (and anyone post-editing a figure) can find them:
`point:<kernel>:<level>`, `ceiling:<name>`, `ceiling-label:<name>`, `label:<kernel>`,
`leader:<kernel>`, `line:<kernel>`, `subtitle`.
"""

from __future__ import annotations

import functools
import math
import textwrap

import numpy as np
import pandas as pd
from matplotlib import colormaps as mpl_colormaps
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import (
    FixedLocator,
    FuncFormatter,
    LogLocator,
    NullFormatter,
    NullLocator,
)

from ..analyze.roofline import LEVELS, Roofline, ladder_labels, roofline
from ..numbers import si_rate, si_tick
from ..manifest import REFERENCES, TIERS
from ..tiers import TIMED_STATUSES
from ..tiers import TIERS as TIER_RECORDS
from .escape import mpl_label, mpl_text

LEVEL_MARKERS = {"DRAM": "o", "L2": "s", "shared": "D", "L1": "^"}
CUBLAS_COLOR = "#111111"
CEILING_COLOR = "#555555"
# The references, one per tier in REFERENCES' order: black, then greys dark enough for text, each
# with its own marker and line so that two references on one chart never look alike.
REFERENCE_STYLES = (("#111111", "o", "-"), ("#6e6e6e", "s", (0, (5, 1.5))), ("#3c3c3c", "D", (0, (1.5, 1.2))),
                    ("#959595", "^", (0, (6, 2, 1.5, 2))))
# Markers cycled over the rungs in the ladder charts: a second cue beside colour.
RUNG_MARKERS = ("o", "s", "D", "^", "v", "P", "X", "p")
FONT = 9


def _lab(rgb) -> np.ndarray:
    """sRGB (0..1, rows of three) to CIELAB (D65): distances there follow what the eye tells apart."""
    rgb = np.asarray(rgb, dtype=float).reshape(-1, 3)
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = linear @ np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]).T
    xyz /= [0.95047, 1.0, 1.08883]
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])], axis=1)


def _delta_e94(lab: np.ndarray, others: np.ndarray) -> np.ndarray:
    """CIE94 distances between each row of `lab` and each row of `others` (a matrix): unlike the
    plain Lab distance it discounts chroma and hue differences among saturated colours, which
    the eye tells apart less well (two vivid blues)."""
    lab, others = lab[:, None, :], others[None, :, :]
    chroma_a, chroma_b = np.hypot(lab[..., 1], lab[..., 2]), np.hypot(others[..., 1], others[..., 2])
    d_l, d_c = lab[..., 0] - others[..., 0], chroma_a - chroma_b
    d_h2 = np.maximum(((lab - others)[..., 1:] ** 2).sum(axis=-1) - d_c ** 2, 0.0)
    chroma = np.sqrt(chroma_a * chroma_b)  # symmetric in the two colours
    return np.sqrt(d_l ** 2 + (d_c / (1 + 0.045 * chroma)) ** 2 + d_h2 / (1 + 0.015 * chroma) ** 2)


def color_distance(a, b) -> float:
    """CIE94 distance of two colours (about 1: just noticeable; above 10: clearly different)."""
    return float(_delta_e94(_lab(to_rgb(a)), _lab(to_rgb(b)))[0, 0])


@functools.lru_cache(maxsize=8)
def distinct_colors(n: int) -> tuple[tuple[float, float, float], ...]:
    """`n` colours for kernels: tab10 without its grey first, then each next one the candidate
    farthest (CIELAB) from every colour already taken and from the references' greys and white,
    so any colour differs from all before it, neighbours included (a continuous palette over
    many kernels gives near-identical neighbours). Candidates are mid-lightness and saturated
    enough to colour text on white."""
    tab = [c for i, c in enumerate(mpl_colormaps["tab10"].colors) if i != 7]
    chosen = [tuple(map(float, c)) for c in tab[:n]]
    if n <= len(chosen):
        return tuple(chosen)
    steps = np.linspace(0.0, 1.0, 11)
    grid = np.array(np.meshgrid(steps, steps, steps, indexing="ij")).reshape(3, -1).T
    lab = _lab(grid)
    usable = (lab[:, 0] >= 35) & (lab[:, 0] <= 70) & (np.hypot(lab[:, 1], lab[:, 2]) >= 30)
    grid, lab = grid[usable], lab[usable]
    avoid = [to_rgb(c) for c, *_ in REFERENCE_STYLES] + [to_rgb(CEILING_COLOR), (1.0, 1.0, 1.0)]
    nearest = _delta_e94(lab, _lab(np.array(chosen + avoid))).min(axis=1)
    while len(chosen) < n:
        pick = int(np.argmax(nearest))
        chosen.append(tuple(map(float, grid[pick])))
        nearest = np.minimum(nearest, _delta_e94(lab, lab[pick:pick + 1])[:, 0])
    return tuple(chosen)


def reference_style(name: str) -> tuple[str, str, object]:
    """(colour, marker, line style) of a cuBLAS reference."""
    return REFERENCE_STYLES[list(REFERENCES).index(name) % len(REFERENCE_STYLES)]


def _ladder(names) -> list[str]:
    """The whole manifest ladder in order, then kernels outside it: colours and markers are taken
    by position in it, so a chart of one tier styles a kernel as the roofline of all does."""
    from ..manifest import load_manifest

    manifest = [s.name for s in load_manifest()]
    present = [n for n in dict.fromkeys(names) if n not in REFERENCES]
    return manifest + sorted(n for n in present if n not in manifest)


def kernel_colors(names) -> dict[str, tuple]:
    """One colour per kernel, the same in every chart (see `distinct_colors`); the references
    black and greys."""
    names = list(names)
    ladder = _ladder(names)
    palette = distinct_colors(len(ladder))
    present = set(names)
    colors = {name: palette[i] for i, name in enumerate(ladder) if name in present}
    colors.update({name: to_rgb(reference_style(name)[0]) for name in REFERENCES})
    return colors


def kernel_markers(names) -> dict[str, str]:
    """One marker per kernel for the ladder charts, cycled along the ladder."""
    names = list(names)
    ladder = _ladder(names)
    present = set(names)
    markers = {name: RUNG_MARKERS[i % len(RUNG_MARKERS)] for i, name in enumerate(ladder) if name in present}
    markers.update({name: reference_style(name)[1] for name in REFERENCES})
    return markers


def spread_labels(positions, gap: float, low: float = -math.inf, high: float = math.inf) -> list[float]:
    """Move 1-D label positions apart so neighbours are at least `gap` apart, keeping each group
    of crowded labels centred on where its members want to be (least squares), and all inside
    [low, high] when they fit. Returns the new positions in the input order."""
    want = np.asarray(positions, dtype=float)
    order = np.argsort(want, kind="stable")
    # Clusters of consecutive labels: (first index in sorted order, count, start position).
    clusters: list[list[float]] = []
    for rank, i in enumerate(order):
        clusters.append([rank, 1, want[i]])
        while len(clusters) > 1:
            prev, last = clusters[-2], clusters[-1]
            if prev[2] + prev[1] * gap <= last[2]:
                break
            first, count = prev[0], prev[1] + last[1]
            members = want[order[first:first + count]] - gap * np.arange(count)
            start = float(members.mean())
            clusters[-2:] = [[first, count, start]]
    out = np.empty(len(want))
    for first, count, start in clusters:
        out[order[first:first + count]] = start + gap * np.arange(count)
    # Keep inside the bounds: shift the lowest up / the highest down, pushing neighbours along.
    ranked = out[order]
    if len(ranked) and ranked[-1] > high:
        ranked[-1] = high
        for k in range(len(ranked) - 2, -1, -1):
            ranked[k] = min(ranked[k], ranked[k + 1] - gap)
    if len(ranked) and ranked[0] < low:
        ranked[0] = low
        for k in range(1, len(ranked)):
            ranked[k] = max(ranked[k], ranked[k - 1] + gap)
    out[order] = ranked
    return out.tolist()


def thin_labels(centres, widths, pad: float = 0.0) -> list[bool]:
    """Which of the labels (centre positions and widths along one axis, in order) to show so
    that no two shown overlap: greedy from both ends towards the middle, so the first and the
    last label always show."""
    n = len(centres)
    keep = [False] * n
    if not n:
        return keep
    keep[0] = keep[-1] = True
    left_edge = centres[0] + widths[0] / 2
    right_edge = centres[-1] - widths[-1] / 2
    if n > 1 and left_edge + pad > right_edge:
        keep[-1] = False
        right_edge = math.inf
    for i in range(1, n - 1):
        lo, hi = centres[i] - widths[i] / 2, centres[i] + widths[i] / 2
        if lo >= left_edge + pad and hi + pad <= right_edge:
            keep[i] = True
            left_edge = hi
    return keep


def _text_width_pt(text: str, size: float) -> float:
    """How wide `text` is at font size `size`, in points, before any figure is drawn."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    width, _height, _descent = TextToPath().get_text_width_height_descent(text, FontProperties(size=size), ismath=False)
    return float(width)


def _intensity_tick(value: float, _pos=None) -> str:
    return f"{value:g}"


def _log_fraction(value: float, low: float, high: float) -> float:
    if not (value > 0 and low > 0 and high > low):  # no place on a log axis (a zero or negative peak)
        return math.nan
    return (math.log10(value) - math.log10(low)) / (math.log10(high) - math.log10(low))


def _from_log_fraction(fraction: float, low: float, high: float) -> float:
    if not (low > 0 and high > low):
        return math.nan
    return 10 ** (math.log10(low) + fraction * (math.log10(high) - math.log10(low)))


def _footnote(fig: Figure, notes, y: float = 0.01) -> None:
    if notes:
        text = "\n".join(textwrap.fill(mpl_text(f"Note: {n}"), 150) for n in notes)
        fig.text(0.01, y, text, fontsize=FONT - 1.5, color="#444444", va="bottom", ha="left", gid="notes")


def roofline_figure(kernels: pd.DataFrame, title: str | None = None, rf: Roofline | None = None) -> Figure:
    """A hierarchical roofline of the launches in a `kernels` table: log-log FLOP/s against
    arithmetic intensity, a bandwidth ceiling per memory level and the FP32 FMA peak (the tensor
    peak too when a launch used tensor cores), all from the reports' own peak metrics. Each kernel
    is a row of points, one per memory level (colour per kernel, marker per level), labelled once
    at its right end; labels are spread apart so none overlap. `rf`: the roofline of `kernels`,
    when the caller has it already."""
    rf = roofline(kernels) if rf is None else rf
    points, table = rf.points.assign(label=rf.points["label"].map(mpl_label)), rf.ceilings  # names: never mathtext
    memory = table[table["kind"] == "memory"]
    compute = table[table["kind"] == "compute"]
    top = float(compute["value"].max())
    colors = kernel_colors(points["kernel"])

    notes = list(rf.notes)
    footnote_lines = sum(len(textwrap.wrap(f"Note: {n}", 150)) for n in notes)
    height = 6.4 + 0.16 * footnote_lines
    fig = Figure(figsize=(11.5, height), dpi=100)
    bottom = (0.62 + 0.16 * footnote_lines) / height
    fig.subplots_adjust(left=0.085, right=0.74, top=1 - 0.62 / height, bottom=bottom)
    ax = fig.add_subplot()
    ax.set_xscale("log")
    ax.set_yscale("log")

    # Limits first (label placement works in axes fractions): every point, every ridge, room on
    # the right for the leaders and the kernel labels.
    ridges = [top / bw for bw in memory["value"]]
    x_low = min([points["intensity"].min() / 4, min(ridges) / 40])
    x_points_high = max([points["intensity"].max(), *ridges])
    label_fraction = 0.80  # where the column of kernel labels starts, in axes width
    x_anchor = x_points_high * 1.25  # every row's leader starts here: leaders in label order cannot cross
    x_label = x_points_high * 3.0
    x_high = _from_log_fraction(1 / label_fraction, x_low, x_label)
    y_low = points["flops"].min() / 3
    ax.set_xlim(x_low, x_high)
    # Headroom above the top roof for the diagonals' labels, which continue each diagonal above
    # it (no point can be there): as tall as the longest of them at the slope it will have.
    diagonal_labels = {c["name"]: f"{c['name']} {si_rate(c['value'], c['unit'])}" for c in memory.to_dict("records")}
    y_high = top * 2.5
    box = ax.get_position()
    width_px, height_px = (box.width * fig.get_figwidth() * fig.dpi, box.height * fig.get_figheight() * fig.dpi)
    x_decades = math.log10(x_high / x_low)
    longest = max((_text_width_pt(t, FONT - 0.5) for t in diagonal_labels.values()), default=0.0) * fig.dpi / 72
    text_height = (FONT + 2) / 72 * fig.dpi
    for _ in range(3):  # the slope depends on the headroom: settle it
        y_decades = math.log10(y_high / y_low)
        angle = math.atan2(height_px / y_decades, width_px / x_decades)
        need_px = (longest + 6) * math.sin(angle) + text_height * math.cos(angle)
        base = math.log10(top / y_low)
        y_high = max(y_high, top * 10 ** (need_px * base / max(height_px - need_px, 1.0)))
    ax.set_ylim(y_low, y_high)

    # Ceilings, one style each kind (memory thin, compute thick): each memory diagonal rises to
    # the highest compute peak; each compute peak runs flat from its ridge with the fastest
    # memory level to the right.
    fastest = float(memory["value"].max()) if len(memory) else None
    for c in memory.to_dict("records"):
        ridge = top / c["value"]  # a straight line on log-log axes: its two ends are enough
        ax.plot([x_low, ridge], [c["value"] * x_low, top], color=CEILING_COLOR, lw=1.1, zorder=1,
                gid=f"ceiling:{c['name']}")
    roof_end = x_anchor
    for c in compute.to_dict("records"):
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

    # Diagonal labels: where each diagonal meets the top roof, continuing it above the roof.
    (x0, y0), (x1, y1) = ax.transData.transform([(1.0, 1.0), (10.0, 10.0)])
    angle = math.degrees(math.atan2(y1 - y0, x1 - x0))
    for c in memory.to_dict("records"):
        ax.annotate(diagonal_labels[c["name"]], xy=(top / c["value"], top), xytext=(2, 2), textcoords="offset points",
                    rotation=angle, rotation_mode="anchor", ha="left", va="bottom", fontsize=FONT - 0.5,
                    color=CEILING_COLOR, gid=f"ceiling-label:{c['name']}")

    # Points: one row per kernel (thin line joining its levels), one marker per level.
    rows = points.sort_values(["order", "M", "N", "K"], kind="stable").groupby("label", sort=False)
    ends = []
    for label, row in rows:
        kernel = row["kernel"].iloc[0]
        color = colors[kernel]
        row = row.sort_values("intensity")
        ax.plot(row["intensity"], row["flops"], color=color, lw=1.0, alpha=0.45, zorder=2, gid=f"line:{label}")
        for level, point in row.groupby("level", sort=False):
            ax.plot(point["intensity"], point["flops"], ls="none", marker=LEVEL_MARKERS.get(level, "o"),
                    ms=7.5 if kernel in REFERENCES else 6.5, mfc=color, mec="white", mew=0.7, zorder=3,
                    gid=f"point:{label}:{level}")
        ends.append((label, kernel, float(row["intensity"].max()), float(row["flops"].iloc[0])))

    # Kernel labels: a column right of the rightmost points, spread apart vertically in the
    # order of the rows' heights. Each row runs on (dotted) to a common x, and its leader goes
    # from there to its label: leaders between two common x in the same order never cross.
    axes_height_px = ax.get_position().height * fig.get_figheight() * fig.dpi
    gap = (FONT + 3.5) / 72 * fig.dpi / axes_height_px
    wanted = [_log_fraction(flops, y_low, y_high) for *_, flops in ends]
    placed = spread_labels(wanted, gap, low=gap / 2, high=1 - gap / 2)
    for (label, kernel, x_end, flops), y_frac in zip(ends, placed):
        y_text = _from_log_fraction(y_frac, y_low, y_high)
        ax.plot([x_end, x_anchor], [flops, flops], color=colors[kernel], lw=0.7, ls=(0, (1, 2)), alpha=0.6,
                zorder=2, gid=f"leader:{label}")
        ax.annotate(label, xy=(x_anchor, flops), xytext=(x_label, y_text), textcoords="data", ha="left",
                    va="center", fontsize=FONT + (0.5 if kernel in REFERENCES else 0), color=colors[kernel],
                    fontweight="bold" if kernel in REFERENCES else "normal", zorder=4, gid=f"label:{label}",
                    arrowprops={"arrowstyle": "-", "color": colors[kernel], "lw": 0.7, "alpha": 0.6,
                                "shrinkA": 2, "shrinkB": 0, "relpos": (0.0, 0.5)})

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

    # Legends outside the axes: kernels, then memory levels (marker shapes).
    kernel_handles = [Line2D([], [], ls="none", marker="o", ms=7, mfc=colors[k], mec="white", label=label)
                      for label, k, *_ in ends]
    first = ax.legend(handles=kernel_handles, title="kernel", loc="upper left", bbox_to_anchor=(1.02, 1.0),
                      frameon=False, fontsize=FONT, title_fontsize=FONT + 0.5, alignment="left")
    ax.add_artist(first)
    present = [lv.name for lv in LEVELS if lv.name in set(points["level"])]
    bandwidths = {c["name"]: si_rate(c["value"], c["unit"]) for c in memory.to_dict("records")}
    level_handles = [Line2D([], [], ls="none", marker=LEVEL_MARKERS[name], ms=7, mfc="#d0d0d0", mec="#555555",
                            label=f"{name} (ceiling {bandwidths[name]})" if name in bandwidths else name)
                     for name in present]
    ax.legend(handles=level_handles, title="bytes counted at", loc="lower left", bbox_to_anchor=(1.02, 0.0),
              frameon=False, fontsize=FONT, title_fontsize=FONT + 0.5, alignment="left")

    shapes = points[["M", "N", "K"]].drop_duplicates().dropna()
    shape = (" at " + ", ".join(f"{int(m)}x{int(n)}x{int(k)}" for m, n, k in shapes.itertuples(index=False))
             if 0 < len(shapes) <= 2 else "")
    fig.suptitle(mpl_text(title or f"Roofline{(' on ' + rf.gpu) if rf.gpu else ''}{shape}"), x=0.085, ha="left",
                 fontsize=FONT + 3, fontweight="bold", y=1 - 0.12 / height)
    fig.text(0.085, 1 - 0.42 / height, "points: one launch per kernel under Nsight Compute (not the timed bench); "
             "ceilings: the reports' own peak metrics at the clocks the launches ran at",
             fontsize=FONT, color="#444444", ha="left", gid="subtitle")
    _footnote(fig, notes)
    return fig


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
    from ..errors import GemmprofError

    if bench is None or len(bench) == 0:
        raise GemmprofError("the bench table is empty: nothing to draw", "run gemmprof bench first")
    bench = bench[bench["tier"].fillna("fp32") == tier] if "tier" in bench else bench
    if bench.empty:
        raise GemmprofError(f"the bench table has no {tier} kernels: nothing to draw")
    frame = bench.copy()
    timed = frame[frame["status"].isin(TIMED_STATUSES) & frame["gflops"].notna()] if "status" in frame else frame
    if timed.empty:
        raise GemmprofError("no kernel passed verification in this bench table: nothing to draw")
    frame = timed.copy()
    square = (frame["M"] == frame["N"]) & (frame["N"] == frame["K"])
    left_out = []
    if square.any() and not square.all():  # a size axis fits square shapes; list the others
        left_out = sorted({f"{r.M}x{r.N}x{r.K}" for r in frame[~square].itertuples()})
        frame = frame[square].copy()
    frame["x"], xlabel, ticks = _size_axis(frame)
    labels = {k: (order, mpl_label(text)) for k, (order, text) in ladder_labels(frame["kernel"]).items()}
    colors, markers = kernel_colors(frame["kernel"]), kernel_markers(frame["kernel"])
    names = sorted(labels, key=lambda n: (n not in REFERENCES, labels[n][0]))  # cuBLAS first in the legend

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
    footnote_lines = sum(len(textwrap.wrap(f"Note: {n}", 150)) for n in notes)
    rotate = any("x" in t for t in ticks.values())
    tick_room = 0.35 if rotate else 0.0
    height = 5.2 + 0.16 * footnote_lines + tick_room
    width = 13.0
    # room on the right for the legend: its longest label (about 0.66 em per character) plus the marker
    legend_in = (max(_text_width_pt(labels[n][1], FONT) for n in names) + 5 * FONT) / 72 + 0.3
    right = min(0.85, 1 - legend_in / width)
    fig = Figure(figsize=(width, height), dpi=100)
    fig.subplots_adjust(left=0.08, right=right, top=1 - 0.55 / height,
                        bottom=(0.6 + 0.16 * footnote_lines + tick_room) / height, wspace=0.22)
    ax_rate, ax_share = fig.subplots(1, 2)

    frame["pct_of_cublas"] = frame.get("pct_of_cublas", np.nan)
    frame["throttled"] = frame["throttled"].fillna(False).astype(bool) if "throttled" in frame else False
    per = frame.groupby(["kernel", "x"], sort=False).agg(
        gflops=("gflops", "median"), pct=("pct_of_cublas", "median"), throttled=("throttled", "any")).reset_index()
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

    reference = next((n for n in names if n in REFERENCES), None)
    ref_color, _marker, ref_ls = reference_style(reference) if reference else (CUBLAS_COLOR, "o", "-")
    ax_share.axhline(100, color=ref_color, lw=2.6, ls=ref_ls, zorder=4, gid="line:cublas-100")
    ax_share.annotate(f"{labels[reference][1] if reference else 'cuBLAS'} = 100%", xy=(0.01, 100),
                      xycoords=("axes fraction", "data"), xytext=(0, 4), textcoords="offset points", fontsize=FONT,
                      color=ref_color, fontweight="bold")
    # the tier's peak (FP32 FMA, or the FP16 tensor cores); older tables carry only the FP32 one
    peak_column = "peak_gflops" if "peak_gflops" in frame and frame["peak_gflops"].notna().any() else "peak_fp32_gflops"
    if peak_column in frame and frame[peak_column].notna().any():
        peak = float(frame[peak_column].median())
        ax_rate.axhline(peak, color=CEILING_COLOR, lw=1.1, ls=(0, (5, 3)), zorder=2, gid="line:fp32-peak")
        what = TIER_RECORDS[tier].peak_label if tier in TIER_RECORDS else "FP32 peak"
        ax_rate.annotate(f"{what} {si_rate(peak * 1e9, 'FLOP/s')} (clock seen while timing)",
                         xy=(0.01, peak), xycoords=("axes fraction", "data"), xytext=(0, 3),
                         textcoords="offset points", fontsize=FONT - 0.5, color=CEILING_COLOR)
        y_top = peak * 1.6
    else:
        y_top = float(per["gflops"].max()) * 1.6

    for ax in (ax_rate, ax_share):
        ax.set_xscale("log", base=2)
        span = (min(ticks), max(ticks))
        ax.set_xlim(span[0] / 1.15, span[1] * 1.15)
        # Sizes close together (1000, 1023, 1024) would print on top of each other: keep a tick
        # for each, a label only where it has room.
        xs = sorted(ticks)
        px = ax.transData.transform([(x, 1.0) for x in xs])[:, 0]
        char_px = 0.62 * FONT / 72 * fig.dpi
        widths = [len(ticks[x]) * char_px * (math.cos(math.radians(30)) if rotate else 1.0) for x in xs]
        shown = {x: ticks[x] if keep else "" for x, keep in zip(xs, thin_labels(px, widths, char_px))}
        ax.xaxis.set_major_locator(FixedLocator(xs))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p, shown=shown: shown.get(float(v), "")))
        ax.xaxis.set_minor_locator(NullLocator())
        if rotate:
            ax.tick_params(axis="x", labelrotation=30)
            for label in ax.get_xticklabels():
                label.set_ha("right")
                label.set_rotation_mode("anchor")
        ax.set_xlabel(xlabel)
        ax.grid(True, color="#e4e4e4", lw=0.7)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    ax_rate.set_yscale("log")
    ax_rate.set_ylim(float(per["gflops"].min()) / 1.6, y_top)
    ax_rate.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:,.0f}"))
    ax_rate.yaxis.set_minor_formatter(NullFormatter())
    ax_rate.set_ylabel("GFLOP/s, timed by gemmprof bench (log scale)")
    ax_rate.set_title("throughput (bench: median of timed launches, not ncu)", loc="left", fontsize=FONT + 1)
    ax_share.set_ylim(0, max(110.0, float(per.loc[~per["kernel"].isin(list(REFERENCES)), "pct"].max()) * 1.1))
    ax_share.set_ylabel("% of cuBLAS at the same size (bench)")
    ax_share.set_title("share of cuBLAS", loc="left", fontsize=FONT + 1)
    fig.legend(handles=handles, title="kernel", loc="upper left", bbox_to_anchor=(right + 0.015, 1 - 0.55 / height),
               frameon=False, fontsize=FONT, title_fontsize=FONT + 0.5, alignment="left")
    fig.suptitle(mpl_text(title or LADDER_TITLES.get(tier, f"The {tier} ladder against cuBLAS")), x=0.08, ha="left", fontsize=FONT + 3,
                 fontweight="bold", y=1 - 0.12 / height)
    _footnote(fig, notes)
    return fig
