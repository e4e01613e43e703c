"""The profile workflow: each kernel (and cuBLAS) under Nsight Compute at one shape, one report
per kernel, reports written atomically and read back into the run's tables; or, without counters
(`timing_only`), the same kernels benched instead."""

from __future__ import annotations

import functools
import importlib
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from rich.markup import escape

from ..errors import GemmprofError
from ..tiers import FAIL
from .bench import BenchOptions, BenchResult, bench
from .options import FanoutOptions, NcuRunOptions
from .progress import Progress


@dataclass(frozen=True)
class ProfileOptions(NcuRunOptions, FanoutOptions):
    """What `gemmprof profile` is asked for the ladder: besides what any profile under ncu is
    asked, the kernels' tier, one shape (`size` square, 2048 by default, or `mnk`), and
    `timing_only`: no counters, a bench of the same kernels and shape instead."""

    tier: str | None = None
    size: int | None = None
    mnk: tuple[int, int, int] | None = None
    timing_only: bool = False


@dataclass(frozen=True)
class ProfileResult:
    """The run written, its tables (kernels, rules, source, ...), where the time went."""

    run: object  # runs.rundir.RunDir
    tables: dict
    wall_s: float
    ncu_wall_s: float
    phases_s: dict = field(default_factory=dict)


def profile(options: ProfileOptions, progress: Progress) -> ProfileResult | BenchResult:
    """Profile the kernels of `options` into a run directory (an existing run is extended; a
    report already there is skipped unless `force`)."""
    from ..catalogue.manifest import reference_tiers
    from ..measure.build import build_all
    from ..measure.device import require_cupy
    from ..measure.ncu import resolve_ncu
    from ..measure.provenance import collect_environment, git_fields
    from ..runs.rundir import REPO_ROOT

    specs, shape, with_cublas = _select(options)
    if options.timing_only:
        return bench(BenchOptions(kernel=[s.name for s in specs] or None, sizes="{}x{}x{}".format(*shape), out=options.out,
                                  run_id=options.run_id, cublas=with_cublas), progress)
    plan = options.plan()
    started = time.perf_counter()
    exe = resolve_ncu(options.ncu)
    require_cupy()  # the target needs it: said here rather than inside ncu's output
    # Beside the GPU query and the first ncu run, git's record of the checkout (written into the
    # run once the ncu runs are done: ncu does not wait for it); beside the first ncu run, the
    # build (cuBLAS, profiled first, needs no cubin).
    side = ThreadPoolExecutor(max_workers=2)
    checkout = side.submit(git_fields, REPO_ROOT)
    # NVML only: the CUDA side (runtime, cuBLAS, SMs) is reported by the first target instead.
    env = collect_environment(ncu=str(exe), need_gpu=True, nvml_only=True)
    phases = {"environment_s": time.perf_counter() - started}
    # of the selection, before kernels that cannot run are dropped; cuBLAS alone: that of --tier
    tiers = reference_tiers(specs) if specs or options.tier is None else [options.tier]
    specs = _runnable(specs, shape, env, progress)
    building = side.submit(build_all, specs, env["arch"]) if specs else None
    work = _Work(options, exe, env, shape, _open_run(options, env), tiers, specs, with_cublas, building)
    try:
        ncu_walls, ledger, background = _profile_all(work, plan, progress)
    finally:  # also for an interrupted run: the reports it kept came from this checkout
        work.run.update_meta(**checkout.result())
        side.shutdown()
    return _finish(work, started, phases, ncu_walls, ledger, background, progress)


# run.json's phases of a profile, as the last line of its output says them
PHASE_WORDS = {"environment_s": "GPU and tools queried", "profile_loop_s": "profiling (ncu included)",
               "extract_wait_s": "reports read after ncu", "tables_s": "tables written"}


@functools.cache
def _importing() -> threading.Thread:
    """`_import_what_follows_ncu` in a thread of its own, started once."""
    thread = threading.Thread(target=_import_what_follows_ncu, daemon=True)
    thread.start()
    return thread


