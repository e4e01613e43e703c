"""The charts (profiler.render.charts), inspected as Figures with the Agg backend: what is drawn,
where the ceilings sit, that legends stay outside the data and that no two labels overlap."""

from __future__ import annotations

import itertools
from pathlib import Path

import matplotlib
import matplotlib.transforms
from conftest import SAMPLE_RUN

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.text import Text
from test_roofline import synthetic_kernels

from profiler.errors import GemmprofError
from profiler.manifest import load_manifest
from profiler.render.charts import (
    LEVEL_MARKERS,
    kernel_colors,
    ladder_figure,
    roofline_figure,
    spread_labels,
    thin_labels,
)

REPO = Path(__file__).resolve().parent.parent
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
    profiled = set(kernels["kernel"])  # rungs added after the sample was captured are not in it
    expected = [f"{s.index} {s.name}" for s in load_manifest() if s.entry in profiled] + ["cuBLAS", "cuBLAS FP16"]
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
