"""`bench --gpus` and `profile --gpus`: the job list run on one worker per GPU, each result merged
into the run directory the moment it arrives (bench rows into bench.jsonl, reports into ncu/ and
profile.jsonl, through the same functions as the serial path), with which GPU made it.

One GPU and no scheduler: the jobs run here, in order, without Dask (the serial path of the same
job list). Otherwise a Dask cluster (`cluster.open_client`)."""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..measure.execute import execute_bench, execute_profile, unpack_report
from ..measure.jobs import Job, batched
from .gpus import Gpu
from .runner import Done, run_cluster, run_serial


@dataclass
class Plan:
    """Where the jobs run: the GPUs (pins), an existing cluster, in-process Dask workers (tests),
    a folder the workers and this process share for reports."""

    gpus: list[Gpu]
    scheduler: str | None = None
    processes: bool = True
    shared_dir: str | None = None
    force_dask: bool = False  # one GPU through Dask all the same (tests)

    @property
    def pins(self) -> list[str]:
        return [g.index for g in self.gpus]

    @property
    def dask(self) -> bool:
        return self.force_dask or self.scheduler is not None or len(self.gpus) > 1


@dataclass
class Ledger:
    """What run.json records of a fanned-out run: each job's GPU, wall time and attempts, each
    GPU's busy time, the failures."""

    plan: Plan
    jobs: list[dict] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)

    def note(self, done: Done) -> None:
        self.jobs.append({"job": done.job.key, "gpu": done.pin, "wall_s": round(done.wall_s, 3),
                          "attempt": done.attempt, "error": done.error})
        if done.final and done.error:
            self.failures.append(f"{done.job.key}: {done.error}")

    def meta(self) -> dict:
        per_gpu: dict[str, float] = {}
        for j in self.jobs:
            per_gpu[j["gpu"]] = round(per_gpu.get(j["gpu"], 0.0) + j["wall_s"], 3)
        return {"gpus": [asdict(g) for g in self.plan.gpus], "scheduler": self.plan.scheduler or ("dask-local" if self.plan.dask else "serial"),
                "wall_s": round(time.perf_counter() - self.started, 3), "gpu_wall_s": per_gpu, "jobs": self.jobs,
                "failures": self.failures}


def gpu_of(done: Done, plan: Plan) -> Gpu:
    """This host's record of the pin when it is one of the plan's GPUs, else the worker's."""
    known = {g.index: g for g in plan.gpus}
    return known.get(done.pin) or done.gpu or Gpu(done.pin)


def run_plan(jobs: list[Job], task: Callable, plan: Plan, on_done: Callable[[Done], None],
             failed: Callable[[object], str | None] = lambda r: None) -> None:
    if not plan.dask:
        return run_serial(jobs, task, plan.pins[0], on_done, failed)
    from .cluster import open_client

    with open_client(plan.pins, plan.scheduler, plan.processes) as client:
        run_cluster(jobs, task, client, on_done, failed)


# --- bench -----------------------------------------------------------------------------------

def bench_task(job: Job, pin: str, cubins: dict[str, tuple[str, bytes | None]], policy) -> list[dict]:
    """One bench job on a worker: its cubin from the client's path, or from the bytes shipped
    with it when the worker's host does not have that path."""
    cubin = None
    if job.runs:
        path, data = cubins[job.runs]
        if not Path(path).is_file() and data is not None:
            import hashlib
            import tempfile

            local = Path(tempfile.gettempdir()) / "gemmprof-cubins" / f"{hashlib.sha256(data).hexdigest()[:16]}.cubin"
            local.parent.mkdir(parents=True, exist_ok=True)
            if not local.is_file():
                local.write_bytes(data)
            path = str(local)
        cubin = path
    return execute_bench(job, cubin, policy, pin)


def bench_failed(rows: list[dict]) -> str | None:
    """A bench job failed when its kernel faulted or its child died (an ERROR row)."""
    bad = [r for r in rows if r.get("status") == "ERROR"]
    return bad[0].get("reason") or "ERROR" if bad else None


def fan_bench(jobs: list[Job], cubins: dict[str, str], policy, plan: Plan, on_record: Callable[[dict], None],
              on_progress: Callable[[Done], None] = lambda done: None) -> Ledger:
    """Run bench jobs per `plan`; every final row goes to `on_record` with its GPU's columns and
    the job's wall time (a job that failed twice gives its ERROR row, or one saying why)."""
    ship = plan.scheduler is not None  # a remote worker may not see this host's files
    payload = {name: (str(path), Path(path).read_bytes() if ship and Path(path).is_file() else None) for name, path in cubins.items()}
    task = functools.partial(bench_task, cubins=payload, policy=policy)
    ledger = Ledger(plan)
    # about eight jobs a GPU: each GPU starts few worker children, and the last job to finish
    # holds up the others by one eighth of a GPU's share at most
    jobs = batched(jobs, max(1, math.ceil(len(jobs) / (8 * max(1, len(plan.gpus))))))

    def done(d: Done) -> None:
        ledger.note(d)
        on_progress(d)
        if not d.final:
            return
        extra = {**gpu_of(d, plan).columns(), "job_wall_s": d.wall_s, "attempts": d.attempt}
        rows = d.result if d.result else [{"kernel": d.job.kernel, "tier": d.job.tier, "M": M, "N": N, "K": K, "status": "ERROR",
                                           "reason": f"job failed twice: {d.error}"[:300], **d.job.row}
                                          for M, N, K in d.job.shapes]
        for row in rows:
            on_record({**row, **extra})

    run_plan(jobs, task, plan, done, bench_failed)
    return ledger


# --- profile ---------------------------------------------------------------------------------

def profile_task(job: Job, pin: str, cubins: dict[str, str], opts, shared_dir: str | None):
    from .gpus import describe

    return execute_profile(job, cubins.get(job.runs) if job.runs else None, opts, pin, shared_dir, gpu=describe(pin).uuid)


def fan_profile(run, jobs: list[Job], cubins: dict[str, str], opts, plan: Plan, compress: bool = False,
                on_record: Callable[[dict], None] = lambda record: None,
                on_progress: Callable[[Done], None] = lambda done: None) -> tuple[Ledger, list]:
    """Run profile jobs per `plan`; each report that arrives joins `run` at once (ncu/ and
    profile.jsonl, as the serial path does it) and its extraction starts in the background.
    Returns the ledger and the background extraction processes."""
    from ..extract.background import ReportReader
    from ..measure.profiling import ProfileJob, TargetRun, commit_report, report_stem

    (run.path / "ncu").mkdir(exist_ok=True)
    task = functools.partial(profile_task, cubins={k: str(v) for k, v in cubins.items()}, opts=opts, shared_dir=plan.shared_dir)
    ledger = Ledger(plan)
    background = []

    def done(d: Done) -> None:
        ledger.note(d)
        if d.final and d.error is None:
            shipped = d.result
            partial = run.path / "ncu" / f".{report_stem(d.job.kernel, *d.job.shape)}.partial.ncu-rep"
            unpack_report(shipped, partial)
            extra = {**gpu_of(d, plan).columns(), "job_wall_s": d.wall_s, "attempts": d.attempt}
            final, record = commit_report(run, ProfileJob(d.job.kernel, d.job.tier, d.job.spec), d.job.shape,
                                          TargetRun(partial, shipped.wall_s, shipped.command, shipped.result), compress, extra)
            background.append(ReportReader(final))
            on_record(record)
        on_progress(d)

    run_plan(jobs, task, plan, done)
    return ledger, background
