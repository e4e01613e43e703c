"""The profiling loop (profiler.measure.profiling) without ncu: a run_target stand-in hands back
a report file, and the loop names it, moves it into the run, keeps one profile.jsonl line per
report and skips what is already there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from profiler.catalogue.manifest import load_manifest
from profiler.errors import GemmprofError
from profiler.measure import profiling
from profiler.measure.ncu import NcuOptions, NcuResult
from profiler.measure.profiling import Callbacks, ProfileJob, TargetRun, commit_report, report_stem, write_record
from profiler.runs.rundir import RunDir

SHAPE = (512, 256, 128)


def attempt(folder: Path, name: str, payload: bytes = b"report", status: str = "PASS") -> TargetRun:
    partial = folder / f".{name}.partial.ncu-rep"
    partial.write_bytes(payload)
    result = NcuResult(0, [], {"status": status, "reason": "", "error": 1e-7, "environment": {"sm_count": 132}},
                       [("sgemm_" + name, 38), ("sgemm_" + name, 2)])
    return TargetRun(partial, 1.5, ["ncu", "--set", "full"], result)


def log_lines(run: RunDir) -> list[dict]:
    return [json.loads(line) for line in (run.path / "profile.jsonl").read_text().splitlines()]


def test_report_stem_is_kernel_and_shape_with_a_safe_name():
    assert report_stem("naive", 512, 256, 128) == "naive_512x256x128"
    assert "/" not in report_stem("../evil", 1, 2, 3)


def test_commit_report_moves_the_report_and_logs_what_the_target_said(tmp_path):
    run = RunDir.create(tmp_path / "run", {"run_id": "r"})
    (run.path / "ncu").mkdir()
    final, record = commit_report(run, ProfileJob("naive", "fp32", None), SHAPE, attempt(run.path / "ncu", "naive"),
                                  compress=False, extra={"gpu": 1})
    assert final == run.path / "ncu" / "naive_512x256x128.ncu-rep" and final.read_bytes() == b"report"
    assert not list((run.path / "ncu").glob(".*partial*"))
    assert record["report"] == "ncu/naive_512x256x128.ncu-rep" and record["gpu"] == 1
    assert (record["replay_passes"], record["launches"], record["status"]) == (40, 2, "PASS")
    assert log_lines(run) == [record]


def test_compressing_replaces_the_plain_twin_and_its_log_line(tmp_path):
    import lzma

    run = RunDir.create(tmp_path / "run", {"run_id": "r"})
    (run.path / "ncu").mkdir()
    job = ProfileJob("naive", "fp32", None)
    commit_report(run, job, SHAPE, attempt(run.path / "ncu", "naive", b"first"), compress=False)
    commit_report(run, ProfileJob("smem", "fp32", None), SHAPE, attempt(run.path / "ncu", "smem"), compress=False)
    final, _ = commit_report(run, job, SHAPE, attempt(run.path / "ncu", "naive", b"second"), compress=True)
    assert sorted(p.name for p in (run.path / "ncu").iterdir()) == ["naive_512x256x128.ncu-rep.xz", "smem_512x256x128.ncu-rep"]
    assert lzma.decompress(final.read_bytes()) == b"second"
    assert [r["report"] for r in log_lines(run)] == ["ncu/smem_512x256x128.ncu-rep", "ncu/naive_512x256x128.ncu-rep.xz"]


def test_write_record_keeps_one_line_per_report(tmp_path):
    log = tmp_path / "profile.jsonl"
    log.write_text('{"report": "a"}\n\nnot json\n{"report": "b", "n": 1}\n')
    write_record(log, {"report": "b", "n": 2})
    assert log.read_text().splitlines() == ['{"report": "a"}', "not json", '{"report": "b", "n": 2}']


def test_profile_jobs_skips_reports_already_there_unless_forced(tmp_path, monkeypatch):
    run = RunDir.create(tmp_path / "run", {"run_id": "r"})
    (run.path / "ncu").mkdir()
    (run.path / "ncu" / "naive_512x256x128.ncu-rep.xz").write_bytes(b"old")
    ran, skipped = [], []

    def fake_run_target(job, shape, opts, cubin, workdir, env, on_kernel=None, on_replay=None):
        on_replay()
        ran.append((job.name, cubin))
        return attempt(workdir, job.name)

    class Server:  # the background extraction: what it was handed
        def __init__(self):
            self.reports = []

        def submit(self, report):
            self.reports.append(report)

    monkeypatch.setattr(profiling, "run_target", fake_run_target)
    monkeypatch.setattr("profiler.extract.background.ExtractServer", Server)
    jobs = [ProfileJob("naive", "fp32", None), ProfileJob("smem", "fp32", None)]
    opts = NcuOptions(Path("/nonexistent/ncu"))
    (server,) = profiling.profile_jobs(run, jobs, SHAPE, opts, cubin_for=lambda name: f"{name}.cubin",
                                       on=Callbacks(skipped=skipped.append))
    assert skipped == ["naive_512x256x128"] and ran == [("smem", None)]  # cuBLAS-like jobs (no spec) get no cubin
    assert server.reports == [run.path / "ncu" / "smem_512x256x128.ncu-rep"]
    profiling.profile_jobs(run, jobs[:1], SHAPE, opts, cubin_for=str, force=True)
    assert ran[-1] == ("naive", None)
    assert sorted(p.name for p in (run.path / "ncu").iterdir()) == ["naive_512x256x128.ncu-rep", "smem_512x256x128.ncu-rep"]


def test_the_background_reader_starts_once_ncu_replays_the_first_kernel(tmp_path, monkeypatch):
    """Not while the run is prepared and the kernels built (nothing to read yet, and ncu would
    start later), nor while the target starts (its imports would slow it), and once."""
    run = RunDir.create(tmp_path / "run", {"run_id": "r"})
    started = []

    class Server:
        def __init__(self):
            started.append(self)

        def submit(self, report):
            pass

    def cubin_for(name):
        assert started == []  # the build waited for with no reader started
        return name

    def fake_run_target(job, shape, opts, cubin, workdir, env, on_kernel=None, on_replay=None):
        assert len(started) <= 1
        on_replay()
        assert len(started) == 1
        return attempt(workdir, job.name)

    monkeypatch.setattr(profiling, "run_target", fake_run_target)
    monkeypatch.setattr("profiler.extract.background.ExtractServer", Server)
    spec = next(s for s in load_manifest() if s.name == "naive")
    jobs = [ProfileJob("cublas", "fp32", None), ProfileJob("naive", "fp32", spec)]
    background = profiling.profile_jobs(run, jobs[1:] + jobs[:1], SHAPE, NcuOptions(Path("/nonexistent/ncu")), cubin_for)
    assert background == started and len(started) == 1


def test_a_failed_ncu_run_ends_the_background_reader_once_it_has_read_the_reports_before(tmp_path, monkeypatch):
    """A profile run from a notebook must not leave a reader process behind each failure."""
    run = RunDir.create(tmp_path / "run", {"run_id": "r"})
    events = []

    class Server:
        def submit(self, report):
            events.append(("submit", report.name))

        def wait(self):
            events.append(("wait",))
            return 0

    def fake_run_target(job, shape, opts, cubin, workdir, env, on_kernel=None, on_replay=None):
        on_replay()
        if job.name == "smem":
            raise GemmprofError("ncu failed on smem")
        return attempt(workdir, job.name)

    monkeypatch.setattr(profiling, "run_target", fake_run_target)
    monkeypatch.setattr("profiler.extract.background.ExtractServer", Server)
    jobs = [ProfileJob("naive", "fp32", None), ProfileJob("smem", "fp32", None)]
    with pytest.raises(GemmprofError, match="smem"):
        profiling.profile_jobs(run, jobs, SHAPE, NcuOptions(Path("/nonexistent/ncu")), cubin_for=str)
    assert events == [("submit", "naive_512x256x128.ncu-rep"), ("wait",)]


@pytest.mark.parametrize("line,report,names", [('{"report": "x"}', "x", True), ('{"report": "x"}', "y", False),
                                                ("[1, 2]", "x", False), ("{broken", "x", False)])
def test_a_log_line_names_a_report_only_when_it_says_so(line, report, names):
    assert profiling._names_report(line, report) is names
