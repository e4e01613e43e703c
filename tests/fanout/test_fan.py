"""`--gpus` and Dask without a GPU: the profile job list run by the serial path, by `gemmprof
profile` itself and by a Dask cluster of two in-process workers (the stand-in ncu of
test_profile_cli writes real captured reports) must merge into the same tables; a job that fails
once is retried, one that fails twice is reported and the others finish."""

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from helpers.ncu_fixtures import fake_ncu  # noqa: F401  (the stand-in ncu fixture)
from profiler.cli import app
from profiler.fanout.fan import Plan, bench_failed, fan_bench, fan_profile
from profiler.fanout.gpus import Gpu
from profiler.catalogue.manifest import select_kernels
from profiler.measure.jobs import BenchWork, bench_jobs, profile_jobs
from profiler.runs.rundir import RunDir

SHAPE = (512, 256, 128)
TWO = [Gpu("0", "GPU-aaa", "NVIDIA H200", 1980, 3201), Gpu("1", "GPU-bbb", "NVIDIA H200", 1980, 3201)]
TIMING = {"report", "ncu_wall_s", "job_wall_s", "attempts"}  # columns that differ run to run


def fanned_profile(tmp_path, name, plan):
    from profiler import metrics
    from profiler.extract.run import extract_run
    from profiler.measure.ncu import NcuOptions, resolve_ncu

    specs = select_kernels(["naive", "smem"])
    run = RunDir.create(tmp_path / name, {"kind": "profile", "command": ["test"], "created": "now", "environment": {}})
    opts = NcuOptions(ncu=resolve_ncu(None), extra_metrics=metrics.ncu_extra_metrics())
    ledger, background = fan_profile(run, profile_jobs(["fp32"], specs, SHAPE), {s.name: "/nonexistent.cubin" for s in specs},
                                     opts, plan)
    for proc in background:
        proc.wait()
    return run, ledger, extract_run(run)["kernels"]


def comparable(kernels: pd.DataFrame) -> pd.DataFrame:
    return kernels.drop(columns=[c for c in kernels.columns if c in TIMING]).sort_values("kernel_key").reset_index(drop=True)


@pytest.mark.ncu
def test_dask_profile_merges_into_the_same_tables_as_the_serial_path(fake_ncu, tmp_path):
    serial_run, serial, serial_kernels = fanned_profile(tmp_path, "serial", Plan(TWO[:1]))
    dask_run, fanned, dask_kernels = fanned_profile(tmp_path, "dask", Plan(TWO, processes=False))
    cli = CliRunner().invoke(app, ["profile", "--out", str(tmp_path), "--run-id", "cli", "-k", "naive", "-k", "smem", "-k", "cublas",
                                   "--mnk", *map(str, SHAPE)])
    assert cli.exit_code == 0, cli.output
    cli_kernels = pd.read_parquet(tmp_path / "cli" / "kernels.parquet")
    assert sorted(dask_kernels["kernel_key"]) == ["cublas", "naive", "smem"]
    pd.testing.assert_frame_equal(comparable(dask_kernels), comparable(serial_kernels))
    pd.testing.assert_frame_equal(comparable(dask_kernels), comparable(cli_kernels))
    names = sorted(p.name for p in (dask_run.path / "ncu").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "cli" / "ncu").iterdir())
    records = [json.loads(line) for line in (dask_run.path / "profile.jsonl").read_text().splitlines()]
    assert sorted(r["kernel"] for r in records) == ["cublas", "naive", "smem"]
    assert {r["gpu_uuid"] for r in records} <= {"GPU-aaa", "GPU-bbb"} and all(r["gpu_name"] == "NVIDIA H200" for r in records)
    meta = fanned.meta()
    assert meta["scheduler"] == "dask-local" and serial.meta()["scheduler"] == "serial"
    assert len(meta["jobs"]) == 3 and sum(meta["gpu_wall_s"].values()) == pytest.approx(sum(j["wall_s"] for j in meta["jobs"]), abs=0.01)


FLAKY: dict[str, int] = {}


def test_bench_rows_carry_their_gpu_and_an_error_row_is_retried(monkeypatch):
    import profiler.fanout.fan as fan

    calls = []

    def fake_execute(job, cubin, policy, pin):
        calls.append((job.kernel, pin))
        status = "ERROR" if job.kernel == "naive" and len([c for c in calls if c[0] == "naive"]) == 1 else "PASS"
        M, N, K = job.shape
        return [{"kernel": job.kernel, "tier": job.tier, "M": M, "N": N, "K": K, "status": status, **job.row}]

    monkeypatch.setattr(fan, "execute_bench", fake_execute)
    specs = select_kernels(["naive", "smem"])
    jobs = bench_jobs(BenchWork(specs, [(64, 64, 64), (128, 128, 128)]))
    rows = []
    ledger = fan_bench(jobs, {s.name: "/nonexistent.cubin" for s in specs}, None, Plan(TWO, processes=False), rows.append)
    assert len(rows) == 6 and all(r["status"] == "PASS" for r in rows)  # cuBLAS, naive, smem at two shapes
    assert {r["gpu_index"] for r in rows} <= {"0", "1"} and all(r["gpu_name"] == "NVIDIA H200" for r in rows)
    assert sorted(r["attempts"] for r in rows) == [1, 1, 1, 1, 1, 2]
    assert not ledger.failures and len(ledger.meta()["jobs"]) == 7


def test_bench_failed_names_the_error():
    assert bench_failed([{"status": "PASS"}]) is None
    assert bench_failed([{"status": "ERROR", "reason": "illegal address"}]) == "illegal address"


def test_bench_jobs_travel_in_batches_and_every_shape_comes_back(monkeypatch):
    """A suite's rows go to the workers a few dozen at a time, one kernel to a batch (a worker
    child per row would spend a GPU's time starting); every shape gets its row, and a batch that
    fails twice gives an ERROR row for each of its shapes."""
    import profiler.fanout.fan as fan
    from profiler.measure.jobs import batched

    children = []

    def fake_execute(job, cubin, policy, pin):
        children.append(job)
        status = "ERROR" if job.kernel == "smem" and job.shape == (64, 64, 64) else "PASS"
        return [{"kernel": job.kernel, "tier": job.tier, "M": M, "N": N, "K": K, "status": status, **job.row}
                for M, N, K in job.shapes]

    monkeypatch.setattr(fan, "execute_bench", fake_execute)
    specs = select_kernels(["naive", "smem"])
    shapes = [(64 * (i + 1), 64, 64) for i in range(40)]
    jobs = bench_jobs(BenchWork(specs, shapes))  # cuBLAS, naive, smem: 120 jobs
    rows = []
    fan_bench(jobs, {s.name: "/nonexistent.cubin" for s in specs}, None, Plan(TWO, processes=False), rows.append)
    assert sorted((r["kernel"], r["M"]) for r in rows) == sorted((j.kernel, j.shape[0]) for j in jobs)
    assert len(children) == 15 + 1  # 120 jobs in batches of 8 (8 a GPU), the failing batch twice
    assert all(len({j.kernel for j in batched([c], 99)}) == 1 and len(c.shapes) == 8 for c in children)
    failed = [r for r in rows if r["status"] == "ERROR"]
    assert sorted(r["M"] for r in failed) == [64 * (i + 1) for i in range(8)] and all(r["kernel"] == "smem" for r in failed)
    assert batched(jobs, 1) == jobs and len(batched(jobs, 1000)) == 3  # never across kernels
    assert all(type(c).from_dict(c.to_dict()) == c for c in children)  # a batch travels as JSON whole
