"""The suite summary: geometric mean and minimum of % of cuBLAS per kernel and tier."""

import math

import pandas as pd
import pytest

from profiler.analyze.suite import summarize

SHAPES = [(512, 512, 512), (1000, 1000, 1000), (1024, 1024, 8192)]


def rows(kernel, pcts, tier="fp32", status="PASS"):
    return [{"kernel": kernel, "tier": tier, "M": m, "N": n, "K": k, "status": status, "pct_of_cublas": p}
            for (m, n, k), p in zip(SHAPES, pcts)]


def test_geomean_min_and_where_per_kernel():
    bench = pd.DataFrame(rows("a", [50.0, 200.0, 100.0]) + rows("cublas", [100.0] * 3))
    (row,) = summarize(bench, SHAPES).to_dict("records")
    assert row["kernel"] == "a" and row["geomean_pct_cublas"] == pytest.approx(100.0)
    assert row["min_pct_cublas"] == 50.0 and row["min_shape"] == "512x512x512"
    assert row["passed"] == row["shapes"] == 3 and row["covers"]


def test_a_kernel_that_skipped_a_shape_does_not_cover_the_suite():
    b = rows("a", [80.0, 90.0, 100.0])
    b[2]["status"] = "SKIP"
    (row,) = summarize(pd.DataFrame(b), SHAPES).to_dict("records")
    assert row["passed"] == 2 and not row["covers"]
    assert row["geomean_pct_cublas"] == pytest.approx(math.sqrt(80.0 * 90.0))


def test_shapes_outside_the_suite_and_tiers_are_kept_apart():
    b = rows("a", [10.0, 10.0, 10.0]) + rows("h", [40.0, 40.0, 40.0], tier="fp16")
    b.append({"kernel": "a", "tier": "fp32", "M": 4096, "N": 4096, "K": 4096, "status": "PASS", "pct_of_cublas": 1000.0})
    out = summarize(pd.DataFrame(b), SHAPES).set_index("kernel")
    assert out.loc["a", "geomean_pct_cublas"] == pytest.approx(10.0) and out.loc["h", "tier"] == "fp16"


def test_a_kernel_that_failed_everywhere_has_no_mean():
    (row,) = summarize(pd.DataFrame(rows("a", [None] * 3, status="FAIL")), SHAPES).to_dict("records")
    assert row["passed"] == 0 and math.isnan(row["geomean_pct_cublas"])


def test_a_run_of_a_suite_is_summarized_best_first_and_a_run_of_none_is_not():
    from profiler.analyze.suite import suite_of_run

    bench = pd.DataFrame(rows("slow", [50.0, 60.0, 70.0]) + rows("fast", [110.0, 120.0, 90.0]))
    meta = {"suite": {"name": "mine", "shapes": [list(s) for s in SHAPES]}}
    suite = suite_of_run(bench, meta)
    assert suite.name == "mine" and suite.shapes == tuple(SHAPES)
    assert list(suite.summary["kernel"]) == ["fast", "slow"]
    assert suite_of_run(bench, {}) is None and suite_of_run(None, meta) is None
    assert suite_of_run(bench, {"suite": {"name": "x", "shapes": []}}) is None
