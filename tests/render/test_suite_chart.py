"""The suite heatmap: kernels down (best first), the suite's shapes across in its order, % of
cuBLAS in each cell, nothing where a kernel did not pass."""

import math

import pandas as pd
import pytest

from profiler.errors import GemmprofError
from profiler.render.suite_chart import suite_figure, suite_frame

SHAPES = [(4096, 4096, 4096), (16, 4096, 4096), (128, 128, 65536)]


def rows(kernel, pcts, tier="fp32", statuses=None):
    statuses = statuses or ["PASS"] * len(pcts)
    return [{"kernel": kernel, "tier": tier, "M": m, "N": n, "K": k, "status": st, "pct_of_cublas": p}
            for (m, n, k), p, st in zip(SHAPES, pcts, statuses)]


def bench():
    return pd.DataFrame(rows("slow", [50.0, 40.0, 30.0]) + rows("fast", [105.0, 90.0, 80.0], statuses=["PASS", "FAIL", "PASS"])
                        + rows("cublas", [100.0] * 3) + rows("half", [70.0] * 3, tier="fp16"))


def test_kernels_best_first_shapes_in_the_suites_order_and_no_number_where_it_failed():
    frame = suite_frame(bench(), SHAPES)
    assert list(frame.index) == ["fast", "slow"]  # cuBLAS is the 100, not a row; fp16 apart
    assert list(frame.columns) == ["4096x4096x4096", "16x4096x4096", "128x128x65536"]
    assert frame.loc["fast", "4096x4096x4096"] == 105.0 and math.isnan(frame.loc["fast", "16x4096x4096"])
    assert list(suite_frame(bench(), SHAPES, tier="fp16").index) == ["half"]


def test_the_figure_labels_each_cell_and_counts_the_grey_ones():
    fig = suite_figure(bench(), SHAPES, "suite t, fp32: % of cuBLAS")
    ax = fig.axes[0]
    labels = sorted(t.get_text() for t in ax.texts)
    assert labels == sorted(["105", "80", "50", "40", "30"])  # five passed cells, one failed
    assert [t.get_text() for t in ax.get_xticklabels()] == ["fast", "slow"]  # few kernels: across
    assert [t.get_text() for t in ax.get_yticklabels()] == ["4096x4096x4096", "16x4096x4096", "128x128x65536"]
    notes = [t.get_text() for t in fig.texts if t.get_gid() == "notes"]
    assert notes and "1 grey cells" in notes[0]


def test_a_tier_with_nothing_passed_is_one_line():
    with pytest.raises(GemmprofError, match="no fp32-tc kernel passed"):
        suite_figure(bench(), SHAPES, "t", tier="fp32-tc")


def test_many_kernels_run_down_and_the_shapes_across():
    many = pd.concat([bench(), *(pd.DataFrame(rows(f"k{i}", [60.0 + i] * 3)) for i in range(3))])
    ax = suite_figure(many, SHAPES, "t").axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["fast", "k2", "k1", "k0", "slow"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["4096x4096x4096", "16x4096x4096", "128x128x65536"]
