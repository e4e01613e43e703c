"""`gemmprof bench`: verify every kernel against cuBLAS, then time it against cuBLAS."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer

from rich.markup import escape

from ..render.console import make_console, progress_bar
from ._fanout import GpusOption, MixedOption, SchedulerOption, SharedDirOption
from ._options import KERNEL_HELP, TIER_HELP, ManifestOption
from ..errors import Exit
from ..tiers import FAIL, FAILED_STATUSES

DEFAULT_SIZES = "1024,2048,4096"


def bench(
    kernel: Annotated[list[str] | None, typer.Option("--kernel", "-k", help=KERNEL_HELP + "; dispatchers by name.")] = None,
    sizes: Annotated[str | None, typer.Option(help=f"Comma-separated square sizes, MxNxK items, or a doubling range like 256..8192. Default {DEFAULT_SIZES}.")] = None,
    mnk: Annotated[tuple[int, int, int] | None, typer.Option("--mnk", help="A rectangular shape: --mnk M N K (more via --sizes MxNxK).")] = None,
    suite: Annotated[str | None, typer.Option(help="A shape suite by name, of those that ship with gemmprof (kernels/shapes.toml: default, quick, small); not with --sizes/--mnk. Prints and writes its summary (suite.csv).")] = None,
    out: Annotated[Path, typer.Option(help="Directory under which the run directory is written.")] = Path("reports"),
    run_id: Annotated[str | None, typer.Option(help="Name of the run directory (default: date-time-gpu).")] = None,
    max_seconds: Annotated[float, typer.Option(help="Time budget per kernel and shape for the timed launches.")] = 3.0,
    min_reps: Annotated[int, typer.Option(help="Fewest timed launches per kernel and shape.")] = 10,
    warmup_seconds: Annotated[float, typer.Option(help="Least warm-up per kernel and shape (longer until the SM clock is stable, up to 3 s).")] = 0.3,
    target_cv: Annotated[float, typer.Option(help="Stop repeating once the coefficient of variation is below this.")] = 0.01,
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
    """
    from ..runs.bench_log import as_table, merge_rows
    from ..errors import GemmprofError
    from ..catalogue.dispatchers import select_for_bench
    from ..catalogue.manifest import load_manifest, with_predecessors
    from ..tiers import CUBLAS
    from ..catalogue.suites import load_suite
    from ..measure.bench import bench as run_bench
    from ..measure.build import build_all
    from ..measure.provenance import collect_environment, git_fields
    from ..measure.timing import TimingPolicy
    from ..analyze.suite import summarize
    from ..render.console import bench_table, suite_table
    from ..names import check_run_id
    from ..paths import check_out_dir
    from ..runs.rundir import REPO_ROOT, RUN_JSON, RunDir, command_line, new_run_id
    from ..catalogue.manifest import only_tier
    from ..catalogue.shapes import gather_shapes

    if run_id is not None:  # checked before any GPU work: it must never leave --out
        check_run_id(run_id)
    check_out_dir(out)
    specs, dispatchers = only_tier(tier, *select_for_bench(kernel))
    if predecessors:
        specs = with_predecessors(specs)
    every = {s.name: s for s in load_manifest()}
    needed = list({s.name: s for s in specs + [every[r.kernel] for d in dispatchers for r in d.rules]}.values())
    if suite is not None and (sizes or mnk):
        raise GemmprofError("--suite names its own shapes: give it without --sizes and --mnk")
    shapes = load_suite(suite) if suite is not None else gather_shapes(sizes, mnk, DEFAULT_SIZES)
    if max_seconds <= 0 or min_reps < 1 or warmup_seconds < 0:
        raise GemmprofError("--max-seconds must be positive, --min-reps at least 1 and --warmup-seconds not negative")
    from ._fanout import make_plan

    plan = make_plan(gpus, scheduler, shared_dir, mixed_gpus)
    console = make_console()
    env = collect_environment(need_gpu=True)
    with console.status("compiling kernels with nvcc"):
        built = build_all(needed, env["arch"])
    cubins = {b.spec.name: str(b.cubin) for b in built}

    path = out / (run_id or new_run_id(env["gpu_slug"]))
    earlier, before = None, {}
    if (path / RUN_JSON).is_file():  # benching into an existing run: its rows are merged, not lost
        before = RunDir(path).meta()
        earlier = RunDir(path).read_table("bench") if RunDir(path).has_table("bench") else None
    run = RunDir.create(path, {
        "kind": "bench", "command": command_line(), "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **git_fields(REPO_ROOT), "environment": env, "complete": False,
        "shapes": union(before.get("shapes"), [list(s) for s in shapes]),
        "kernels": union(before.get("kernels"), [s.name for s in specs]),
        "dispatchers": {d.name: [r.__dict__ for r in d.rules] for d in dispatchers},
        "policy": {"max_seconds": max_seconds, "min_reps": min_reps, "target_cv": target_cv, "warmup_seconds": warmup_seconds},
        "cublas_math_mode": "CUBLAS_DEFAULT_MATH (strict FP32, no TF32)",
        "resources": {b.spec.name: b.resources.__dict__ for b in built},
    })
    console.print(f"[bold]{escape(str(env['gpu_name']))}[/] ({env['arch']}, {env['sm_count']} SMs, driver {env['driver']}, "
                  f"cuBLAS {env['cublas_version']}); {_yardsticks(specs, dispatchers)}. Run: {run.path}")
    if earlier is not None and len(earlier):
        console.print(f"[yellow]note:[/] {run.path} already holds {len(earlier)} bench rows: a new result replaces the "
                      f"one of the same kernel, shape and tier, the others are kept", highlight=False)

    records: list[dict] = []
    names = ([CUBLAS] if cublas else []) + [s.name for s in specs] + [d.name for d in dispatchers]
    policy = TimingPolicy(min_reps=min_reps, max_seconds=max_seconds, target_cv=target_cv, warmup_seconds=warmup_seconds)
    progress = progress_bar(console)
    task = progress.add_task("bench", total=len(names) * len(shapes))

    def on_record(rec: dict) -> None:
        records.append(rec)
        with open(run.path / "bench.jsonl", "a") as f:  # survives an interruption line by line
            f.write(json.dumps(rec) + "\n")
        progress.advance(task)
        progress.update(task, description=f"{rec['kernel']} {rec['M']}x{rec['N']}x{rec['K']} {rec['status']}")

    complete = False
    try:
        with progress:  # Ctrl-C and SIGTERM (cli.main raises KeyboardInterrupt for both) keep the finished rows
            if plan is None:
                run_bench(specs, cubins, shapes, policy, on_record, include_cublas=cublas, dispatchers=dispatchers, kernels=every,
                          sms=int(env["sm_count"]))
            else:  # the same work as a job list, one worker per GPU
                from ..fanout.fan import fan_bench
                from ..measure.jobs import bench_jobs, dispatch_skips
                from ._fanout import GpuProgress

                sms = int(env["sm_count"])
                for row in dispatch_skips(dispatchers, shapes, every, sms):
                    on_record(row)
                ledger = fan_bench(bench_jobs(specs, shapes, cublas, dispatchers, every, sms), cubins, policy, plan,
                                   on_record, GpuProgress(progress, plan))
                run.update_meta(fanout=ledger.meta())
        complete = True
    finally:
        if records:
            df = as_table(records)
            run.write_table("bench", merge_rows(earlier, df)[0])
            run.update_meta(complete=complete)
            console.print(bench_table(df, title=f"{env['gpu_name']}: SGEMM ladder vs cuBLAS"))
            expected = [s.name for s in specs if s.expect_fail]  # FAILs on purpose (1xTF32): not a failure of the run
            n_bad = int((df["status"].isin(FAILED_STATUSES) & ~((df["status"] == FAIL) & df["kernel"].isin(expected))).sum())
            console.print(f"{len(df)} results, {n_bad} FAIL/ERROR; tables in {run.path}/bench.csv and bench.parquet"
                          + ("" if complete else " [yellow](interrupted: partial run)[/]"))
            if suite is not None:
                summary = summarize(merge_rows(earlier, df)[0], shapes)
                run.write_table("suite", summary)
                run.update_meta(suite={"name": suite, "shapes": [list(s) for s in shapes]})
                console.print(suite_table(summary, f"suite {suite}: % of cuBLAS over {len(shapes)} shapes ({env['gpu_name']})"))
            if complete and n_bad:
                raise typer.Exit(Exit.FAILED)


def union(earlier: list | None, now: list) -> list:
    """The items of both lists, earlier ones first, each once (shapes and kernels of a merged run)."""
    seen = [*(earlier if isinstance(earlier, list) else []), *now]
    return [item for i, item in enumerate(seen) if item not in seen[:i]]


def _yardsticks(specs, dispatchers) -> str:
    """What cuBLAS is timed as for the tiers of this bench ('cuBLAS fp32: SGEMM, strict FP32 (no
    TF32)'), so an FP16 bench does not say strict FP32."""
    from ..tiers import REFERENCE_ROWS, TIERS

    tiers = sorted({s.tier for s in specs} | {d.tier for d in dispatchers}) or ["fp32"]
    return "cuBLAS " + "; ".join(f"{t}: {REFERENCE_ROWS[TIERS[t].reference].math}" for t in tiers if t in TIERS)