def _import_what_follows_ncu() -> None:
    """Import, while ncu replays the first kernel, the modules that read the reports into tables
    and print them (pandas and pyarrow are most of a second): the wait for ncu is free time, the
    time after it is what a profile costs beyond ncu. Not before ncu has started: this thread
    holds the interpreter while it imports, and the work that prepares ncu's first run would wait
    for it (on an H100's host, ncu started 0.2-0.4 s later); not while the target starts either,
    whose own imports it would compete with."""
    for name in ("pandas", "pyarrow.parquet", "profiler.extract.run", "profiler.render.console"):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - only a head start: the foreground import says what is wrong
            return


def _select(options: ProfileOptions) -> tuple[list, tuple[int, int, int], bool]:
    """The kernels, the shape and whether cuBLAS is profiled, checked before any GPU work."""
    from ..catalogue.manifest import only_tier, select_kernels
    from ..catalogue.shapes import check_shape
    from ..measure.ncu import CLOCK_CONTROLS
    from ..names import check_run_id
    from ..paths import check_out_dir
    from ..tiers import CUBLAS
    from ..tiers import tier as tier_record

    if options.run_id is not None:  # checked before any GPU work: it must never leave --out
        check_run_id(options.run_id)
    check_out_dir(options.out)
    if options.clock_control not in CLOCK_CONTROLS:
        raise GemmprofError(f"--clock-control must be one of {', '.join(CLOCK_CONTROLS)}")
    names = options.kernel or ["all"]
    ladder_names = [n for n in names if n != CUBLAS]
    if ladder_names:
        specs = only_tier(options.tier, select_kernels(ladder_names))[0]
    else:  # cuBLAS alone: --tier says which reference (FP16 GemmEx for fp16)
        specs = []
        if options.tier is not None:
            tier_record(options.tier)
    size = 2048 if options.size is None else options.size
    shape = check_shape(tuple(options.mnk)) if options.mnk else check_shape((size,) * 3)
    return specs, shape, "all" in names or CUBLAS in names


def _runnable(specs: list, shape, env: dict, progress: Progress) -> list:
    """The kernels that can run the shape on this GPU; the others are a SKIP, as in bench, not a
    failed ncu run."""
    cc = tuple(int(part) for part in env["compute_capability"].split("."))
    runnable = []
    for s in specs:
        reason = s.cannot_run(*shape, cc)
        if reason:
            progress.say(f"  {s.name}: skipped ({reason})", markup=False)
        else:
            runnable.append(s)
    return runnable


def _open_run(options: ProfileOptions, env: dict):
    """The run directory, before git's record of the checkout (added once ncu has started)."""
    from ..runs.rundir import RunDir, command_line, new_run_id

    return RunDir.create(options.out / (options.run_id or new_run_id(env["gpu_slug"])), {
        "kind": "profile", "command": command_line(), "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "environment": env,
    })


@dataclass
class _Work:
    """One profile under way: what is profiled, where, with which ncu."""

    options: ProfileOptions
    exe: Path
    env: dict
    shape: tuple[int, int, int]
    run: object
    tiers: list
    specs: list
    with_cublas: bool
    building: object  # the background build's future, None without kernels

    def ncu_options(self):
        from .. import metrics as metric_table
        from ..measure.ncu import NcuOptions

        o = self.options
        return NcuOptions(ncu=self.exe, section_set=o.section_set, clock_control=o.clock_control, timeline=o.timeline,
                          extra_metrics=metric_table.ncu_extra_metrics())

    def cubins(self) -> dict[str, Path]:
        """Wait for the background build (once) and map kernel name -> cubin."""
        return {b.spec.name: b.cubin for b in self.building.result()} if self.building else {}


