"""Runs merge and resume: a re-bench into a run keeps the earlier rows (newest per kernel, shape and
tier wins), the bench table is rebuilt from bench.jsonl after an interrupted bench, and SIGTERM
during bench is handled like Ctrl-C (real subprocesses, GPU parts replaced by
tests/helpers/bench_fakes.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from helpers import bench_fakes
from helpers.paths import REPO
from helpers.processes import interruptible
from profiler.runs.bench_log import as_table, merge_rows, read_log, stale_bench_table
from profiler.cli import app
from profiler.errors import GemmprofWarning
from profiler.runs.rundir import RunDir
from profiler.subprocess_env import child_env


def rows(*items):
    return pd.DataFrame([bench_fakes.fake_record(k, "fp32", (n, n, n), ms) for k, n, ms in items])


def test_merge_keeps_earlier_rows_and_newest_wins():
    earlier = rows(("naive", 512, 2.0), ("naive", 1024, 9.0), ("smem", 512, 1.0))
    newer = rows(("naive", 1024, 8.0), ("warptile", 1024, 0.5))
    merged, replaced = merge_rows(earlier, newer)
    assert replaced == 1
    got = {(r["kernel"], r["M"]): r["median_ms"] for r in merged.to_dict("records")}
    assert got == {("naive", 512): 2.0, ("naive", 1024): 8.0, ("smem", 512): 1.0, ("warptile", 1024): 0.5}


def test_merge_keys_on_tier_too():
    earlier = rows(("k", 512, 2.0))
    newer = rows(("k", 512, 1.0)).assign(tier="fp16")
    merged, replaced = merge_rows(earlier, newer)
    assert replaced == 0 and len(merged) == 2


def test_a_csv_row_and_a_record_of_one_shape_are_one_key(tmp_path):
    """The earlier table comes back from CSV (M as int64), the new rows from records: same key."""
    rows(("naive", 512, 2.0)).to_csv(tmp_path / "b.csv", index=False)
    merged, replaced = merge_rows(pd.read_csv(tmp_path / "b.csv"), rows(("naive", 512, 1.0)))
    assert replaced == 1 and merged["median_ms"].tolist() == [1.0]


def test_read_log_skips_a_cut_line_with_a_warning(tmp_path):
    log = tmp_path / "bench.jsonl"
    log.write_text(json.dumps(bench_fakes.fake_record("naive", "fp32", (64, 64, 64))) + "\n" + '{"kernel": "sm')
    with pytest.warns(GemmprofWarning, match=r"bench.jsonl:2: not a JSON object"):
        assert [r["kernel"] for r in read_log(log)] == ["naive"]


def test_all_error_rows_still_make_a_bench_table():
    table = as_table([{"kernel": "naive", "tier": "fp32", "M": 64, "N": 64, "K": 64, "status": "ERROR"}])
    assert "median_ms" in table.columns and table["median_ms"].isna().all()


def make_run(path: Path, table: pd.DataFrame | None, log_rows: pd.DataFrame | None, log_newer: bool = True) -> RunDir:
    path.mkdir(parents=True)
    (path / "run.json").write_text(json.dumps({"schema_version": 1, "complete": False}))
    run = RunDir(path)
    if table is not None:
        run.write_table("bench", table)
    if log_rows is not None:
        (path / "bench.jsonl").write_text("".join(json.dumps(r) + "\n" for r in log_rows.to_dict("records")))
        if table is not None:
            stamp = (path / "bench.parquet").stat().st_mtime_ns + (10**9 if log_newer else -(10**9))
            os.utime(path / "bench.jsonl", ns=(stamp, stamp))
    return run


def test_missing_table_is_rebuilt_from_the_log(tmp_path):
    run = make_run(tmp_path / "r", None, rows(("naive", 512, 2.0), ("smem", 512, 1.0)))
    assert run.has_table("bench")
    with pytest.warns(GemmprofWarning, match="rebuilt"):
        table = run.read_table("bench")
    assert sorted(table["kernel"]) == ["naive", "smem"]
    assert (run.path / "bench.csv").is_file() and not stale_bench_table(run)


def test_table_older_than_the_log_is_rebuilt_and_merged(tmp_path):
    """SIGKILL mid-bench: the old table, plus the log of the earlier bench and the new rows."""
    old = rows(("naive", 512, 2.0), ("smem", 512, 1.0))
    log = pd.concat([old, rows(("naive", 512, 1.5), ("warptile", 512, 0.4))])
    run = make_run(tmp_path / "r", old, log)
    assert stale_bench_table(run)
    with pytest.warns(GemmprofWarning):
        table = run.read_table("bench")
    got = {r["kernel"]: r["median_ms"] for r in table.to_dict("records")}
    assert got == {"naive": 1.5, "smem": 1.0, "warptile": 0.4}


def test_table_newer_than_the_log_is_read_as_is(tmp_path):
    run = make_run(tmp_path / "r", rows(("naive", 512, 2.0)), rows(("naive", 512, 9.0)), log_newer=False)
    assert not stale_bench_table(run)
    assert run.read_table("bench")["median_ms"].tolist() == [2.0]


# --- gemmprof bench, in process with the GPU parts replaced --------------------------------------


def bench(tmp_path, *args):
    return CliRunner().invoke(app, ["bench", "--out", str(tmp_path), "--run-id", "r", *args])


def test_rebench_into_a_run_merges_rows(tmp_path, monkeypatch):
    bench_fakes.patch(monkeypatch.setattr, median=2.0)
    first = bench(tmp_path, "-k", "naive", "--sizes", "64,128")
    assert first.exit_code == 0, first.output
    bench_fakes.patch(monkeypatch.setattr, median=1.0)
    second = bench(tmp_path, "-k", "smem", "--sizes", "128")
    assert second.exit_code == 0, second.output
    assert " ".join(second.output.split()).count("already holds 4 bench rows") == 1  # the note, once
    table = pd.read_csv(tmp_path / "r" / "bench.csv")
    got = {(r["kernel"], r["M"]): r["median_ms"] for r in table.to_dict("records")}
    assert got == {("cublas", 64): 2.0, ("cublas", 128): 1.0, ("naive", 64): 2.0, ("naive", 128): 2.0,
                   ("smem", 128): 1.0}  # cuBLAS at 128 re-timed: the newer row; the rest kept
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert meta["complete"] is True and meta["kernels"] == ["naive", "smem"]
    assert meta["shapes"] == [[64, 64, 64], [128, 128, 128]]


# --- signals ------------------------------------------------------------------------------------


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_during_bench_keeps_finished_rows(tmp_path, sig, code):
    earlier = tmp_path / "r"
    earlier.mkdir()
    (earlier / "run.json").write_text(json.dumps({"schema_version": 1, "complete": True}))
    rows(("old", 64, 3.0)).to_csv(earlier / "bench.csv", index=False)
    proc = subprocess.Popen([sys.executable, bench_fakes.__file__, "--hang", "bench", "-k", "naive",
                             "--sizes", "64,128", "--out", str(tmp_path), "--run-id", "r"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env(), cwd=REPO,
                            preexec_fn=interruptible)
    deadline = time.time() + 60
    while time.time() < deadline:  # wait for the cuBLAS rows
        log = earlier / "bench.jsonl"
        if log.is_file() and len(log.read_text().splitlines()) == 2:
            break
        time.sleep(0.1)
    time.sleep(0.5)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert "Traceback" not in out + err and "interrupted: partial run" in out
    table = pd.read_csv(earlier / "bench.csv")
    assert sorted(zip(table["kernel"], table["M"])) == [("cublas", 64), ("cublas", 128), ("old", 64)]
    assert json.loads((earlier / "run.json").read_text())["complete"] is False
    assert "partial run" in out
