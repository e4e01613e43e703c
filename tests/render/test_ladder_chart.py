"""The ladder chart (profiler.render.ladder_chart), inspected as a Figure with the Agg backend: one
line per kernel and tier, failures left out and said, ticks apart, neighbours styled apart."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest
from helpers.figure_geometry import by_gid, drawn, overlaps, text_outline
from helpers.paths import DATA, REPO, SAMPLE_RUN
from matplotlib.lines import Line2D
from matplotlib.text import Text

from profiler.errors import GemmprofError
from profiler.catalogue.manifest import load_manifest
from profiler.render.chart_style import color_distance, kernel_colors, kernel_markers
from profiler.render.ladder_chart import ladder_figure

SAMPLE = SAMPLE_RUN
SWEEP = DATA / "gpu-check-h200" / "sweep.csv"


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


def test_a_long_footnote_stays_inside_the_figure_and_under_the_axes():
    """Shapes are digits, statuses capitals: wider than an average character, so the notes are
    wrapped by their measured width (an estimate cut the FP16 chart's last words off); rotated
    shape labels stand taller than flat ones, and the room under the axes grows with them."""
    bench = pd.read_csv(DATA / "sweeps-h100" / "shapes-suite-9" / "bench.csv")  # non-square: rotated shapes
    square = (bench["M"] == bench["N"]) & (bench["N"] == bench["K"])
    bench = bench[bench["kernel"].isin(["cublas", "best"]) & ~square].assign(throttled=True)  # every shape noted
    bench[["M", "N", "K"]] += 10000  # five digits: long labels, wide notes
    fig, renderer = drawn(ladder_figure(bench))
    notes = by_gid(fig, "notes", Text)["notes"]
    box = notes.get_window_extent(renderer)
    assert notes.get_text().count("\n") >= 2  # long enough to wrap
    assert box.x0 >= 0 and box.x1 <= fig.bbox.x1
    assert all(box.y1 < ax.get_tightbbox(renderer).y0 for ax in fig.axes)


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
