"""`gemmprof compare` end to end: exit codes, --json, one-line errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from helpers.paths import DATA, REPO, SAMPLE_RUN

SAMPLE = SAMPLE_RUN

# rows of the sample sweep that passed verification and were timed (every kernel and size)
SAMPLE_TIMED = int((pd.read_parquet(SAMPLE / "bench.parquet")["status"] == "PASS").sum())

RESULTS = DATA / "gpu-check-h200"  # the first gpu-check: bench.csv with bench.run.json beside it


def gemmprof(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "profiler", *map(str, args)], check=False, capture_output=True, text=True,
                          cwd=REPO, timeout=120)


def make_run(path: Path, bench: pd.DataFrame, gpu: str = "NVIDIA H200") -> Path:
    path.mkdir(parents=True)
    (path / "run.json").write_text(json.dumps({"schema_version": 1, "environment": {"gpu_name": gpu}}))
    bench.to_csv(path / "bench.csv", index=False)
    return path


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
    """A bench.csv kept with bench.run.json beside it (as tests/data/gpu-check-h200 keeps it) is a run too."""
    result = gemmprof("compare", SAMPLE, RESULTS / "bench.csv")
    assert result.returncode == 0, result.stderr
    # the first bench (rungs 1-7 and cuBLAS at 4096) against the sample: those 8 rows at 4096
    # are in both, the sample's other rows are not in it
    assert "8 same" in result.stdout and f"{SAMPLE_TIMED - 8} removed" in result.stdout
    lonely = tmp_path / "bench.csv"
    shutil.copy(RESULTS / "bench.csv", lonely)
    result = gemmprof("compare", SAMPLE, lonely)
    assert result.returncode == 3 and "no run.json beside it" in result.stderr


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
