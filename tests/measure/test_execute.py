"""Running one job where it is called (profiler.measure.execute): a bench job's rows carry the
job's own fields, a profile job's report travels packed (as bytes, or through a shared folder)
and is unpacked where the run is."""

from __future__ import annotations

import lzma
from pathlib import Path

from profiler.measure import execute
from profiler.measure.execute import ShippedReport, execute_bench, execute_profile, unpack_report
from profiler.measure.jobs import BENCH, PROFILE, Job
from profiler.measure.ncu import NcuOptions, NcuResult
from profiler.measure.profiling import TargetRun

REPORT = b"an ncu report's bytes " * 100


def test_a_bench_job_s_rows_carry_the_job_s_fields(monkeypatch):
    seen = {}

    def fake_bench_kernel(target, shapes, policy, on_record, pin=None):
        seen.update(kernel=target.name, shapes=shapes, pin=pin)
        for M, N, K in shapes:
            on_record({"kernel": target.name, "M": M, "N": N, "K": K, "status": "PASS"})

    monkeypatch.setattr(execute, "bench_kernel", fake_bench_kernel)
    job = Job(BENCH, "best", "fp32", (64, 64, 64), row={"dispatched_to": "naive"}, more=((128, 128, 128),))
    rows = execute_bench(job, None, policy=None, pin="0")
    assert seen == {"kernel": "best", "shapes": [(64, 64, 64), (128, 128, 128)], "pin": "0"}
    assert [r["M"] for r in rows] == [64, 128] and all(r["dispatched_to"] == "naive" for r in rows)


def _fake_run_target(job, shape, opts, cubin, workdir, env, on_kernel=None):
    partial = Path(workdir) / "x.ncu-rep"
    partial.write_bytes(REPORT)
    return TargetRun(partial, 1.5, ["ncu"], NcuResult(0, [], None, []))


def test_a_profile_job_ships_its_report_packed_and_it_unpacks_where_the_run_is(monkeypatch, tmp_path):
    monkeypatch.setattr(execute, "run_target", _fake_run_target)
    shipped = execute_profile(Job(PROFILE, "cublas", "fp32", (64, 64, 64)), None, NcuOptions(Path("ncu")))
    assert shipped.path is None and lzma.decompress(shipped.data) == REPORT and shipped.wall_s == 1.5
    unpack_report(shipped, tmp_path / "r.ncu-rep")
    assert (tmp_path / "r.ncu-rep").read_bytes() == REPORT


def test_through_a_shared_folder_the_report_is_a_file_there_and_gone_once_unpacked(monkeypatch, tmp_path):
    monkeypatch.setattr(execute, "run_target", _fake_run_target)
    shared = tmp_path / "shared"
    shipped = execute_profile(Job(PROFILE, "cublas", "fp32", (64, 64, 64)), None, NcuOptions(Path("ncu")), pin="1",
                              shared_dir=str(shared))
    assert isinstance(shipped, ShippedReport) and shipped.data is None and Path(shipped.path).parent == shared
    unpack_report(shipped, tmp_path / "r.ncu-rep")
    assert (tmp_path / "r.ncu-rep").read_bytes() == REPORT and not Path(shipped.path).exists()
