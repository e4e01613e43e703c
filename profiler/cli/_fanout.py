"""The options `--gpus`, `--mixed-gpus`, `--scheduler` and `--shared-dir` of `bench` and `profile`,
declared once. Turning them into a plan is `profiler.workflows.options.FanoutOptions`, the work
itself `profiler.fanout`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

GpusOption = Annotated[str | None, typer.Option("--gpus", help="Fan out over GPUs: 'all' or indices '0,1': one worker per GPU (pinned with CUDA_VISIBLE_DEVICES), results merged into one run. Needs gemmprof[scale] (Dask) for more than one.")]
MixedOption = Annotated[bool, typer.Option("--mixed-gpus", help="Allow GPUs of different models in one run (each row records its GPU).")]
SchedulerOption = Annotated[str | None, typer.Option("--scheduler", help="An existing Dask scheduler (tcp://HOST:8786) whose workers declare --resources GPU=1; see README 'Several GPUs'.")]
SharedDirOption = Annotated[Path | None, typer.Option("--shared-dir", help="With --gpus/--scheduler: workers leave reports in this folder (seen by every host) instead of shipping them back as bytes.")]
