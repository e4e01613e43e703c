"""The charts (profiler.render.roofline_chart, ladder_chart, chart_style, label_layout), inspected
as Figures with the Agg backend: what is drawn, where the ceilings sit, that legends stay outside the data and that no two labels overlap."""

from __future__ import annotations

import itertools

import matplotlib
import matplotlib.transforms
from helpers.paths import REPO, SAMPLE_RUN

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.text import Text
from helpers.roofline_frames import synthetic_kernels

from profiler.analyze.roofline import kernel_names
from profiler.errors import GemmprofError
from profiler.manifest import REFERENCES, load_manifest
from profiler.render.chart_style import LEVEL_MARKERS, color_distance, distinct_colors, kernel_colors, kernel_markers
from profiler.render.label_layout import spread_labels, thin_labels
from profiler.render.ladder_chart import ladder_figure
from profiler.render.roofline_chart import roofline_figure

SAMPLE = SAMPLE_RUN
SWEEP = REPO / "benchmarks" / "results" / "2026-11-22-h200" / "sweep.csv"


def drawn(fig):
    FigureCanvasAgg(fig)
    fig.canvas.draw()
    return fig, fig.canvas.get_renderer()


def by_gid(fig, prefix: str, kind=object):
    return {a.get_gid(): a for a in fig.findobj(lambda a: isinstance(a, kind) and str(a.get_gid() or "").startswith(prefix))}


def corners(box) -> np.ndarray:
    return np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]])


def text_outline(text: Text, renderer) -> np.ndarray:
    """The four corners of a text on screen, following its rotation: the window extent of a
    rotated text is the upright box around it, which would call parallel slanted labels
    overlapping when their letters are apart."""
    angle = text.get_rotation()
    # Text's own extent: an Annotation's would include its leader line, which may pass near others
    extent = lambda: Text.get_window_extent(text, renderer)  # noqa: E731
    if not angle:
        return corners(extent())
    text.set_rotation(0)
    upright = extent()
    text.set_rotation(angle)
    # rotation_mode "anchor": the text turns about its alignment point
    ax_, ay_ = {"left": upright.x0, "center": (upright.x0 + upright.x1) / 2, "right": upright.x1}[text.get_ha()], \
        {"bottom": upright.y0, "center": (upright.y0 + upright.y1) / 2, "top": upright.y1,
         "baseline": upright.y0, "center_baseline": (upright.y0 + upright.y1) / 2}[text.get_va()]
    if text.get_rotation_mode() != "anchor":
        ax_, ay_ = (upright.x0 + upright.x1) / 2, (upright.y0 + upright.y1) / 2
    theta = np.radians(angle)
    rot = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    return (corners(upright) - [ax_, ay_]) @ rot.T + [ax_, ay_]


