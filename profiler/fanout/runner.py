"""Run a job list on one GPU in this process, or on a Dask cluster with one worker per GPU, with
one retry per failing job; results are handed to the caller one by one as they finish, so the
caller merges each into the run directory at once and nothing finished is lost.

A task is a plain function `task(job, pin) -> result` (module level or a functools.partial of
one, so Dask can ship it); `failed(result)` says whether a result that came back is a failure
worth one retry (a bench job's ERROR row: the kernel faulted or its child died)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..measure.jobs import Job

RETRIES = 1  # a failing job is run once more; a second failure is reported and the run goes on


@dataclass
class Done:
    """One job's outcome: `result` (None when it raised), `error` (why it failed), on which GPU,
    how long it ran and at which attempt (1 or 2)."""

    job: Job
    pin: str
    gpu: object  # gpus.Gpu, as the worker's host describes it
    result: object
    error: str | None
    wall_s: float
    attempt: int
    final: bool  # no retry follows (success, or the last attempt)


def worker_pin() -> str:
    """The GPU this Dask worker owns: gemmprof's own workers are named gpu-<pin>; dask-cuda's
    (and dask-cuda-worker's on a cluster) see their GPU first in CUDA_VISIBLE_DEVICES."""
    try:
        from distributed import get_worker

        name = str(get_worker().name)
    except (ImportError, ValueError):
        name = ""
    if name.startswith("gpu-"):
        return name[len("gpu-"):]
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    return visible.split(",")[0].strip() or "0"


def call(task: Callable, job: Job, pin: str | None = None) -> tuple[str, object, object, float]:
    """Run `task` on this worker (its own GPU when `pin` is None); (pin, its GPU, result, wall s)."""
    from .gpus import describe

    pin = pin if pin is not None else worker_pin()
    t0 = time.perf_counter()
    result = task(job, pin)
    return pin, describe(pin), result, time.perf_counter() - t0


def _why(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]


def run_serial(jobs: list[Job], task: Callable, pin: str, on_done: Callable[[Done], None],
               failed: Callable[[object], str | None] = lambda r: None) -> None:
    """Every job in order in this process, on GPU `pin`; the same retry rule as the cluster's."""
    for job in jobs:
        for attempt in range(1, RETRIES + 2):
            t0 = time.perf_counter()
            try:
                _, gpu, result, wall = call(task, job, pin)
                error = failed(result)
            except Exception as exc:
                result, error, wall, gpu = None, _why(exc), time.perf_counter() - t0, None
            final = error is None or attempt > RETRIES
            on_done(Done(job, pin, gpu, result, error, wall, attempt, final))
            if final:
                break


def gpu_workers(client) -> int:
    """How many workers of the cluster declare a GPU (at least 1)."""
    workers = client.scheduler_info().get("workers", {}).values()
    return max(1, sum(int(w.get("resources", {}).get("GPU", 0) or 0) for w in workers))


def run_cluster(jobs: list[Job], task: Callable, client, on_done: Callable[[Done], None],
                failed: Callable[[object], str | None] = lambda r: None) -> None:
    """Every job on the cluster behind `client`, one at a time per worker (each asks for the
    worker's one GPU resource); a job that raises, loses its worker or fails by `failed` is
    submitted once more.

    Jobs are handed out as GPUs come free, never queued on a worker ahead of time: a worker
    that got its share up front would leave the other GPUs idle at the end while it works
    through its queue (jobs differ by 2x in length); pulled one by one, the GPUs finish within a
    job of each other. Retries go to the front."""
    from distributed import as_completed

    def submit(job: Job, attempt: int):
        future = client.submit(call, task, job, key=f"{job.key}#{attempt}-{time.monotonic_ns()}", pure=False,
                               resources={"GPU": 1})
        attempts[future.key] = (job, attempt)
        return future

    attempts: dict = {}
    waiting = [(job, 1) for job in jobs]
    window = gpu_workers(client)
    pending = as_completed([submit(*waiting.pop(0)) for _ in range(min(window, len(waiting)))])
    for future in pending:
        job, attempt = attempts.pop(future.key)
        t0 = time.perf_counter()
        try:
            pin, gpu, result, wall = future.result()
            error = failed(result)
        except Exception as exc:  # the task raised, or its worker was lost (KilledWorker)
            pin, gpu, result, error, wall = "?", None, None, _why(exc), time.perf_counter() - t0
        final = error is None or attempt > RETRIES
        on_done(Done(job, pin, gpu, result, error, wall, attempt, final))
        future.release()
        if not final:
            waiting.insert(0, (job, attempt + 1))
        if waiting:
            pending.add(submit(*waiting.pop(0)))
