"""`compare`: verdicts on synthetic bench tables with numbers checkable by hand, the key ncu
metrics, the real sample compared with itself, and `gemmprof compare` end to end (exit codes,
JSON, different GPUs)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers.paths import REPO, SAMPLE_RUN

from profiler.analyze.compare import (
    compare_bench,
    compare_kernels,
    environment_differences,
    gpu_of,
    judge_change,
    per_kernel_metrics,
    summarize,
)
from profiler.cli.compare import parse_threshold
from profiler.errors import GemmprofError
from profiler.manifest import load_manifest

SAMPLE = SAMPLE_RUN
# rows of the sample sweep that passed verification and were timed (every kernel and size)
SAMPLE_TIMED = int((pd.read_csv(SAMPLE / "bench.csv")["status"] == "PASS").sum()) if (SAMPLE / "bench.csv").is_file() else 0
RESULTS = REPO / "benchmarks" / "results" / "2026-11-22-h200"


def row(kernel, median, p10, p90, status="PASS", M=1024):
    flop = 2.0 * M ** 3
    return {"kernel": kernel, "M": M, "N": M, "K": M, "status": status,
            "median_ms": median if status == "PASS" else np.nan, "p10_ms": p10, "p90_ms": p90,
            "gflops": flop / (median * 1e-3) / 1e9 if status == "PASS" else np.nan, "pct_of_cublas": np.nan}


BASE = pd.DataFrame([
    row("slow", 1.00, 0.98, 1.02),    # -> 1.10 (1.08-1.12): +10%, spreads apart: slower
    row("noisy", 1.00, 0.90, 1.10),   # -> 1.05 (0.95-1.15): +5%, spreads overlap: noise
    row("small", 1.00, 0.99, 1.01),   # -> 1.02 (1.015-1.025): +2%, under 3%: same
    row("fast", 1.00, 0.98, 1.02),    # -> 0.80 (0.79-0.81): -20%: faster
    row("breaks", 1.00, 0.99, 1.01),  # -> FAIL: broken
    row("mends", np.nan, np.nan, np.nan, status="FAIL"),  # -> PASS: fixed
    row("gone", 1.00, 0.99, 1.01),    # only in the base: removed
])
NEW = pd.DataFrame([
    row("slow", 1.10, 1.08, 1.12),
    row("noisy", 1.05, 0.95, 1.15),
    row("small", 1.02, 1.015, 1.025),
    row("fast", 0.80, 0.79, 0.81),
    row("breaks", np.nan, np.nan, np.nan, status="FAIL"),
    row("mends", 1.00, 0.99, 1.01),
    row("new", 1.00, 0.99, 1.01),     # only in the new run: added
])


def test_verdicts_by_hand():
    table = compare_bench(BASE, NEW, threshold=0.03).set_index("kernel")
    assert table["verdict"].to_dict() == {
        "slow": "slower", "noisy": "noise", "small": "same", "fast": "faster", "breaks": "broken",
        "mends": "fixed", "gone": "removed", "new": "added"}
    assert table.index.tolist() == ["slow", "noisy", "small", "fast", "breaks", "mends", "gone", "new"]
    assert table.loc[table["regression"]].index.tolist() == ["slow", "breaks"]
    assert table.loc["slow", "time_change"] == pytest.approx(0.10)
    assert table.loc["slow", "gflops_change"] == pytest.approx(1 / 1.1 - 1)  # -9.1%
    assert table.loc["fast", "time_change"] == pytest.approx(-0.20)
    assert table.loc["noisy", "time_change"] == pytest.approx(0.05)
    assert np.isnan(table.loc["breaks", "time_change"])
    assert table.loc["breaks", "status_new"] == "FAIL" and pd.isna(table.loc["gone", "status_new"])
    assert summarize(compare_bench(BASE, NEW)) == {
        "slower": 1, "noise": 1, "same": 1, "faster": 1, "broken": 1, "fixed": 1, "removed": 1, "added": 1,
        "regressions": 2}


def test_threshold_moves_the_line():
    table = compare_bench(BASE, NEW, threshold=0.15).set_index("kernel")
    assert table.loc["slow", "verdict"] == "same" and not table.loc["slow", "regression"]
    assert table.loc["fast", "verdict"] == "faster"  # -20% is beyond 15%
    assert table.loc["breaks", "regression"]  # a failure is a regression at any threshold
    with pytest.raises(ValueError):
        compare_bench(BASE, NEW, threshold=-0.1)


def test_spread_edge_and_missing_spread():
    base = {"median_ms": 1.0, "p10_ms": 0.95, "p90_ms": 1.05}
    touching = {"median_ms": 1.1, "p10_ms": 1.05, "p90_ms": 1.15}  # new p10 == base p90: still overlapping
    assert judge_change("PASS", "PASS", base, touching, 0.03) == ("noise", pytest.approx(0.1))
    no_spread = {"median_ms": 1.0, "p10_ms": np.nan, "p90_ms": np.nan}
    slower = {"median_ms": 1.1, "p10_ms": np.nan, "p90_ms": np.nan}
    assert judge_change("PASS", "PASS", no_spread, slower, 0.03)[0] == "slower"
    assert judge_change("PASS", "SKIP", base, no_spread, 0.03)[0] == "broken"  # PASS -> anything else is a regression
    assert judge_change("FAIL", "ERROR", no_spread, no_spread, 0.03)[0] == "not timed"
    assert judge_change("PASS", "ERROR", base, no_spread, 0.03)[0] == "broken"


def test_inputs_are_not_mutated():
    base, new = BASE.copy(), NEW.copy()
    compare_bench(base, new)
    pd.testing.assert_frame_equal(base, BASE)
    pd.testing.assert_frame_equal(new, NEW)


def test_sample_with_itself_is_all_same():
    bench = pd.read_parquet(SAMPLE / "bench.parquet")
    table = compare_bench(bench, bench)
    assert len(table) == (bench["status"] == "PASS").sum() == SAMPLE_TIMED  # every timed row, once
    assert set(table["verdict"]) == {"same"} and not table["regression"].any()
    assert (table["time_change"] == 0).all()


def test_key_metrics_sum_launches_and_compare():
    def launch(key, ns, dram, occupancy):
        return {"kernel_key": key, "function": key, "M": 64, "N": 64, "K": 64, "fp32_flop": 1e6, "tensor_flop": 0.0,
                "duration_ns": ns, "dram_bytes": dram, "l2_bytes": 10.0, "shared_bank_conflicts": 0.0,
                "achieved_occupancy_pct": occupancy, "registers_per_thread": 32, "sm_clock_hz": 1e9}

    base = pd.DataFrame([launch("cublas", 1000, 100, 50), launch("cublas", 3000, 300, 25), launch("naive", 1000, 100, 90)])
    per = per_kernel_metrics(base).set_index("kernel")
    assert per.loc["cublas", "duration_ns"] == 4000 and per.loc["cublas", "dram_bytes"] == 400
    assert per.loc["cublas", "achieved_occupancy_pct"] == 25  # the longest launch's
    assert per.loc["cublas", "achieved_flops"] == pytest.approx(2e6 / 4e-6)
    new = pd.DataFrame([launch("cublas", 1000, 100, 50), launch("cublas", 3000, 300, 25), launch("naive", 2000, 150, 90)])
    metrics = compare_kernels(base, new).set_index(["kernel", "metric"])
    assert metrics.loc[("naive", "duration_ns"), "change"] == pytest.approx(1.0)
    assert metrics.loc[("naive", "achieved_flops"), "change"] == pytest.approx(-0.5)
    assert metrics.loc[("naive", "dram_bytes"), "change"] == pytest.approx(0.5)
    assert metrics.loc[("naive", "dram_bytes"), "unit"] == "byte"
    assert metrics.loc[("cublas", "duration_ns"), "change"] == 0


def test_sample_kernels_with_itself():
    kernels = pd.read_parquet(SAMPLE / "kernels.parquet")
    metrics = compare_kernels(kernels, kernels)
    # the sample holds the ladder up to wgmma (rungs added since were not captured) and both references
    captured = {s.name for s in load_manifest() if s.index <= next(k.index for k in load_manifest() if k.name == "wgmma")}
    assert set(metrics["kernel"]) == set(kernels["kernel_key"]) == captured | {"cublas", "cublas-fp16"}
    assert (metrics["change"].dropna() == 0).all()


def test_gpu_and_environment():
    meta = json.loads((SAMPLE / "run.json").read_text())
    assert gpu_of(meta) == "NVIDIA H200"
    assert gpu_of({}, pd.DataFrame({"gpu": ["NVIDIA A100"]})) == "NVIDIA A100"
    assert gpu_of({}) is None
    other = {"environment": {**meta["environment"], "driver": "999.0", "gpu_name": "NVIDIA A100"}}
    assert environment_differences(meta, other) == [("GPU", "NVIDIA H200", "NVIDIA A100"),
                                                    ("driver", meta["environment"]["driver"], "999.0")]


@pytest.mark.parametrize("text, value", [("3%", 0.03), ("3", 0.03), ("0.5 %", 0.005), ("0", 0.0)])
def test_parse_threshold(text, value):
    assert parse_threshold(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["-1%", "abc", "nan"])
def test_parse_threshold_rejects(text):
    with pytest.raises(GemmprofError):
        parse_threshold(text)


# --- gemmprof compare, end to end ---------------------------------------------------------------


def gemmprof(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "profiler", *map(str, args)], check=False, capture_output=True, text=True,
                          cwd=REPO, timeout=120)


def make_run(path: Path, bench: pd.DataFrame, gpu: str = "NVIDIA H200") -> Path:
    path.mkdir(parents=True)
    (path / "run.json").write_text(json.dumps({"schema_version": 1, "environment": {"gpu_name": gpu}}))
    bench.to_csv(path / "bench.csv", index=False)
    return path


def test_cli_sample_with_itself_exits_0():
    result = gemmprof("compare", SAMPLE, SAMPLE)
    assert result.returncode == 0, result.stderr
    assert f"0 regression(s) ({SAMPLE_TIMED} same)" in result.stdout
    assert "Nsight Compute metrics" in result.stdout  # both runs were profiled
    assert "warptile" in result.stdout and "Traceback" not in result.stderr


def test_cli_json(tmp_path):
    result = gemmprof("compare", SAMPLE, SAMPLE, "--json", "--threshold", "5%")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["threshold"] == 0.05 and data["gpu"] == {"base": "NVIDIA H200", "new": "NVIDIA H200"}
    assert data["summary"] == {"same": SAMPLE_TIMED, "regressions": 0}
    assert len(data["bench"]) == SAMPLE_TIMED and data["bench"][0]["verdict"] == "same"
    assert len(data["kernels"]) > 0 and data["warnings"] == []


def test_cli_regression_exits_1(tmp_path):
    bench = pd.read_parquet(SAMPLE / "bench.parquet")
    slower = bench.copy()
    pick = (slower["kernel"] == "warptile") & (slower["M"] == 4096)
    for column in ("median_ms", "p10_ms", "p90_ms"):
        slower.loc[pick, column] *= 1.10
    slower.loc[pick, "gflops"] /= 1.10
    new = make_run(tmp_path / "new", slower)
    result = gemmprof("compare", SAMPLE, new)
    assert result.returncode == 1, result.stderr
    assert "1 regression(s)" in result.stdout and "slower" in result.stdout and "+10.0%" in result.stdout
    data = json.loads(gemmprof("compare", SAMPLE, new, "--json").stdout)
    regressions = [r for r in data["bench"] if r["regression"]]
    assert [(r["kernel"], r["M"], r["verdict"]) for r in regressions] == [("warptile", 4096, "slower")]
    # inside a 15% threshold it is not a regression
    assert gemmprof("compare", SAMPLE, new, "--threshold", "15%").returncode == 0


def test_cli_pass_to_fail_exits_1(tmp_path):
    bench = pd.read_parquet(SAMPLE / "bench.parquet")
    failed = bench.copy()
    pick = (failed["kernel"] == "smem") & (failed["M"] == 512)
    failed.loc[pick, "status"] = "FAIL"
    failed.loc[pick, ["median_ms", "p10_ms", "p90_ms", "gflops"]] = np.nan
    result = gemmprof("compare", SAMPLE, make_run(tmp_path / "new", failed))
    assert result.returncode == 1 and "broken (PASS -> FAIL)" in result.stdout


def test_cli_different_gpus(tmp_path):
    bench = pd.read_parquet(SAMPLE / "bench.parquet")
    other = make_run(tmp_path / "a100", bench, gpu="NVIDIA A100-SXM4-80GB")
    result = gemmprof("compare", SAMPLE, other)
    assert result.returncode == 2
    assert "different GPUs" in result.stderr and "--allow-different-gpus" in result.stderr
    assert "Traceback" not in result.stderr
    allowed = gemmprof("compare", SAMPLE, other, "--allow-different-gpus")
    assert allowed.returncode == 0, allowed.stderr
    assert "WARNING:" in allowed.stderr and "different GPUs" in allowed.stderr
    data = json.loads(gemmprof("compare", SAMPLE, other, "--allow-different-gpus", "--json").stdout)
    assert data["warnings"] and "different GPUs" in data["warnings"][0]


@pytest.mark.parametrize("setup, message", [
    (lambda tmp: tmp / "missing", "no such file"),
    (lambda tmp: [(tmp / "empty").mkdir(), tmp / "empty"][-1], "not a gemmprof run"),
    (lambda tmp: [(tmp / "r").mkdir(), (tmp / "r" / "run.json").write_text('{"schema_version": 1}'), tmp / "r"][-1],
     "has no bench table"),
    (lambda tmp: [(tmp / "r").mkdir(), (tmp / "r" / "run.json").write_text('{"schema_version": 99}'), tmp / "r"][-1],
     "schema version 99"),
])
def test_cli_wrong_input_is_one_line(tmp_path, setup, message):
    result = gemmprof("compare", SAMPLE, setup(tmp_path))
    assert result.returncode == 3, result.stdout  # a run compare cannot read: not "no regression"
    assert message in result.stderr and "Traceback" not in result.stderr


def test_cli_bench_csv_with_run_json_beside_it(tmp_path):
    """benchmarks/results keeps bench.csv with bench.run.json beside it: that is a run too."""
    result = gemmprof("compare", SAMPLE, RESULTS / "bench.csv")
    assert result.returncode == 0, result.stderr
    # the session-1 bench (rungs 1-7 and cuBLAS at 4096) against the sample: those 8 rows at 4096
    # are in both, the sample's other rows are not in it
    assert "8 same" in result.stdout and f"{SAMPLE_TIMED - 8} removed" in result.stdout
    lonely = tmp_path / "bench.csv"
    shutil.copy(RESULTS / "bench.csv", lonely)
    result = gemmprof("compare", SAMPLE, lonely)
    assert result.returncode == 3 and "no run.json beside it" in result.stderr


# --- runs compare must not trust (exit 3), and regressions it used to miss (issue 12) ------------


def test_pass_to_skip_and_pass_without_a_time_are_regressions():
    base = pd.DataFrame([row("a", 1.0, 0.99, 1.01), row("b", 1.0, 0.99, 1.01), row("c", 1.0, 0.99, 1.01)])
    new = pd.DataFrame([row("a", 1.0, 0.99, 1.01, status="SKIP"), row("b", 1.0, 0.99, 1.01), row("c", 1.0, 0.99, 1.01)])
    new.loc[1, "median_ms"] = np.nan  # b: PASS with no time
    table = compare_bench(base, new).set_index("kernel")
    assert table["verdict"].to_dict() == {"a": "broken", "b": "unmeasured", "c": "same"}
    assert table["regression"].to_dict() == {"a": True, "b": True, "c": False}


def test_zero_base_median_is_no_traceback():
    base = pd.DataFrame([row("a", 1.0, 0.99, 1.01)]).assign(median_ms=0.0, gflops=0.0)
    table = compare_bench(base, pd.DataFrame([row("a", 1.0, 0.99, 1.01)]))
    assert table.loc[0, "verdict"] == "not timed" and np.isnan(table.loc[0, "gflops_change"])


def bad_new_run(tmp_path, kind):
    bench = pd.read_parquet(SAMPLE / "bench.parquet")
    path = tmp_path / "new"
    if kind == "incomplete":  # an interrupted bench: only the cuBLAS rows
        make_run(path, bench[bench["kernel"].str.startswith("cublas")])
        meta = json.loads((path / "run.json").read_text())
        (path / "run.json").write_text(json.dumps({**meta, "complete": False}))
    elif kind == "empty":
        make_run(path, bench)
        (path / "bench.csv").write_text("")
    elif kind == "header only":
        make_run(path, bench.head(0))
    elif kind == "no kernel column":
        make_run(path, bench.drop(columns="kernel"))
    elif kind == "no median column":
        make_run(path, bench.drop(columns="median_ms"))
    elif kind == "times as strings":
        make_run(path, bench.assign(median_ms=bench["median_ms"].astype(str).str.replace(".", ",", regex=False)))
    elif kind == "negative times":
        make_run(path, bench.assign(median_ms=-bench["median_ms"]))
    elif kind == "zero times":
        make_run(path, bench.assign(median_ms=0.0))
    elif kind == "truncated parquet":
        make_run(path, bench)
        (path / "bench.csv").unlink()
        data = (SAMPLE / "bench.parquet").read_bytes()
        (path / "bench.parquet").write_bytes(data[: len(data) // 3])
    return path


@pytest.mark.parametrize("kind, fragment", [
    ("incomplete", "is incomplete"), ("empty", "is empty"), ("header only", "holds no rows"),
    ("no kernel column", "no column 'kernel'"), ("no median column", "no column 'median_ms'"),
    ("times as strings", "column 'median_ms' holds a non-number"), ("negative times", "must be above zero"),
    ("zero times", "must be above zero"), ("truncated parquet", "bench.parquet cannot be read"),
])
def test_cli_untrustworthy_run_exits_3(tmp_path, kind, fragment):
    new = bad_new_run(tmp_path, kind)
    for args in ((SAMPLE, new), (new, SAMPLE)):  # either side
        result = gemmprof("compare", *args)
        assert result.returncode == 3, (kind, result.stdout, result.stderr)
        assert fragment in result.stderr and "Traceback" not in result.stderr + result.stdout
        assert len(result.stderr.strip().splitlines()) == 1


def test_cli_pass_to_skip_exits_1(tmp_path):
    bench = pd.read_parquet(SAMPLE / "bench.parquet")
    pick = (bench["kernel"] == "smem") & (bench["M"] == 512)
    bench.loc[pick, "status"] = "SKIP"
    result = gemmprof("compare", SAMPLE, make_run(tmp_path / "new", bench))
    assert result.returncode == 1 and "broken (PASS -> SKIP)" in result.stdout


def test_compare_help_documents_exit_3():
    assert "3 a run is incomplete" in " ".join(gemmprof("compare", "--help").stdout.split()).replace("│", "").replace("  ", " ")
