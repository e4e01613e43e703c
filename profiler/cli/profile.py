"""`gemmprof profile`: each kernel (and cuBLAS) under Nsight Compute, one report per kernel and
shape, then the reports read back into tables (`profiler.workflows.profile`); or, after `--`,
any program (`profiler.workflows.program`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import GemmprofError
from ..workflows.bench import BenchResult
from ..workflows.profile import ProfileOptions
from ..workflows.program import ProgramOptions
from ._fanout import GpusOption, MixedOption, SchedulerOption, SharedDirOption
from ._options import KERNEL_HELP, TIER_HELP, ManifestOption


def profile(
    program: Annotated[list[str] | None, typer.Argument(metavar="CMD", show_default=False,
                                                         help="A program and its arguments, after '--': profiled instead of the ladder.")] = None,
    kernel: Annotated[list[str] | None, typer.Option("--kernel", "-k", "--kernel-regex", help=KERNEL_HELP + ", cuBLAS included; 'cublas' for cuBLAS. With a program: a regex on its kernels' names (ncu --kernel-name regex:).")] = None,
    tier: Annotated[str | None, typer.Option(help=TIER_HELP)] = None,
    size: Annotated[int | None, typer.Option(help="Square size M=N=K (default 2048).")] = None,
    mnk: Annotated[tuple[int, int, int] | None, typer.Option("--mnk", help="A rectangular shape: --mnk M N K.")] = None,
    section_set: Annotated[str, typer.Option("--set", help="ncu section set (full, detailed, basic, ...).")] = ProfileOptions.section_set,
    timeline: Annotated[bool, typer.Option("--timeline", help="Also sample warp states over each launch (ncu's PmSampling_WarpStates); the pipes and memory over the launch come with --set full.")] = False,
    clock_control: Annotated[str, typer.Option(help="Passed to ncu: 'none' measures the clocks the card runs (default; required on shared machines); 'base' locks them.")] = ProfileOptions.clock_control,
    ncu: Annotated[str | None, typer.Option(help="Path to ncu (default: $GEMMPROF_NCU, then PATH).")] = None,
    out: Annotated[Path, typer.Option(help="Directory under which the run directory is written.")] = ProfileOptions.out,
    run_id: Annotated[str | None, typer.Option(help="Run directory name; an existing run is extended (default: new date-time-gpu).")] = None,
    force: Annotated[bool, typer.Option(help="Profile again even where a report already exists.")] = False,
    compress: Annotated[bool, typer.Option("--xz", help="Store reports xz-compressed (.ncu-rep.xz, ~10x smaller; gemmprof reads both).")] = False,
    timing_only: Annotated[bool, typer.Option(help="No counters (e.g. ERR_NVGPUCTRPERM): bench the same kernels and shape instead.")] = False,
    nvtx_include: Annotated[list[str] | None, typer.Option("--nvtx-include", help="With a program: profile only launches inside this NVTX range (ncu's syntax, e.g. 'app/' for a push/pop range; repeatable: any of them).")] = None,
    launch_skip: Annotated[int | None, typer.Option("--launch-skip", "-s", min=0, help="With a program: skip this many matching launches first (ncu's -s/--launch-skip).")] = None,
    launch_count: Annotated[int | None, typer.Option("--launch-count", "-c", min=1, help="With a program: profile at most this many matching launches (ncu's -c/--launch-count).")] = None,
    replay_mode: Annotated[str | None, typer.Option(help="With a program: ncu --replay-mode (kernel, application, range, app-range; ncu's default: kernel).")] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="With a program: profile every launch without asking, however many there are.")] = False,
    manifest: ManifestOption = None,
    gpus: GpusOption = None,
    mixed_gpus: MixedOption = False,
    scheduler: SchedulerOption = None,
    shared_dir: SharedDirOption = None,
) -> None:
    """Profile kernels (and cuBLAS) under Nsight Compute, one report per kernel and shape; or any
    program: `gemmprof profile [options] -- CMD ARGS...`.

    Runs `ncu --set full --import-source yes` (plus the FLOP and DRAM counters the analysis
    needs) on the measured launch only, never the warm-up or the verification. An interrupted
    run keeps every finished report; a rerun skips them unless --force.

    A program (after `--`) runs in the current directory under the same ncu options and the
    filters given; its report, ncu's output and the tables land in one run directory. Without a
    filter it is first run once to count its launches: more than 50 ask first (--yes: never).

    Examples:

        gemmprof profile -k vectorized --size 4096

        gemmprof profile --tier fp16 -k skinny -k cublas --mnk 16 4096 4096 --xz

        gemmprof profile --nvtx-include 'step/' -- python my_gemm.py

        gemmprof profile -k matmul -c 1 -- python train.py
    """
    from ..render.progress import ConsoleProgress
    from ..workflows.options import record_of

    given = locals()
    if program:
        from ..workflows.program import profile_program

        refuse_options(given, LADDER_ONLY, "applies to the ladder only", "a program runs the shapes it chooses itself")
        profile_program(record_of(ProgramOptions, given), ConsoleProgress())
        return
    from ..workflows.profile import profile as run_profile
    from .bench import exit_on_failures

    refuse_options(given, PROGRAM_ONLY, "applies to a program only", "name one after '--': gemmprof profile {} ... -- CMD ARGS")
    result = run_profile(record_of(ProfileOptions, given), ConsoleProgress())
    if isinstance(result, BenchResult):  # --timing-only: a bench, which exits as bench does
        exit_on_failures(result)


# The options that apply to one kind of profile only, by parameter and as the user spells them.
LADDER_ONLY = {"size": "--size", "mnk": "--mnk", "timing_only": "--timing-only", "tier": "--tier"}
PROGRAM_ONLY = {"nvtx_include": "--nvtx-include", "launch_skip": "--launch-skip", "launch_count": "--launch-count",
                "replay_mode": "--replay-mode", "yes": "--yes"}


def refuse_options(given: dict, only: dict, what: str, hint: str) -> None:
    """One line naming the options given that the other kind of profile takes; `hint` may name
    the first of them ({})."""
    named = [flag for name, flag in only.items() if given[name]]
    if named:
        raise GemmprofError(f"{', '.join(named)} {what}", hint.format(named[0]))
