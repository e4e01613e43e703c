"""One job of `jobs` run where it is called (the command's process, a worker of the fan-out) on
the GPU it is pinned to, returning what the run directory needs: result rows (bench), or the
report packed to travel and ncu's record (profile)."""

from __future__ import annotations

import lzma
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..subprocess_env import child_env, pin_env
from .bench import BenchTarget, bench_kernel
from .jobs import Job
from .ncu import lock_per_gpu
from .profiling import ProfileJob, run_target


def execute_bench(job: Job, cubin: str | None, policy, pin: str | None = None) -> list[dict]:
    """Verify and time one job (each of its shapes) in a worker child pinned to GPU `pin`; its
    result rows (an ERROR row when the kernel faults or the child dies)."""
    rows: list[dict] = []
    bench_kernel(BenchTarget(job.kernel, job.tier, cubin, job.spec, job.seed), job.shapes, policy, rows.append, pin=pin)
    return [{**r, **job.row} for r in rows]


@dataclass
class ShippedReport:
    """A profile job's outcome off the worker: the report xz-packed (or its path in a shared
    folder), ncu's wall time, command and result."""

    data: bytes | None
    path: str | None
    wall_s: float
    command: list[str]
    result: object  # ncu.NcuResult


def execute_profile(job: Job, cubin: str | None, opts, pin: str | None = None, shared_dir: str | None = None,
                    on_kernel: Callable[[str, int], None] | None = None, gpu: str | None = None) -> ShippedReport:
    """Profile one job under ncu in a scratch folder with the target pinned to GPU `pin`; ship the
    report back xz-packed as bytes, or leave it in `shared_dir` (a folder the client also sees).
    `gpu` (the pinned GPU's UUID) keeps ncu's lock to that GPU, so GPUs profile side by side."""
    env = child_env()
    if pin is not None:
        lock_per_gpu(pin_env(env, pin), gpu or pin)
    target = ProfileJob(job.kernel, job.tier, job.spec)
    with tempfile.TemporaryDirectory(prefix="gemmprof-job-") as scratch:
        done = run_target(target, job.shape, opts, cubin, Path(scratch), env, on_kernel=on_kernel)
        packed = lzma.compress(done.partial.read_bytes(), preset=1)
    path = None
    if shared_dir is not None:
        out = Path(shared_dir) / (job.key.replace(":", "_") + f".{pin or 'x'}.ncu-rep.xz")
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name("." + out.name + ".tmp")
        tmp.write_bytes(packed)
        tmp.replace(out)
        packed, path = None, str(out)
    return ShippedReport(packed, path, done.wall_s, done.command, done.result)


def unpack_report(shipped: ShippedReport, partial: Path) -> None:
    """Write a shipped report (bytes or shared-folder file) to `partial`, uncompressed."""
    data = shipped.data if shipped.data is not None else Path(shipped.path).read_bytes()
    tmp = partial.with_name(partial.name + ".tmp")
    tmp.write_bytes(lzma.decompress(data))
    tmp.replace(partial)
    if shipped.path is not None:
        Path(shipped.path).unlink(missing_ok=True)
