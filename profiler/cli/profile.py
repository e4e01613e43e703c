"""`gemmprof profile`: each kernel (and cuBLAS) under Nsight Compute, one report per kernel and
shape, then the reports read back into tables; or, after `--`, any program (`_program.py`)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from ._fanout import GpusOption, MixedOption, SchedulerOption, SharedDirOption
from ._options import KERNEL_HELP, TIER_HELP, ManifestOption
from ..render.console import make_console, progress_bar
from ..tiers import FAIL


def profile(
    program: Annotated[list[str] | None, typer.Argument(metavar="CMD", show_default=False,
                                                         help="A program and its arguments, after '--': profiled instead of the ladder.")] = None,
    kernel: Annotated[list[str] | None, typer.Option("--kernel", "-k", "--kernel-regex", help=KERNEL_HELP + ", cuBLAS included; 'cublas' for cuBLAS. With a program: a regex on its kernels' names (ncu --kernel-name regex:).")] = None,
    tier: Annotated[str | None, typer.Option(help=TIER_HELP)] = None,
    size: Annotated[int | None, typer.Option(help="Square size M=N=K (default 2048).")] = None,
    mnk: Annotated[tuple[int, int, int] | None, typer.Option("--mnk", help="A rectangular shape: --mnk M N K.")] = None,
    section_set: Annotated[str, typer.Option("--set", help="ncu section set (full, detailed, basic, ...).")] = "full",
    timeline: Annotated[bool, typer.Option("--timeline", help="Also sample warp states over each launch (ncu's PmSampling_WarpStates); the pipes and memory over the launch come with --set full.")] = False,
    clock_control: Annotated[str, typer.Option(help="Passed to ncu: 'none' measures the clocks the card runs (default; required on shared machines); 'base' locks them.")] = "none",
    ncu: Annotated[str | None, typer.Option(help="Path to ncu (default: $GEMMPROF_NCU, then PATH).")] = None,
    out: Annotated[Path, typer.Option(help="Directory under which the run directory is written.")] = Path("reports"),
    run_id: Annotated[str | None, typer.Option(help="Run directory name; an existing run is extended (default: new date-time-gpu).")] = None,
    force: Annotated[bool, typer.Option(help="Profile again even where a report already exists.")] = False,
    compress: Annotated[bool, typer.Option("--xz", help="Store reports xz-compressed (.ncu-rep.xz, ~10x smaller; gemmprof reads both).")] = False,
    timing_only: Annotated[bool, typer.Option(help="No counters (e.g. ERR_NVGPUCTRPERM): bench the same kernels and shape instead.")] = False,
    nvtx_include: Annotated[list[str] | None, typer.Option("--nvtx-include", help="With a program: profile only launches inside this NVTX range (ncu's syntax, e.g. 'app/' for a push/pop range; repeatable: any of them).")] = None,
    launch_skip: Annotated[int | None, typer.Option(min=0, help="With a program: skip this many matching launches first (ncu --launch-skip).")] = None,
    launch_count: Annotated[int | None, typer.Option(min=1, help="With a program: profile at most this many matching launches (ncu --launch-count).")] = None,
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

    Runs `ncu --set full --import-source yes` (plus the exact FLOP and DRAM
    counters the analysis needs), capturing only the measured launch (NVTX range 'gp'), never the
    warm-up or the verification. Reports are written atomically; an interrupted run keeps every
    finished report, and a rerun skips them unless --force.

    A program (after `--`) runs in the current directory under the same ncu options and the
    filters given (`--nvtx-include`, `-k`, `--launch-skip`, `--launch-count`); its report, ncu's
    output and the tables land in one run directory. Without a filter it is first run once to
    count its launches: more than 50 ask before profiling (`--yes` skips the question).
    """
    if program:
        from ._program import profile_program_cli

        return profile_program_cli(
            program, kernel_regex=kernel, nvtx_include=nvtx_include, launch_skip=launch_skip, launch_count=launch_count,
            replay_mode=replay_mode, yes=yes, section_set=section_set, timeline=timeline, clock_control=clock_control, ncu=ncu, out=out,
            run_id=run_id, force=force, compress=compress,
            ladder_only={"--size": size, "--mnk": mnk, "--timing-only": timing_only, "--tier": tier})
    program_only = {"--nvtx-include": nvtx_include, "--launch-skip": launch_skip, "--launch-count": launch_count,
                    "--replay-mode": replay_mode, "--yes": yes}
    given = [name for name, value in program_only.items() if value]
    if given:
        from ..errors import GemmprofError

        raise GemmprofError(f"{', '.join(given)} applies to a program only",
                            "name one after '--': gemmprof profile " + given[0] + " ... -- CMD ARGS")
    from ..errors import GemmprofError
    from .. import metrics as metric_table
    from ..extract.run import extract_run
    from ..catalogue.manifest import reference_name, reference_tiers, select_kernels
    from ..tiers import CUBLAS
    from ..measure.build import build_all
    from ..measure.device import require_cupy
    from ..measure.provenance import collect_environment, git_fields
    from ..measure.ncu import CLOCK_CONTROLS, NcuOptions, resolve_ncu
    from ..measure.profiling import Callbacks, ProfileJob, profile_jobs, report_stem
    from ..runs.rundir import REPO_ROOT, REPORT_SUFFIXES, RunDir, command_line, new_run_id
    from ..names import check_run_id
    from ..paths import check_out_dir
    from ..catalogue.shapes import check_shape
    from ..catalogue.manifest import only_tier

    if run_id is not None:  # checked before any GPU work: it must never leave --out
        check_run_id(run_id)
    check_out_dir(out)
    if clock_control not in CLOCK_CONTROLS:
        raise GemmprofError(f"--clock-control must be one of {', '.join(CLOCK_CONTROLS)}")
    names = kernel or ["all"]
    with_cublas = "all" in names or CUBLAS in names
    ladder_names = [n for n in names if n != CUBLAS]
    specs = only_tier(tier, select_kernels(ladder_names) if ladder_names else [])[0]
    shape = check_shape(tuple(mnk)) if mnk else check_shape((2048 if size is None else size,) * 3)
    if timing_only:
        from .bench import bench

        return bench(kernel=[s.name for s in specs] or None, sizes="{}x{}x{}".format(*shape), out=out, run_id=run_id, cublas=with_cublas)

    from ._fanout import make_plan

    plan = make_plan(gpus, scheduler, shared_dir, mixed_gpus)
    started = time.perf_counter()
    exe = resolve_ncu(ncu)
    console = make_console()
    require_cupy()  # the target needs it: said here rather than inside ncu's output
    # NVML only: the CUDA side (runtime, cuBLAS, SMs) is reported by the first target instead.
    env = collect_environment(ncu=str(exe), need_gpu=True, nvml_only=True)
    phases = {"environment_s": time.perf_counter() - started}
    M, N, K = shape
    tiers = reference_tiers(specs)  # of the selection, before kernels that cannot run are dropped
    cc = tuple(int(part) for part in env["compute_capability"].split("."))
    runnable = []
    for s in specs:  # a kernel that cannot run here is a SKIP, as in bench, not a failed ncu run
        reason = s.cannot_run(M, N, K, cc)
        if reason:
            console.print(f"  {s.name}: skipped ({reason})", markup=False)
        else:
            runnable.append(s)
    specs = runnable
    # Compile in the background: cuBLAS is profiled first and needs no cubin.
    builder = ThreadPoolExecutor(max_workers=1)
    building = builder.submit(build_all, specs, env["arch"]) if specs else None
    opts = NcuOptions(ncu=exe, section_set=section_set, clock_control=clock_control, timeline=timeline,
                      extra_metrics=metric_table.ncu_extra_metrics())
    run = RunDir.create(out / (run_id or new_run_id(env["gpu_slug"])), {
        "kind": "profile", "command": command_line(), "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **git_fields(REPO_ROOT), "environment": env,
    })
    references = [ProfileJob(reference_name(t), t, None) for t in tiers] if with_cublas else []
    jobs = references + [ProfileJob(s.name, s.tier, s) for s in specs]
    console.print(f"[bold]{escape(str(env['gpu_name']))}[/]: ncu {env['ncu_version']} --set {section_set} --clock-control {clock_control}; "
                  f"{len(jobs)} kernels at {M}x{N}x{K} -> {run.path / 'ncu'}")
    progress = progress_bar(console)
    task = progress.add_task("profile", total=len(jobs))

    ncu_walls: list[float] = []

    def finished(record: dict) -> None:
        ncu_walls.append(record["ncu_wall_s"])
        if record.get("environment") and "cuda_runtime" not in env:  # the CUDA side, from the target
            env.update(record["environment"])
            run.update_meta(environment=env)
        status = record.get("status", "?")
        progress.console.print(f"  {report_stem(record['kernel'], M, N, K)}: {record['launches']} launch(es), "
                               f"{record['replay_passes']} passes, {record['ncu_wall_s']:.1f} s, verification {status}"
                               + (f" ({record['reason']})" if status == FAIL else ""))
        progress.advance(task)

    def skipped(stem: str) -> None:
        progress.console.print(f"  {stem}: report exists, skipped (--force to redo)")
        progress.advance(task)

    hooks = Callbacks(
        starting=lambda i, job: progress.update(task, description=f"[{i}/{len(jobs)}] {job.name} under ncu"),
        skipped=skipped,
        kernel_seen=lambda i, job, k, p: progress.update(task, description=f"[{i}/{len(jobs)}] {job.name}: {k[:40]} {p} passes"),
        finished=finished,
    )
    with progress:
        if plan is None:
            background = profile_jobs(run, jobs, shape, opts, lambda name: str(cubins(building)[name]), compress, force, hooks)
        else:  # the same jobs, one worker per GPU; each report joins the run as it arrives
            from ..fanout.fan import fan_profile
            from ..measure.jobs import profile_jobs as job_list
            from ._fanout import GpuProgress

            todo = []
            for job in job_list(tiers, specs, shape, with_cublas):
                stem = report_stem(job.kernel, M, N, K)
                if not force and any((run.path / "ncu" / (stem + ext)).is_file() for ext in REPORT_SUFFIXES):
                    skipped(stem)
                else:
                    todo.append(job)
            ledger, background = fan_profile(run, todo, cubins(building) if building else {}, opts, plan, compress,
                                             finished, GpuProgress(progress, plan))
            run.update_meta(fanout=ledger.meta())
    builder.shutdown()
    phases["profile_loop_s"] = time.perf_counter() - started - sum(phases.values())
    for proc in background:  # a failed prefetch is redone (and its error shown) by extract_run
        proc.wait()
    phases["extract_wait_s"] = time.perf_counter() - started - sum(phases.values())
    tables = extract_run(run)
    phases["tables_s"] = time.perf_counter() - started - sum(phases.values())
    total = time.perf_counter() - started
    ncu_total = sum(ncu_walls)  # this invocation's ncu time (skipped reports cost none)
    run.update_meta(profile_wall_s=total, ncu_wall_s=ncu_total, profile_phases_s=phases)
    console.print(f"extracted {len(tables['kernels'])} launches into {run.path}/kernels.csv (rules, source, metrics beside it); "
                  f"see them with: gemmprof analyze {run.path}")
    console.print(f"wall time {total:.1f} s, of which ncu {ncu_total:.1f} s; "
                  + ", ".join(f"{k.removesuffix('_s')} {v:.1f} s" for k, v in phases.items()))
    if plan is not None and ledger.failures:
        raise GemmprofError(f"{len(ledger.failures)} job(s) failed twice; the others are in {run.path}: "
                            + "; ".join(ledger.failures)[:600])


def cubins(building) -> dict[str, Path]:
    """Wait for the background build (once) and map kernel name -> cubin."""
    return {b.spec.name: b.cubin for b in building.result()}
