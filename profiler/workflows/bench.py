"""The bench workflow: verify each kernel against cuBLAS on fresh random inputs, time the ones
that pass, and write the run directory (bench.jsonl as it goes, the tables at the end, a suite's
summary)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from rich.markup import escape

from ..errors import GemmprofError
from ..tiers import FAIL, FAILED_STATUSES, tier
from .options import FanoutOptions, RunOptions
from .progress import Progress

DEFAULT_SIZES = "1024,2048,4096"


@dataclass(frozen=True)
class BenchOptions(RunOptions, FanoutOptions):
    """What `gemmprof bench` is asked: the kernels (names, FIRST..LAST ranges, 'all', dispatchers),
    the shapes (sizes, one MxNxK, or a named suite), where the run goes, the timing policy."""

    kernel: list[str] | None = None
    sizes: str | None = None
    mnk: tuple[int, int, int] | None = None
    suite: str | None = None
    max_seconds: float = 3.0
    min_reps: int = 10
    warmup_seconds: float = 0.3
    target_cv: float = 0.01
    cublas: bool = True
    tier: str | None = None
    predecessors: bool = False


@dataclass(frozen=True)
class BenchResult:
    """The run written, its bench rows (this bench's), how many failed unexpectedly, and whether
    every row was measured (an interrupted bench keeps what it finished)."""

    run: object  # runs.rundir.RunDir
    table: pd.DataFrame
    failures: int
    complete: bool


@dataclass(frozen=True)
class _Selection:
    specs: list
    dispatchers: list
    needed: list  # the kernels to build: the chosen ones and every dispatcher's
    every: dict
    shapes: list


def bench(options: BenchOptions, progress: Progress) -> BenchResult:
    """Bench the kernels of `options` into a run directory (an existing one is merged into: a new
    result replaces the one of the same kernel, shape and tier)."""
    from ..measure.build import build_all
    from ..measure.provenance import collect_environment

    selection = _select(options)
    plan = options.plan()
    env = collect_environment(need_gpu=True)
    with progress.working("compiling kernels with nvcc"):
        built = build_all(selection.needed, env["arch"])
    run, earlier = _open_run(options, selection, env, built)
    progress.say(f"[bold]{escape(str(env['gpu_name']))}[/] ({env['arch']}, {env['sm_count']} SMs, driver {env['driver']}, "
                 f"cuBLAS {env['cublas_version']}); {yardsticks(selection.specs, selection.dispatchers)}. Run: {run.path}")
    if earlier is not None and len(earlier):
        progress.say(f"[yellow]note:[/] {run.path} already holds {len(earlier)} bench rows: a new result replaces the "
                     f"one of the same kernel, shape and tier, the others are kept", highlight=False)
    records: list[dict] = []
    complete = False
    try:
        _measure(options, selection, plan, run, env, {b.spec.name: str(b.cubin) for b in built}, records, progress)
        complete = True
    finally:
        result = _finish(options, selection, run, env, earlier, records, complete, progress) if records else None
    if result is None:
        import pandas as pd

        result = BenchResult(run, pd.DataFrame(), 0, complete)
    return result


def _select(options: BenchOptions) -> _Selection:
    """The kernels, dispatchers and shapes of `options`, checked before any GPU work."""
    from ..catalogue.dispatchers import select_named, with_dispatched
    from ..catalogue.manifest import load_manifest, only_tier, with_predecessors
    from ..catalogue.shapes import gather_shapes
    from ..catalogue.suites import load_suite
    from ..names import check_run_id
    from ..paths import check_out_dir

    if options.run_id is not None:  # checked before any GPU work: it must never leave --out
        check_run_id(options.run_id)
    check_out_dir(options.out)
    specs, dispatchers = only_tier(options.tier, *select_named(options.kernel))
    if options.predecessors:
        specs = with_predecessors(specs)
    every = {s.name: s for s in load_manifest()}
    needed = with_dispatched(specs, dispatchers)
    if options.suite is not None and (options.sizes or options.mnk):
        raise GemmprofError("--suite names its own shapes: give it without --sizes and --mnk")
    shapes = load_suite(options.suite) if options.suite is not None else gather_shapes(options.sizes, options.mnk, DEFAULT_SIZES)
    if options.max_seconds <= 0 or options.min_reps < 1 or options.warmup_seconds < 0:
        raise GemmprofError("--max-seconds must be positive, --min-reps at least 1 and --warmup-seconds not negative")
    return _Selection(specs, dispatchers, needed, every, shapes)


def _open_run(options: BenchOptions, selection: _Selection, env: dict, built: list):
    """The run directory, made or (benching into an existing run) merged into: its rows are
    merged, not lost. Returns it and the bench rows it held."""
    from ..measure.provenance import git_fields
    from ..runs.rundir import REPO_ROOT, RUN_JSON, RunDir, command_line, new_run_id

    path = options.out / (options.run_id or new_run_id(env["gpu_slug"]))
    earlier, before = None, {}
    if (path / RUN_JSON).is_file():
        before = RunDir(path).meta()
        earlier = RunDir(path).read_table("bench") if RunDir(path).has_table("bench") else None
    run = RunDir.create(path, {
        "kind": "bench", "command": command_line(), "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **git_fields(REPO_ROOT), "environment": env, "complete": False,
        "shapes": union(before.get("shapes"), [list(s) for s in selection.shapes]),
        "kernels": union(before.get("kernels"), [s.name for s in selection.specs]),
        "dispatchers": {d.name: [r.__dict__ for r in d.ordered] for d in selection.dispatchers},
        "policy": {"max_seconds": options.max_seconds, "min_reps": options.min_reps, "target_cv": options.target_cv,
                   "warmup_seconds": options.warmup_seconds},
        "cublas_math_mode": "CUBLAS_DEFAULT_MATH (strict FP32, no TF32)",
        "resources": {b.spec.name: b.resources.__dict__ for b in built},
    })
    return run, earlier


def _measure(options: BenchOptions, selection: _Selection, plan, run, env: dict, cubins: dict, records: list,
             progress: Progress) -> None:
    """Time every kernel and shape, each result appended to `records` and to bench.jsonl as it
    comes (so an interruption keeps it), here or on one worker per GPU."""
    from ..measure.bench import bench as run_bench
    from ..measure.jobs import BenchWork
    from ..measure.timing import TimingPolicy
    from ..catalogue.manifest import reference_rows

    specs, dispatchers, shapes = selection.specs, selection.dispatchers, selection.shapes
    # every cuBLAS row the bench times: each tier's reference and its context rows
    references = [name for name, _ in reference_rows([*specs, *dispatchers])] if options.cublas else []
    names = references + [s.name for s in specs] + [d.name for d in dispatchers]
    policy = TimingPolicy(min_reps=options.min_reps, max_seconds=options.max_seconds, target_cv=options.target_cv,
                          warmup_seconds=options.warmup_seconds)
    work = BenchWork(specs, shapes, options.cublas, dispatchers, selection.every, int(env["sm_count"]))
    # Ctrl-C and SIGTERM (cli.main raises KeyboardInterrupt for both) keep the finished rows
    with progress.bar("bench", len(names) * len(shapes)) as bar:
        def on_record(rec: dict) -> None:
            records.append(rec)
            with open(run.path / "bench.jsonl", "a") as f:  # survives an interruption line by line
                f.write(json.dumps(rec) + "\n")
            bar.advance(f"{rec['kernel']} {rec['M']}x{rec['N']}x{rec['K']} {rec['status']}")

        if plan is None:
            run_bench(work, cubins, policy, on_record)
            return
        from ..fanout.fan import fan_bench  # the same work as a job list, one worker per GPU
        from ..measure.jobs import bench_jobs, dispatch_skips

        for row in dispatch_skips(work):
            on_record(row)
        ledger = fan_bench(bench_jobs(work), cubins, policy, plan, on_record, bar.per_gpu(plan))
        run.update_meta(fanout=ledger.meta())


def _title(df: pd.DataFrame) -> str:
    """The table's title: its tier's (an FP16 run is not an SGEMM ladder), or one for all tiers."""
    tiers = sorted(set(df["tier"].dropna())) if "tier" in df else []
    if len(tiers) != 1:
        return "the kernels against their tier's cuBLAS"
    title = tier(tiers[0]).title
    return title[0].lower() + title[1:]


def _finish(options: BenchOptions, selection: _Selection, run, env: dict, earlier, records: list, complete: bool,
            progress: Progress) -> BenchResult:
    """Write the tables of what was measured (all of it, or what an interruption left), show
    them and, for a suite, its summary."""
    from ..analyze.suite import summarize
    from ..render.console import bench_table, suite_table
    from ..runs.bench_log import as_table, merge_rows

    df = as_table(records)
    merged = merge_rows(earlier, df)[0]
    run.write_table("bench", merged)
    run.update_meta(complete=complete)
    progress.show(bench_table(df, title=f"{env['gpu_name']}: {_title(df)}"))
    expected = [s.name for s in selection.specs if s.expect_fail]  # FAILs on purpose (1xTF32): not a failure of the run
    failures = int((df["status"].isin(FAILED_STATUSES) & ~((df["status"] == FAIL) & df["kernel"].isin(expected))).sum())
    progress.say(f"{len(df)} results, {failures} FAIL/ERROR; tables in {run.path}/bench.csv and bench.parquet"
                 + ("" if complete else " [yellow](interrupted: partial run)[/]"))
    if options.suite is not None:
        name, shapes = merged_suite(run.meta().get("suite"), options.suite, list(selection.shapes))
        summary = summarize(merged, shapes)
        run.write_table("suite", summary)
        run.update_meta(suite={"name": name, "shapes": [list(s) for s in shapes]})
        progress.show(suite_table(summary, f"suite {name}: % of cuBLAS over {len(shapes)} shapes ({env['gpu_name']})"))
    return BenchResult(run, df, failures, complete)


def merged_suite(earlier, name: str, shapes: list) -> tuple[str, list]:
    """The suite of a run that a suite was just benched into: that suite, or, where the run held
    another (run.json's `suite`), both (names joined by "+", every shape once), so that the run's
    summary and report cover all the shapes it holds."""
    if not isinstance(earlier, dict) or not isinstance(earlier.get("name"), str) or earlier["name"] == name:
        return name, shapes
    before = [tuple(s) for s in earlier.get("shapes") or [] if isinstance(s, (list, tuple)) and len(s) == 3]
    names = earlier["name"].split("+")
    return "+".join(names if name in names else [*names, name]), union(before, [tuple(s) for s in shapes])


def union(earlier: list | None, now: list) -> list:
    """The items of both lists, earlier ones first, each once (shapes and kernels of a merged run)."""
    seen = [*(earlier if isinstance(earlier, list) else []), *now]
    return [item for i, item in enumerate(seen) if item not in seen[:i]]


def yardsticks(specs, dispatchers) -> str:
    """What cuBLAS is timed as for the tiers of this bench ('cuBLAS fp32: SGEMM, strict FP32 (no
    TF32)'), so an FP16 bench does not say strict FP32."""
    from ..tiers import REFERENCE_ROWS, TIERS

    tiers = sorted({s.tier for s in specs} | {d.tier for d in dispatchers}) or ["fp32"]
    return "cuBLAS " + "; ".join(f"{t}: {REFERENCE_ROWS[TIERS[t].reference].math}" for t in tiers if t in TIERS)
