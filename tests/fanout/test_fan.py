"""`--gpus` and Dask without a GPU: the profile job list run by the serial path, by `gemmprof
profile` itself and by a Dask cluster of two in-process workers (the stand-in ncu of
test_profile_cli writes real captured reports) must merge into the same tables; a job that fails
once is retried, one that fails twice is reported and the others finish."""

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from helpers.ncu_fixtures import fake_ncu  # noqa: F401  (the stand-in ncu fixture)
from profiler.cli import app
from profiler.errors import GemmprofError
from profiler.fanout.fan import Plan, bench_failed, fan_bench, fan_profile
from profiler.fanout.gpus import Gpu, check_one_model, parse_gpus
from profiler.fanout.runner import run_cluster, run_serial
from profiler.manifest import select_kernels
from profiler.measure.jobs import Job, bench_jobs, profile_jobs
from profiler.rundir import RunDir

SHAPE = (512, 256, 128)
TWO = [Gpu("0", "GPU-aaa", "NVIDIA H200", 1980, 3201), Gpu("1", "GPU-bbb", "NVIDIA H200", 1980, 3201)]
TIMING = {"report", "ncu_wall_s", "job_wall_s", "attempts"}  # columns that differ run to run


def fanned_profile(tmp_path, name, plan):
    from profiler.extract import metrics
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


def test_cli_profile_with_gpus_on_dask(fake_ncu, tmp_path, monkeypatch):
    """`gemmprof profile --gpus 0,1` end to end: one run, a fanout section in run.json."""
    import profiler.fanout.cluster as cluster
    import profiler.fanout.gpus as gpus

    monkeypatch.setattr(gpus, "list_gpus", lambda: TWO)
    real = cluster.open_client  # in-process workers: no GPU to pin here
    monkeypatch.setattr(cluster, "open_client", lambda pins, scheduler=None, processes=True: real(pins, scheduler, False))
    result = CliRunner().invoke(app, ["profile", "--out", str(tmp_path), "--run-id", "r", "-k", "naive", "-k", "cublas",
                                      "--mnk", *map(str, SHAPE), "--gpus", "0,1"])
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert [g["uuid"] for g in meta["fanout"]["gpus"]] == ["GPU-aaa", "GPU-bbb"]
    assert sorted(j["job"] for j in meta["fanout"]["jobs"]) == ["profile:cublas:fp32:512x256x128", "profile:naive:fp32:512x256x128"]
    assert sorted(pd.read_parquet(tmp_path / "r" / "kernels.parquet")["kernel_key"]) == ["cublas", "naive"]


FLAKY: dict[str, int] = {}


def flaky_task(job: Job, pin: str) -> list[dict]:
    """Fails the first attempt of 'once' and every attempt of 'never'."""
    FLAKY[job.kernel] = FLAKY.get(job.kernel, 0) + 1
    if job.kernel == "never" or (job.kernel == "once" and FLAKY[job.kernel] == 1):
        raise RuntimeError(f"{job.kernel} faulted on GPU {pin}")
    return [{"kernel": job.kernel, "status": "PASS"}]


@pytest.mark.parametrize("where", ["serial", "dask"])
def test_a_job_failing_once_is_retried_and_twice_is_reported(where):
    from profiler.fanout.cluster import open_client

    FLAKY.clear()
    jobs = [Job("bench", name, "fp32", (64, 64, 64)) for name in ("ok", "once", "never", "fine")]
    seen = []
    if where == "serial":
        run_serial(jobs, flaky_task, "0", seen.append)
    else:
        with open_client(["0", "1"], processes=False) as client:
            run_cluster(jobs, flaky_task, client, seen.append)
    final = {d.job.kernel: d for d in seen if d.final}
    assert set(final) == {"ok", "once", "never", "fine"}
    assert final["once"].error is None and final["once"].attempt == 2 and final["once"].result[0]["status"] == "PASS"
    assert final["never"].attempt == 2 and "never faulted" in final["never"].error and final["never"].result is None
    assert final["ok"].attempt == 1 and final["fine"].attempt == 1
    assert FLAKY == {"ok": 1, "once": 2, "never": 2, "fine": 1}


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
    jobs = bench_jobs(specs, [(64, 64, 64), (128, 128, 128)])
    rows = []
    ledger = fan_bench(jobs, {s.name: "/nonexistent.cubin" for s in specs}, None, Plan(TWO, processes=False), rows.append)
    assert len(rows) == 6 and all(r["status"] == "PASS" for r in rows)  # cuBLAS, naive, smem at two shapes
    assert {r["gpu_index"] for r in rows} <= {"0", "1"} and all(r["gpu_name"] == "NVIDIA H200" for r in rows)
    assert sorted(r["attempts"] for r in rows) == [1, 1, 1, 1, 1, 2]
    assert not ledger.failures and len(ledger.meta()["jobs"]) == 7


def test_bench_job_list_keeps_the_serial_seeds_and_order():
    specs = select_kernels(["naive", "smem"])
    jobs = bench_jobs(specs, [(64, 64, 64), (128, 128, 128)])
    assert [j.kernel for j in jobs] == ["cublas", "cublas", "naive", "naive", "smem", "smem"]
    assert [j.seed for j in jobs[2:]] == [specs[0].index * 1000, specs[0].index * 1000 + 1, specs[1].index * 1000, specs[1].index * 1000 + 1]
    assert Job.from_dict(json.loads(json.dumps(jobs[2].to_dict()))) == jobs[2]
    assert len({j.key for j in jobs}) == len(jobs)


def test_bench_failed_names_the_error():
    assert bench_failed([{"status": "PASS"}]) is None
    assert bench_failed([{"status": "ERROR", "reason": "illegal address"}]) == "illegal address"


def test_gpu_selection():
    h100 = Gpu("2", "GPU-ccc", "NVIDIA H100 80GB HBM3")
    assert parse_gpus("all", TWO) == TWO and parse_gpus("1", TWO) == [TWO[1]] and parse_gpus("GPU-aaa", TWO) == [TWO[0]]
    with pytest.raises(GemmprofError, match="no GPU '7'"):
        parse_gpus("0,7", TWO)
    with pytest.raises(GemmprofError, match="twice"):
        parse_gpus("0,0", TWO)
    with pytest.raises(GemmprofError, match="mixes GPU models"):
        check_one_model([*TWO, h100], mixed=False)
    check_one_model([*TWO, h100], mixed=True)
    assert TWO[0].columns() == {"gpu_index": "0", "gpu_uuid": "GPU-aaa", "gpu_name": "NVIDIA H200",
                                "gpu_sm_clock_max_mhz": 1980, "gpu_mem_clock_max_mhz": 3201}


def test_cli_refuses_mixed_models(monkeypatch, tmp_path):
    import profiler.fanout.gpus as gpus

    monkeypatch.setattr(gpus, "list_gpus", lambda: [TWO[0], Gpu("1", "GPU-ccc", "NVIDIA H100 80GB HBM3")])
    result = CliRunner().invoke(app, ["bench", "-k", "naive", "--sizes", "64", "--out", str(tmp_path), "--gpus", "all"])
    assert isinstance(result.exception, GemmprofError) and "mixes GPU models" in str(result.exception)
