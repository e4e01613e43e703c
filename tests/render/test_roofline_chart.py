"""The roofline chart (profiler.render.roofline_chart), inspected as a Figure with the Agg backend:
what is drawn, where the ceilings sit, that legends stay outside the data and that no two labels
overlap or cross."""

from __future__ import annotations

import itertools

import matplotlib
import matplotlib.transforms
import numpy as np
import pandas as pd
import pytest
from helpers.figure_geometry import by_gid, corners, drawn, inside, legends, overlaps, polygons_overlap, text_boxes
from helpers.paths import SAMPLE_RUN
from helpers.roofline_frames import synthetic_kernels
from matplotlib.lines import Line2D
from matplotlib.text import Text

from profiler.analyze.roofline import kernel_names
from profiler.errors import GemmprofError
from profiler.catalogue.manifest import load_manifest
from profiler.render.chart_style import LEVEL_MARKERS
from profiler.render.roofline_chart import roofline_figure

SAMPLE = SAMPLE_RUN


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