def polygons_overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Separating-axis test for two convex quadrilaterals."""
    for poly in (a, b):
        for i in range(4):
            edge = poly[(i + 1) % 4] - poly[i]
            normal = np.array([-edge[1], edge[0]])
            pa, pb = a @ normal, b @ normal
            if pa.max() <= pb.min() or pb.max() <= pa.min():
                return False
    return True


def overlaps(outlines) -> list[tuple[str, str]]:
    return [(a, b) for (a, pa), (b, pb) in itertools.combinations(outlines.items(), 2) if polygons_overlap(pa, pb)]


def text_boxes(fig, renderer, prefixes=("label:", "ceiling-label:")):
    texts = {}
    for prefix in prefixes:
        texts.update(by_gid(fig, prefix, Text))
    return {gid: text_outline(t, renderer) for gid, t in texts.items() if t.get_text()}


def inside(outline: np.ndarray, box) -> bool:
    return bool((outline[:, 0] >= box.x0).all() and (outline[:, 0] <= box.x1).all()
                and (outline[:, 1] >= box.y0).all() and (outline[:, 1] <= box.y1).all())


def legends(fig):
    return [a for a in fig.findobj(Legend)]


# --- roofline ---------------------------------------------------------------------------------


def test_roofline_axes_points_and_ceilings():
    fig, _ = drawn(roofline_figure(synthetic_kernels()))
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    points = by_gid(fig, "point:", Line2D)
    expected = {("1 naive", lv) for lv in ("DRAM", "L2", "L1")} | {
        (k, lv) for k in ("3 smem", "cuBLAS") for lv in ("DRAM", "L2", "shared", "L1")}
    assert {tuple(g.split(":")[1:]) for g in points} == expected
    assert all(len(line.get_xdata()) == 1 for line in points.values())
    # hand-checked positions: naive L1 at 0.4 FLOP/B and 2 TFLOP/s; smem shared at 1 FLOP/B
    assert points["point:1 naive:L1"].get_xdata()[0] == pytest.approx(0.4)
    assert points["point:1 naive:L1"].get_ydata()[0] == pytest.approx(2e12)
    assert points["point:3 smem:shared"].get_xdata()[0] == pytest.approx(1.0)
    # same colour per kernel, same marker per level
    for label in ("1 naive", "3 smem", "cuBLAS"):
        assert len({matplotlib.colors.to_hex(line.get_markerfacecolor())
                    for gid, line in points.items() if gid.split(":")[1] == label}) == 1
    for gid, line in points.items():
        assert line.get_marker() == LEVEL_MARKERS[gid.split(":")[2]]
    colours = {matplotlib.colors.to_hex(points[f"point:{k}:DRAM"].get_markerfacecolor()) for k in ("1 naive", "3 smem", "cuBLAS")}
    assert len(colours) == 3

    ceilings = by_gid(fig, "ceiling:", Line2D)
    assert set(ceilings) == {"ceiling:DRAM", "ceiling:L2", "ceiling:shared", "ceiling:L1", "ceiling:FP32 FMA"}
    for name, bandwidth in (("DRAM", 1e12), ("L2", 4e12), ("shared", 8e12), ("L1", 16e12)):
        x, y = np.asarray(ceilings[f"ceiling:{name}"].get_xdata()), np.asarray(ceilings[f"ceiling:{name}"].get_ydata())
        assert np.allclose(y / x, bandwidth)  # a diagonal of slope 1 at the level's bandwidth ...
        assert y.max() <= 20e12 * (1 + 1e-9)  # ... that ends at the compute peak
    assert set(ceilings["ceiling:FP32 FMA"].get_ydata()) == {20e12}
    ceiling_labels = {t.get_text() for t in by_gid(fig, "ceiling-label:", Text).values()}
    assert {"DRAM 1.00 TB/s", "L2 4.00 TB/s", "shared 8.00 TB/s", "L1 16.0 TB/s", "FP32 FMA 20.0 TFLOP/s"} == ceiling_labels
    # every point lies under the roofline
    for gid, line in points.items():
        x, y = line.get_xdata()[0], line.get_ydata()[0]
        level = gid.split(":")[2]
        bandwidth = {"DRAM": 1e12, "L2": 4e12, "shared": 8e12, "L1": 16e12}[level]
        assert y <= min(bandwidth * x, 20e12) * (1 + 1e-9)


def test_roofline_labels_legends_and_notes():
    frame = synthetic_kernels()
    frame.loc[0, "peak_fp32_flops"] = 21e12
    fig, renderer = drawn(roofline_figure(frame, title="my title"))
    ax = fig.axes[0]
    labels = by_gid(fig, "label:", Text)
    assert {t.get_text() for t in labels.values()} == {"1 naive", "3 smem", "cuBLAS"}
    assert overlaps(text_boxes(fig, renderer)) == []
    axes_box = ax.get_window_extent(renderer)
    found = legends(fig)
    assert len(found) == 2
    for legend in found:
        assert legend.get_window_extent(renderer).x0 >= axes_box.x1  # outside the data, to the right
    titles = {legend.get_title().get_text() for legend in found}
    assert titles == {"kernel", "bytes counted at"}
    assert fig._suptitle.get_text() == "my title"
    notes = by_gid(fig, "notes", Text)["notes"].get_text()
    assert "median" in notes and "no shared traffic" in notes


def test_roofline_tensor_ceiling_when_tensor_cores_used():
    frame = synthetic_kernels()
    frame.loc[2:3, "tensor_flop"] = 5e9
    fig, _ = drawn(roofline_figure(frame))
    ceilings = by_gid(fig, "ceiling:", Line2D)
    assert set(ceilings["ceiling:tensor FP16"].get_ydata()) == {400e12}
    assert np.asarray(ceilings["ceiling:DRAM"].get_ydata()).max() == pytest.approx(400e12)


def test_roofline_sample_reads_at_a_glance():
    kernels = pd.read_parquet(SAMPLE / "kernels.parquet")
    fig, renderer = drawn(roofline_figure(kernels))
    points = by_gid(fig, "point:", Line2D)
    assert len(points) == 4 * len(kernels) - 5  # naive, coalesced, wmma: no shared traffic; wgmma, cuBLAS FP16: not measured
    per_kernel = pd.Series([g.split(":")[1] for g in points]).value_counts()
    assert per_kernel["1 naive"] == 3 and per_kernel["3 smem"] == 4 and per_kernel["cuBLAS"] == 4
    labels = by_gid(fig, "label:", Text)
    sampled = set(kernel_names(kernels))  # rungs added after the sample was captured are not in it
    expected = [f"{s.index} {s.name}" for s in load_manifest() if s.name in sampled] + ["cuBLAS", "cuBLAS FP16"]
    assert sorted(labels[g].get_text() for g in labels) == sorted(expected)  # every kernel labelled once
    boxes = text_boxes(fig, renderer)
    assert overlaps(boxes) == []
    for gid, outline in boxes.items():  # nothing runs off the figure
        assert inside(outline, fig.bbox), gid
    axes_box = fig.axes[0].get_window_extent(renderer)
    for legend in legends(fig):
        assert legend.get_window_extent(renderer).x0 >= axes_box.x1
    # kernel labels do not cover any data point
    for gid, line in points.items():
        x, y = fig.axes[0].transData.transform((line.get_xdata()[0], line.get_ydata()[0]))
        for label, outline in boxes.items():
            assert not polygons_overlap(outline, corners(matplotlib.transforms.Bbox([[x - 3, y - 3], [x + 3, y + 3]]))), \
                (gid, label)
    dram = by_gid(fig, "ceiling:DRAM", Line2D)["ceiling:DRAM"]
    assert np.allclose(np.asarray(dram.get_ydata()) / np.asarray(dram.get_xdata()), 4.8119e12, rtol=1e-3)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert "NVIDIA H200" in fig._suptitle.get_text() and "2048x2048x2048" in fig._suptitle.get_text()


def segments_cross(p, q, r, s) -> bool:
    """Whether segments pq and rs cross at a point inside both (touching ends do not count)."""
    def side(a, b, c):
        return np.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))
    return side(p, q, r) * side(p, q, s) < 0 and side(r, s, p) * side(r, s, q) < 0


def test_segments_cross_helper():
    assert segments_cross((0, 0), (2, 2), (0, 2), (2, 0))
    assert not segments_cross((0, 0), (2, 0), (0, 1), (2, 3))
    assert not segments_cross((0, 0), (1, 1), (1, 1), (2, 0))  # a shared end is not a crossing


def test_roofline_sample_leaders_do_not_cross():
    fig, renderer = drawn(roofline_figure(pd.read_parquet(SAMPLE / "kernels.parquet")))
    ax = fig.axes[0]
    labels = by_gid(fig, "label:", Text)
    leaders = {}
    for gid, text in labels.items():  # from the row's anchor to the label's left edge
        start = ax.transData.transform(text.xy)
        box = Text.get_window_extent(text, renderer)
        leaders[gid] = (tuple(start), (box.x0, (box.y0 + box.y1) / 2))
    crossing = [(a, b) for (a, pa), (b, pb) in itertools.combinations(leaders.items(), 2) if segments_cross(*pa, *pb)]
    assert crossing == []
    # every row runs on to the same x before its leader, so the label column is in row order
    anchors = {round(text.xy[0], 9) for text in labels.values()}
    assert len(anchors) == 1
    order = sorted(labels, key=lambda g: (labels[g].xy[1], Text.get_window_extent(labels[g], renderer).y0))
    heights = [Text.get_window_extent(labels[g], renderer).y0 for g in order]
    assert heights == sorted(heights)
    extensions = by_gid(fig, "leader:", Line2D)
    assert {g.split(":", 1)[1] for g in extensions} == {g.split(":", 1)[1] for g in labels}
    assert {round(line.get_xdata()[-1], 9) for line in extensions.values()} == anchors


def test_roofline_sample_ceiling_labels_clear_of_titles_and_axes():
    fig, renderer = drawn(roofline_figure(pd.read_parquet(SAMPLE / "kernels.parquet")))
    boxes = text_boxes(fig, renderer)
    titles = {"suptitle": corners(fig._suptitle.get_window_extent(renderer)),
              "subtitle": corners(by_gid(fig, "subtitle", Text)["subtitle"].get_window_extent(renderer))}
    assert overlaps({**boxes, **titles}) == []
    axes_box = fig.axes[0].get_window_extent(renderer)
    for gid, outline in boxes.items():
        if gid.startswith("ceiling-label:"):  # inside the plot: none sits on an axis or runs off it
            assert inside(outline, axes_box), gid
    # the memory ceilings share one style, so no dash pattern asks for a legend
    ceilings = by_gid(fig, "ceiling:", Line2D)
    assert {line.get_linestyle() for line in ceilings.values()} == {"-"}
    # which GFLOP/s: this chart's are the profiled launch's
    assert "Nsight Compute" in fig.axes[0].get_ylabel()
    assert "not the timed bench" in by_gid(fig, "subtitle", Text)["subtitle"].get_text()


def test_roofline_of_nothing_is_an_error():
    with pytest.raises(GemmprofError):
        roofline_figure(pd.DataFrame())


# --- the ladder ------------------------------------------------------------------------------


def test_ladder_sample():
    bench = pd.read_parquet(SAMPLE / "bench.parquet")
    fig, renderer = drawn(ladder_figure(bench))
    ax_rate, ax_share = fig.axes
    assert ax_rate.get_yscale() == "log"
    rate = by_gid(fig, "line:", Line2D)
    kernels = ["cublas", "naive", "coalesced", "smem", "blocktile1d", "blocktile2d", "vectorized", "warptile"]
    assert set(kernels) <= {g.split(":")[1] for g in rate}
    for name in kernels:
        line = rate[f"line:{name}"]
        assert list(line.get_xdata()) == [512, 1024, 2048, 4096]
        expected = bench[bench["kernel"] == name].sort_values("M")["gflops"].to_numpy()
        assert np.allclose(line.get_ydata(), expected)
    assert rate["line:cublas"].get_linewidth() > max(rate[f"line:{k}"].get_linewidth() for k in kernels[1:])
    assert matplotlib.colors.to_hex(rate["line:cublas"].get_color()) == "#111111"
    share = by_gid(fig, "share:", Line2D)
    benched = set(bench["kernel"])  # rungs added after the sample was captured are not in it
    fp32_rungs = [s.name for s in load_manifest() if s.tier == "fp32" and s.name in benched]
    assert sorted(g.split(":")[1] for g in share) == sorted(fp32_rungs)  # this chart is the FP32 tier only
    warptile = bench[bench["kernel"] == "warptile"].sort_values("M")["pct_of_cublas"].to_numpy()
    assert np.allclose(share["share:warptile"].get_ydata(), warptile)
    assert set(by_gid(fig, "line:cublas-100", Line2D)["line:cublas-100"].get_ydata()) == {100}
    # the legend: outside both panels, cuBLAS first, then the ladder in manifest order
    legend = fig.legends[0]
    assert legend.get_window_extent(renderer).x0 >= ax_share.get_window_extent(renderer).x1
    assert [t.get_text() for t in legend.get_texts()] == ["cuBLAS"] + [
        f"{s.index} {s.name}" for s in load_manifest() if s.tier == "fp32" and s.name in benched]
    assert legend.get_window_extent(renderer).x1 <= fig.bbox.x1  # no label cut off at the right edge
    assert [t.get_text() for t in ax_rate.get_xticklabels()] == ["512", "1024", "2048", "4096"]
    # colours agree with the roofline's, which draws both tiers
    colours = kernel_colors(pd.read_parquet(SAMPLE / "kernels.parquet")["kernel_key"])
    assert matplotlib.colors.to_hex(rate["line:smem"].get_color()) == matplotlib.colors.to_hex(colours["smem"])


def test_ladder_leaves_out_failures_and_says_so():
    bench = pd.read_parquet(SAMPLE / "bench.parquet")
    bench.loc[(bench["kernel"] == "smem") & (bench["M"] == 1024), "status"] = "FAIL"
    fig, _ = drawn(ladder_figure(bench))
    assert list(by_gid(fig, "line:smem", Line2D)["line:smem"].get_xdata()) == [512, 2048, 4096]
    assert "smem 1024x1024x1024 (FAIL)" in by_gid(fig, "notes", Text)["notes"].get_text()


def test_ladder_sweep_ticks_do_not_overlap():
    """The committed sweep: 1000, 1023 and 1024 sit close; a non-square shape has no size."""
    fig, renderer = drawn(ladder_figure(pd.read_csv(SWEEP)))
    for ax in fig.axes:
        shown = {f"{t.get_text()}@{i}": text_outline(t, renderer)
                 for i, t in enumerate(ax.get_xticklabels()) if t.get_text()}
        assert overlaps(shown) == []
        assert "256" in {t.get_text() for t in ax.get_xticklabels()}
    notes = by_gid(fig, "notes", Text)["notes"].get_text()
    assert "1536x512x2048" in notes and "SKIP" in notes


def test_ladder_of_nothing_is_an_error():
    with pytest.raises(GemmprofError):
        ladder_figure(pd.DataFrame(columns=["kernel", "M", "N", "K", "status", "gflops"]))
    failed = pd.DataFrame([{"kernel": "naive", "M": 64, "N": 64, "K": 64, "status": "FAIL", "gflops": None}])
    with pytest.raises(GemmprofError, match="no kernel passed"):
        ladder_figure(failed)


# --- label placement ---------------------------------------------------------------------------


def test_spread_labels_centres_crowds_and_keeps_bounds():
    assert spread_labels([0.0, 0.01, 0.02], 0.1) == pytest.approx([-0.09, 0.01, 0.11])
    assert spread_labels([0.0, 0.01, 0.02], 0.1, low=0.0) == pytest.approx([0.0, 0.1, 0.2])
    assert spread_labels([0.5, 0.0, 0.9], 0.1) == pytest.approx([0.5, 0.0, 0.9])  # no crowd: unchanged
    assert spread_labels([0.98, 0.99], 0.1, high=1.0) == pytest.approx([0.9, 1.0])
    assert spread_labels([], 0.1) == []


def test_thin_labels_keeps_ends_and_drops_crowded():
    assert thin_labels([0, 10, 12, 100], [8, 8, 8, 8]) == [True, True, False, True]
    assert thin_labels([0, 1], [8, 8]) == [True, False]
    assert thin_labels([], []) == []


# --- colours ------------------------------------------------------------------------------------


def test_color_distance_is_cie94():
    assert color_distance("black", "white") == pytest.approx(100.0, abs=0.05)
    assert color_distance("#1f77b4", "#1f77b4") == pytest.approx(0.0, abs=1e-9)
    # lightness counts in full, a chroma step among vivid colours much less
    assert color_distance("#808080", "#a0a0a0") > color_distance("#ff0000", "#e00000")


def test_every_kernel_has_a_colour_of_its_own():
    names = [s.name for s in load_manifest()] + list(REFERENCES)
    colours = kernel_colors(names)
    kernels = [n for n in names if n not in REFERENCES]
    markers = kernel_markers(names)
    pairs = [(color_distance(colours[a], colours[b]), a, b) for a, b in itertools.combinations(kernels, 2)]
    assert min(pairs)[0] > 10  # clearly different (the roofline shows them all); husl gave rungs 8-12 teals 5 apart
    # a ladder chart shows one tier: there, a pair of colours closer than 15 differs in marker too
    tier = {s.name: s.tier for s in load_manifest()}
    close = [(d, a, b) for d, a, b in pairs if d <= 15 and tier[a] == tier[b] and markers[a] == markers[b]]
    assert not close, close
    refs = [colours[r] for r in REFERENCES]
    assert all(color_distance(a, b) > 20 for a, b in itertools.combinations(refs, 2))  # cuBLAS vs cuBLAS FP16
    assert all(color_distance(colours[k], r) > 15 for k in kernels for r in refs)


def test_distinct_colors_scale_and_keep_their_order():
    many = distinct_colors(40)
    assert distinct_colors(17) == many[:17]  # adding kernels never recolours the ladder
    assert min(color_distance(a, b) for a, b in itertools.combinations(many, 2)) > 10
    assert len(set(many)) == 40


def test_ladder_neighbours_and_references_are_styled_apart():
    bench = pd.read_parquet(SAMPLE / "bench.parquet")
    for tier in ("fp32", "fp16"):
        fig, renderer = drawn(ladder_figure(bench, tier=tier))
        lines = by_gid(fig, "line:", Line2D)
        benched = set(bench["kernel"])  # rungs added after the sample was captured are not in it
        order = [s.name for s in load_manifest() if s.tier == tier and s.name in benched]
        for a, b in zip(order, order[1:]):
            la, lb = lines[f"line:{a}"], lines[f"line:{b}"]
            assert la.get_marker() != lb.get_marker(), (a, b)
            assert color_distance(la.get_color(), lb.get_color()) > 15, (a, b)
        legend = fig.legends[0]
        assert legend.get_window_extent(renderer).x1 <= fig.bbox.x1
        assert "bench" in fig.axes[0].get_ylabel()
    fp32, fp16 = (by_gid(drawn(ladder_figure(bench, tier=t))[0], "line:cublas", Line2D) for t in ("fp32", "fp16"))
    ref32, ref16 = fp32["line:cublas"], fp16["line:cublas-fp16"]
    assert color_distance(ref32.get_color(), ref16.get_color()) > 20
    assert (ref32.get_marker(), ref32.get_linestyle()) != (ref16.get_marker(), ref16.get_linestyle())
    markers = kernel_markers(["cublas", "cublas-fp16"])
    assert (markers["cublas"], markers["cublas-fp16"]) == (ref32.get_marker(), ref16.get_marker())


def test_fp32_tc_ladder_draws_the_context_row_dashed_and_never_as_a_share():
    """The fp32-tc chart: strict cuBLAS the yardstick (solid), cuBLAS FAST_TF32 timed beside it
    (dashed, in no share panel, said in the notes), the FAILing 1xTF32 rung not drawn."""
    rows = []
    for M, tf32, strict, x3 in ((1024, 150e3, 40e3, 50e3), (2048, 300e3, 48e3, 70e3), (4096, 390e3, 50e3, 80e3)):
        base = {"tier": "fp32-tc", "M": M, "N": M, "K": M, "peak_gflops": 535e3}
        rows += [{**base, "kernel": "cublas", "status": "PASS", "gflops": strict, "pct_of_cublas": 100.0},
                 {**base, "kernel": "cublas-tf32", "status": "CONTEXT", "gflops": tf32, "pct_of_cublas": 100 * tf32 / strict},
                 {**base, "kernel": "tf32x1", "status": "FAIL"},
                 {**base, "kernel": "tf32x3", "status": "PASS", "gflops": x3, "pct_of_cublas": 100 * x3 / strict}]
    fig, _ = drawn(ladder_figure(pd.DataFrame(rows), tier="fp32-tc"))
    rate, share = by_gid(fig, "line:", Line2D), by_gid(fig, "share:", Line2D)
    assert rate["line:cublas-tf32"].get_linestyle() == "--" and rate["line:cublas"].get_linestyle() == "-"
    assert list(rate["line:cublas-tf32"].get_ydata()) == [150e3, 300e3, 390e3]
    assert set(share) == {"share:tf32x3"} and "line:tf32x1" not in rate
    notes = by_gid(fig, "notes", Text)["notes"].get_text()
    assert "context, dashed: cublas-tf32" in notes and "tf32x1 1024x1024x1024 (FAIL)" in notes
    assert "cublas-tf32 1024" not in notes  # timed: not among the untimed rows
    assert "TF32" in fig._suptitle.get_text() and "strict" in fig._suptitle.get_text()