def _profile_all(work: _Work, plan, progress: Progress):
    """Every job under ncu, here or one worker per GPU; returns each ncu run's wall time, the
    fan-out's ledger (None here) and the background extractions to wait for."""
    from ..catalogue.manifest import reference_name
    from ..measure.profiling import Callbacks, ProfileJob, profile_jobs, report_stem

    M, N, K = work.shape
    references = [ProfileJob(reference_name(t), t, None) for t in work.tiers] if work.with_cublas else []
    jobs = references + [ProfileJob(s.name, s.tier, s) for s in work.specs]
    env, run, o = work.env, work.run, work.options
    progress.say(f"[bold]{escape(str(env['gpu_name']))}[/]: ncu {env['ncu_version']} --set {o.section_set} "
                 f"--clock-control {o.clock_control}; {len(jobs)} kernels at {M}x{N}x{K} -> {run.path / 'ncu'}")
    ncu_walls: list[float] = []
    with progress.bar("profile", len(jobs)) as bar:
        def finished(record: dict) -> None:
            ncu_walls.append(record["ncu_wall_s"])
            if record.get("environment") and "cuda_runtime" not in env:  # the CUDA side, from the target
                env.update(record["environment"])
                run.update_meta(environment=env)
            status = record.get("status", "?")
            bar.say(f"  {report_stem(record['kernel'], M, N, K)}: {record['launches']} launch(es), "
                    f"{record['replay_passes']} passes, {record['ncu_wall_s']:.1f} s, verification {status}"
                    + (f" ({record['reason']})" if status == FAIL else ""))
            bar.advance()

        def skipped(stem: str) -> None:
            bar.say(f"  {stem}: report exists, skipped (--force to redo)")
            bar.advance()

        def starting(i: int, job) -> None:
            bar.describe(f"[{i}/{len(jobs)}] {job.name} under ncu")

        if plan is None:
            hooks = Callbacks(
                starting=starting,
                replaying=lambda i, job: _importing(),
                skipped=skipped,
                kernel_seen=lambda i, job, k, p: bar.describe(f"[{i}/{len(jobs)}] {job.name}: {k[:40]} {p} passes"),
                finished=finished,
            )
            cubin = lambda name: str(work.cubins()[name])  # noqa: E731
            return ncu_walls, None, profile_jobs(run, jobs, work.shape, work.ncu_options(), cubin, o.compress, o.force, hooks)
        _importing()  # here ncu runs in the workers' processes
        ledger, background = _fan_out(work, plan, finished, skipped, bar)
    return ncu_walls, ledger, background


def _fan_out(work: _Work, plan, finished, skipped, bar):
    """The same jobs, one worker per GPU; each report joins the run as it arrives."""
    from ..fanout.fan import fan_profile
    from ..measure.jobs import profile_jobs as job_list
    from ..measure.profiling import report_stem
    from ..runs.rundir import REPORT_SUFFIXES

    todo = []
    for job in job_list(work.tiers, work.specs, work.shape, work.with_cublas):
        stem = report_stem(job.kernel, *work.shape)
        if not work.options.force and any((work.run.path / "ncu" / (stem + ext)).is_file() for ext in REPORT_SUFFIXES):
            skipped(stem)
        else:
            todo.append(job)
    ledger, background = fan_profile(work.run, todo, work.cubins(), work.ncu_options(), plan, work.options.compress,
                                     finished, bar.per_gpu(plan))
    work.run.update_meta(fanout=ledger.meta())
    return ledger, background


def _finish(work: _Work, started: float, phases: dict, ncu_walls: list, ledger, background, progress: Progress) -> ProfileResult:
    """Wait for the background extractions, read the reports into the run's tables, record
    where the time went."""
    from ..extract.run import extract_run

    run = work.run
    phases["profile_loop_s"] = time.perf_counter() - started - sum(phases.values())
    for proc in background:  # a failed prefetch is redone (and its error shown) by extract_run
        proc.reports_read()
    phases["extract_wait_s"] = time.perf_counter() - started - sum(phases.values())
    tables = extract_run(run)
    for proc in background:  # a server's own exit, after its last answer, overlapped the tables
        proc.wait()
    phases["tables_s"] = time.perf_counter() - started - sum(phases.values())
    total = time.perf_counter() - started
    ncu_total = sum(ncu_walls)  # this invocation's ncu time (skipped reports cost none)
    run.update_meta(profile_wall_s=total, ncu_wall_s=ncu_total, profile_phases_s=phases)
    progress.say(f"extracted {len(tables['kernels'])} launches into {run.path}/kernels.csv (rules, source, metrics beside it); "
                 f"see them with: gemmprof analyze {run.path}")
    progress.say(f"wall time {total:.1f} s, of which ncu {ncu_total:.1f} s; "
                 + ", ".join(f"{PHASE_WORDS.get(k, k)} {v:.1f} s" for k, v in phases.items()))
    if ledger is not None and ledger.failures:
        raise GemmprofError(f"{len(ledger.failures)} job(s) failed twice; the others are in {run.path}: "
                            + "; ".join(ledger.failures)[:600])
    return ProfileResult(run, tables, total, ncu_total, phases)

