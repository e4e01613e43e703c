"""The CLI side of `--gpus`, `--scheduler` and `--shared-dir` on `bench` and `profile`: the options,
turning them into a plan, and progress per GPU. The work itself is `profiler.fanout`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

GpusOption = Annotated[str | None, typer.Option("--gpus", help="Fan out over GPUs: 'all' or indices '0,1': one worker per GPU (pinned with CUDA_VISIBLE_DEVICES), results merged into one run. Needs gemmprof[scale] (Dask) for more than one.")]
MixedOption = Annotated[bool, typer.Option("--mixed-gpus", help="Allow GPUs of different models in one run (each row records its GPU).")]
SchedulerOption = Annotated[str | None, typer.Option("--scheduler", help="An existing Dask scheduler (tcp://HOST:8786) whose workers declare --resources GPU=1; see README 'Several GPUs'.")]
SharedDirOption = Annotated[Path | None, typer.Option("--shared-dir", help="With --gpus/--scheduler: workers leave reports in this folder (seen by every host) instead of shipping them back as bytes.")]


def make_plan(gpus: str | None, scheduler: str | None, shared_dir: Path | None, mixed: bool):
    """None when no option asks for a fan-out (the command runs as it always has)."""
    from ..errors import GemmprofError
    from ..fanout.gpus import check_one_model, list_gpus, parse_gpus

    if gpus is None and scheduler is None:
        if shared_dir is not None:
            raise GemmprofError("--shared-dir applies with --gpus or --scheduler only")
        return None
    from ..fanout.fan import Plan
    from ..paths import check_out_dir

    if shared_dir is not None:
        check_out_dir(shared_dir, "--shared-dir")

    chosen = parse_gpus(gpus or "all", list_gpus()) if gpus is not None or scheduler is None else []
    check_one_model(chosen, mixed)
    plan = Plan(chosen, scheduler=scheduler, shared_dir=str(shared_dir) if shared_dir else None)
    if plan.dask:
        from ..fanout.cluster import require_distributed

        require_distributed()
    return plan


class GpuProgress:
    """One progress line per GPU (jobs finished there) beside the command's overall bar."""

    def __init__(self, progress, plan):
        self.progress = progress
        self.tasks = {g.index: progress.add_task(f"  GPU {g.index} {g.name or ''}".rstrip(), total=None) for g in plan.gpus}

    def __call__(self, done) -> None:
        if done.pin not in self.tasks:  # a worker of an existing cluster
            self.tasks[done.pin] = self.progress.add_task(f"  GPU {done.pin} {getattr(done.gpu, 'name', '') or ''}".rstrip(), total=None)
        if done.error and not done.final:
            self.progress.console.print(f"  {done.job.key}: failed on GPU {done.pin} ({done.error}); retrying once", markup=False)
        elif done.error:
            self.progress.console.print(f"  {done.job.key}: failed again ({done.error}); reported, the rest go on", markup=False)
        self.progress.advance(self.tasks[done.pin])
