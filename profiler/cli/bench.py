"""`gemmprof bench`: verify every kernel against cuBLAS, then time it against cuBLAS
(`profiler.workflows.bench`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import Exit
from ..workflows.bench import DEFAULT_SIZES, BenchOptions, BenchResult
from ._fanout import GpusOption, MixedOption, SchedulerOption, SharedDirOption
from ._options import KERNEL_HELP, TIER_HELP, ManifestOption


def bench(
    kernel: Annotated[list[str] | None, typer.Option("--kernel", "-k", help=KERNEL_HELP + "; dispatchers by name.")] = None,
    sizes: Annotated[str | None, typer.Option(help=f"Comma-separated square sizes, MxNxK items, or a doubling range like 256..8192. Default {DEFAULT_SIZES}.")] = None,
    mnk: Annotated[tuple[int, int, int] | None, typer.Option("--mnk", help="A rectangular shape: --mnk M N K (more via --sizes MxNxK).")] = None,
    suite: Annotated[str | None, typer.Option(help="A shape suite by name, of those that ship with gemmprof (kernels/shapes.toml: default, quick, small, and the suites rules are chosen and scored on, such as unseen, sample and decode-llm; an unknown name lists them all); not with --sizes/--mnk. Prints and writes its summary (suite.csv).")] = None,
    out: Annotated[Path, typer.Option(help="Directory under which the run directory is written.")] = BenchOptions.out,
    run_id: Annotated[str | None, typer.Option(help="Name of the run directory (default: date-time-gpu).")] = None,
    max_seconds: Annotated[float, typer.Option(help="Time budget per kernel and shape for the timed launches.")] = BenchOptions.max_seconds,
    min_reps: Annotated[int, typer.Option(help="Fewest timed launches per kernel and shape.")] = BenchOptions.min_reps,
    warmup_seconds: Annotated[float, typer.Option(help="Least warm-up per kernel and shape (longer until the SM clock is stable, up to 3 s).")] = BenchOptions.warmup_seconds,
    target_cv: Annotated[float, typer.Option(help="Stop repeating once the coefficient of variation is below this.")] = BenchOptions.target_cv,
    cublas: Annotated[bool, typer.Option(help="Also time cuBLAS on its own row (it is always the reference).")] = True,
    tier: Annotated[str | None, typer.Option(help=TIER_HELP)] = None,
    predecessors: Annotated[bool, typer.Option("--predecessors", help="Also each chosen kernel's predecessor, the rung it claims to improve on (--manifest mine.toml -k mykern --predecessors).")] = False,
    manifest: ManifestOption = None,
    gpus: GpusOption = None,
    mixed_gpus: MixedOption = False,
    scheduler: SchedulerOption = None,
    shared_dir: SharedDirOption = None,
) -> None:
    """Verify each kernel against cuBLAS on fresh random inputs, then time the ones that pass.

    Writes reports/RUN_ID/bench.csv and bench.parquet with the GPU state and environment.

    Timing: CUDA events around each launch, L2 flushed before each launch, warm-up until the SM
    clock is stable, alternating with cuBLAS, each batch queued behind a queue hold so no sample
    includes the host's launch cost (GEMMPROF_TIMING_HOLD=0: without); median, p10/p90 and CV reported, with the GPU's
    clocks and throttle reasons from NVML. A kernel that fails is shown as FAIL, never timed.
    cuBLAS runs strict FP32 (CUBLAS_DEFAULT_MATH: no TF32).

    Examples:

        gemmprof bench -k vectorized -k warptile --sizes 1024,4096

        gemmprof bench --tier fp16 -k best-fp16 --mnk 16 4096 4096

        gemmprof bench --suite default -k best

        gemmprof bench --manifest mine.toml -k mykern --predecessors
    """
    from ..render.progress import ConsoleProgress
    from ..workflows.bench import bench as run_bench
    from ..workflows.options import record_of

    exit_on_failures(run_bench(record_of(BenchOptions, locals()), ConsoleProgress()))


def exit_on_failures(result: BenchResult) -> None:
    """A finished bench with an unexpected FAIL or ERROR exits with its own status."""
    if result.complete and result.failures:
        raise typer.Exit(Exit.FAILED)
