"""Profile a list of kernels into a run directory: one ncu run per kernel and shape, each report
written atomically and handed to a background extraction while ncu moves on to the next kernel.

The CLI (`gemmprof profile`) parses options and shows progress through the callbacks here.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from ..catalogue.kernel_spec import KernelSpec
from ..names import slug
from ..runs.rundir import REPORT_SUFFIXES, RunDir, write_atomic
from ..subprocess_env import child_env
from .ncu import NcuOptions, NcuResult, failure, ncu_command, run_ncu, target_argv


@dataclass(frozen=True)
class ProfileJob:
    name: str
    tier: str
    spec: KernelSpec | None  # None: cuBLAS


def report_stem(kernel: str, M: int, N: int, K: int) -> str:
    return f"{slug(kernel)}_{M}x{N}x{K}"


@dataclass
class Callbacks:
    """Progress hooks; all optional."""

    starting: Callable[[int, ProfileJob], None] = lambda i, job: None
    # ncu replays the job's kernel: time for side work (before it, the work would slow the target's start)
    replaying: Callable[[int, ProfileJob], None] = lambda i, job: None
    skipped: Callable[[str], None] = lambda stem: None
    kernel_seen: Callable[[int, ProfileJob, str, int], None] = lambda i, job, kernel, passes: None
    finished: Callable[[dict], None] = lambda record: None


def profile_jobs(run: RunDir, jobs: list[ProfileJob], shape: tuple[int, int, int], opts: NcuOptions,
                 cubin_for: Callable[[str], str], compress: bool = False, force: bool = False,
                 on: Callbacks | None = None) -> list:
    """Profile each job into `run.path/ncu`; returns the background extraction (wait for it
    before reading the run's tables). Raises the one-line error of a failed ncu run."""
    from ..extract.background import ExtractServer

    on = on or Callbacks()
    M, N, K = shape
    ncu_dir = run.path / "ncu"
    ncu_dir.mkdir(exist_ok=True)
    env = child_env()
    servers: list[ExtractServer] = []

    try:
        for i, job in enumerate(jobs, start=1):
            stem = report_stem(job.name, M, N, K)
            if not force and any((ncu_dir / (stem + ext)).is_file() for ext in REPORT_SUFFIXES):
                on.skipped(stem)
                continue
            on.starting(i, job)
            cubin = cubin_for(job.name) if job.spec else None

            def replaying(i=i, job=job) -> None:
                if not servers:  # its imports and reader warm up while ncu replays the first job's kernel
                    servers.append(ExtractServer())
                on.replaying(i, job)

            attempt = run_target(job, shape, opts, cubin, ncu_dir, env, on_replay=replaying,
                                 on_kernel=lambda kernel, passes: on.kernel_seen(i, job, kernel, passes))
            final, record = commit_report(run, job, shape, attempt, compress)
            if not servers:  # ncu never said it replayed (its output's form changed): started now
                servers.append(ExtractServer())
            servers[0].submit(final)  # read while ncu runs the next job
            on.finished(record)
    except BaseException:  # a failed ncu run, or an interrupt: the reports so far are read, then the server ends
        for server in servers:
            server.wait()
        raise
    return servers


@dataclass
class TargetRun:
    """One ncu run of one job, before its report joins a run directory: where ncu wrote it, how
    long it took, the command and what ncu said. Plain data, so a remote worker can ship it."""

    partial: Path
    wall_s: float
    command: list[str]
    result: NcuResult


def run_target(job: ProfileJob, shape, opts: NcuOptions, cubin: str | None, workdir: Path, env: dict,
               on_kernel: Callable[[str, int], None] | None = None,
               on_replay: Callable[[], None] | None = None) -> TargetRun:
    """Profile one job under ncu into `workdir` (a run's ncu/ folder, or a worker's scratch
    folder). Raises the one-line error of a failed ncu run, leaving no partial report."""
    M, N, K = shape
    stem = report_stem(job.name, M, N, K)
    target_job = json.dumps({"kernel": job.name, "tier": job.tier, "M": M, "N": N, "K": K, "cubin": cubin,
                             "spec": asdict(job.spec) if job.spec else None, "seed": 7})
    tmp_base = workdir / f".{stem}.partial"
    command = ncu_command(opts, tmp_base, target_argv(target_job))
    t0 = time.perf_counter()
    result = run_ncu(command, env, on_kernel=on_kernel, on_replay=on_replay)
    wall = time.perf_counter() - t0
    partial = tmp_base.with_name(tmp_base.name + ".ncu-rep")
    error = failure(result, f"{job.name} {M}x{N}x{K}")
    if error:
        partial.unlink(missing_ok=True)
        raise error
    return TargetRun(partial, wall, command, result)


def commit_report(run: RunDir, job: ProfileJob, shape, attempt: TargetRun, compress: bool,
                  extra: dict | None = None) -> tuple[Path, dict]:
    """Move a finished report into `run`'s ncu/ folder (its other form removed) and log it in
    profile.jsonl: the one way a report joins a run, serial or fanned out. `extra`: fields for
    the log line (the GPU that produced it). Returns (the report's path, its log record)."""
    M, N, K = shape
    final = run.path / "ncu" / (report_stem(job.name, M, N, K) + (".ncu-rep.xz" if compress else ".ncu-rep"))
    finish_report(attempt.partial, final, compress)
    remove_twin(run, final)
    record = {**make_record(job, shape, final.relative_to(run.path), attempt.wall_s, attempt.command, attempt.result),
              **(extra or {})}
    write_record(run.path / "profile.jsonl", record)
    return final, record


def remove_twin(run: RunDir, final: Path) -> None:
    """Delete the other form of a report just written (X.ncu-rep beside a new X.ncu-rep.xz, or the
    reverse), its cached tables and its profile.jsonl line: one launch, one report."""
    name = final.name
    twin = final.with_name(name.removesuffix(".xz") if name.endswith(".xz") else name + ".xz")
    if not twin.exists():
        return
    from ..extract.run import cache_dir_for  # (the reader's imports: only when there is a twin)

    twin.unlink()
    shutil.rmtree(cache_dir_for(twin), ignore_errors=True)
    log = run.path / "profile.jsonl"
    if log.is_file():
        gone = str(twin.relative_to(run.path))
        lines = log.read_text().splitlines()
        kept = [line for line in lines if not _names_report(line, gone)]
        write_atomic(log, "".join(line + "\n" for line in kept))


def _names_report(line: str, report: str) -> bool:
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return False
    return isinstance(record, dict) and record.get("report") == report


def write_record(log: Path, record: dict) -> None:
    """profile.jsonl holds one line per report: a report profiled again (--force) replaces its line."""
    lines = log.read_text().splitlines() if log.is_file() else []
    kept = [line for line in lines if line.strip() and not _names_report(line, record["report"])]
    write_atomic(log, "".join(line + "\n" for line in [*kept, json.dumps(record)]))


def make_record(job: ProfileJob, shape, report: Path, wall: float, command: list[str], result: NcuResult) -> dict:
    """One line of profile.jsonl: what ran, how long ncu took, and what the target said."""
    M, N, K = shape
    target = result.target or {}
    return {"kernel": job.name, "M": M, "N": N, "K": K, "report": str(report), "ncu_wall_s": wall,
            "replay_passes": sum(p for _, p in result.kernels), "launches": len(result.kernels),
            "ncu_command": command, "environment": target.get("environment"),
            **{k: v for k, v in target.items() if k in ("status", "reason", "error")}}


def finish_report(partial: Path, final: Path, compress: bool) -> None:
    """Move the finished report into place atomically (compressing on the way if asked)."""
    if compress:
        import lzma

        tmp = final.with_name(f".{final.name}.tmp")
        with open(partial, "rb") as src, lzma.open(tmp, "wb", preset=6) as dst:
            while chunk := src.read(1 << 20):
                dst.write(chunk)
        tmp.replace(final)
        partial.unlink()
    else:
        partial.replace(final)
