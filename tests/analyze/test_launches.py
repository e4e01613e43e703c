"""Launches of one kernel fold into one row (analyze.launches), and `analyze --rows` prints them."""

from __future__ import annotations


import pandas as pd
import pytest
from helpers.ncu_fixtures import fixtures, no_fixtures_reason
from helpers.analyze_cli import run

from profiler.analyze.launches import group_launches
from profiler.render.console import summary_headers, summary_rows
from profiler.extract.tables import read_tables
from helpers.paths import DATA

FIXTURES = fixtures()
pytestmark = [pytest.mark.ncu, pytest.mark.skipif(len(FIXTURES) < 2, reason=no_fixtures_reason())]


@pytest.fixture(scope="module")
def two_kernels() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The first launch of two fixture reports (different kernels), as `kernels` rows."""
    first, second = (read_tables(f.report, ["kernels"])["kernels"].iloc[:1] for f in FIXTURES[:2])
    return first, second


def many_launch_report(a: pd.DataFrame, b: pd.DataFrame, a_times: int, b_times: int) -> pd.DataFrame:
    """A kernels table as one report of a_times launches of a then b_times of b would give."""
    frame = pd.concat([a] * a_times + [b] * b_times, ignore_index=True)
    frame["launch"] = range(len(frame))
    frame["report"] = "many.ncu-rep"
    return frame


def test_launches_fold_per_kernel_with_totals_and_share(two_kernels):
    a, b = two_kernels
    kernels = many_launch_report(a, b, 3, 1)
    folded = group_launches(kernels)
    assert len(folded) == 2
    by_function = folded.set_index("function")
    fa, fb = by_function.loc[a["function"].iloc[0]], by_function.loc[b["function"].iloc[0]]
    assert (fa["launches"], fb["launches"]) == (3, 1)
    assert fa["first_launch"] == 0 and fb["first_launch"] == 3
    assert fa["total_duration_ns"] == pytest.approx(3 * a["duration_ns"].iloc[0])
    assert fa["duration_ns"] == pytest.approx(a["duration_ns"].iloc[0])  # the median launch
    assert fa["achieved_flops"] == pytest.approx(a["achieved_flops"].iloc[0])
    assert fa["top_stall"] == a["top_stall"].iloc[0] and fa["kernel"] == a["kernel"].iloc[0]
    total = 3 * a["duration_ns"].iloc[0] + b["duration_ns"].iloc[0]
    assert fa["share_pct"] == pytest.approx(100 * fa["total_duration_ns"] / total)
    assert folded["share_pct"].sum() == pytest.approx(100)
    assert folded["total_duration_ns"].is_monotonic_decreasing  # where the time goes, first


def test_a_different_shape_is_another_kernel(two_kernels):
    a, _ = two_kernels
    kernels = many_launch_report(a, a, 2, 2)
    kernels.loc[2:, "grid"] = "(1, 1, 1)"
    assert group_launches(kernels)["launches"].tolist() == [2, 2]


def test_reports_stay_apart_in_their_order(two_kernels):
    a, b = two_kernels
    one, two = many_launch_report(a, b, 1, 1), many_launch_report(a, b, 2, 1)
    two["report"] = "other.ncu-rep"
    folded = group_launches(pd.concat([two, one], ignore_index=True))
    assert folded["report"].tolist() == ["other.ncu-rep"] * 2 + ["many.ncu-rep"] * 2
    for _, shares in folded.groupby("report"):
        assert shares["share_pct"].sum() == pytest.approx(100)


def test_per_kernel_rows_formatting(two_kernels):
    a, b = two_kernels
    folded = group_launches(many_launch_report(a, b, 3, 1))
    rows = summary_rows(folded, per_kernel=True)
    assert all(len(r) == len(summary_headers(per_kernel=True)) for r in rows)
    top = folded.iloc[0]
    assert rows[0][0] == str(top["launches"])
    assert rows[0][3] == f"{top['total_duration_ns'] / 1e6:,.3f}"
    assert rows[0][4] == f"{top['share_pct']:.1f}%"


def test_rows_option_on_the_command_line(tmp_path):
    paths = [f.report for f in FIXTURES[:2]]
    per_kernel = run(*paths, "--rows", "kernel")
    assert per_kernel.exit_code == 0, per_kernel.output
    assert "launches" in per_kernel.stdout and "share" in per_kernel.stdout
    assert "2 reports  (2 launches of 2 kernels;" in per_kernel.stdout  # one table for both reports
    auto = run(*paths)  # a launch per report: auto lists launches
    assert auto.exit_code == 0 and "share" not in auto.stdout and "time" in auto.stdout.split()  # (its header may wrap)
    bad = run(*paths, "--rows", "kernels")
    assert bad.exit_code != 0 and "kernels" in bad.output


MANY = DATA / "many-h200" / "many_20launches.ncu-rep.xz"


@pytest.fixture(scope="module")
def many_kernels() -> pd.DataFrame:
    return read_tables(MANY, ["kernels"])["kernels"]


def test_real_many_launch_report_folds_into_its_three_kernels(many_kernels):
    """The report: 20 launches of naive, coalesced and smem in turn (tests/data/many-h200)."""
    assert many_kernels["launch"].tolist() == list(range(20))
    assert many_kernels["kernel"].tolist() == (["sgemm_naive", "sgemm_coalesced", "sgemm_smem"] * 7)[:20]
    folded = group_launches(many_kernels)
    assert dict(zip(folded["kernel"], folded["launches"])) == {"sgemm_naive": 7, "sgemm_coalesced": 7, "sgemm_smem": 6}
    assert folded["first_launch"].tolist() == [0, 1, 2]  # naive, the slowest, comes first
    for _, row in folded.iterrows():
        durations = many_kernels.loc[many_kernels["kernel"] == row["kernel"], "duration_ns"]
        assert row["total_duration_ns"] == pytest.approx(durations.sum())
        assert row["duration_ns"] == pytest.approx(durations.median())
    assert folded["share_pct"].sum() == pytest.approx(100)


def test_rows_auto_lists_a_short_report_per_launch_and_kernel_folds_it(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # wide enough that no kernel name folds
    listed = run(MANY)
    assert listed.exit_code == 0, listed.output
    assert "time µs" in listed.stdout and listed.stdout.count("sgemm_naive") == 7
    folded = run(MANY, "--rows", "kernel")
    assert folded.exit_code == 0, folded.output
    assert "20 launches of 3 kernels" in folded.stdout and folded.stdout.count("sgemm_naive") == 1


def test_in_ladder_order_puts_rungs_by_index_unknown_by_appearance_and_cublas_last():
    from profiler.analyze.launches import in_ladder_order
    from profiler.catalogue.manifest import load_manifest

    names = ["cublas", "zeta_fn", "smem", "cublas-fp16", "naive", "alpha_fn", "smem"]
    frame = pd.DataFrame({"kernel_key": names, "launch": range(len(names))})
    ordered = in_ladder_order(frame, load_manifest())
    assert ordered["kernel_key"].tolist() == ["naive", "smem", "smem", "zeta_fn", "alpha_fn", "cublas", "cublas-fp16"]
    assert ordered[ordered["kernel_key"] == "smem"]["launch"].tolist() == [2, 6]  # one kernel's rows keep their order
    assert frame["kernel_key"].tolist() == names  # the input is not reordered


def test_a_run_prints_one_table_in_ladder_order(monkeypatch):
    """A run of five reports (tests/data/profile-h200: four rungs and cuBLAS, written in name
    order) prints one table, its rows in ladder order with the reference last."""
    from helpers.paths import DATA

    monkeypatch.setenv("COLUMNS", "200")
    result = run(DATA / "profile-h200")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert sum("5 reports in " in line for line in lines) == 1  # one title: one table
    assert sum(line.startswith("┏") for line in lines) == 1
    rows = [line.split("│")[1].strip() for line in lines if line.startswith("│")]
    assert rows == ["naive", "smem", "vectorized", "warptile", "cublas"]
