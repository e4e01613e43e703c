"""The program workflow: any program under Nsight Compute into a run directory (the launches the
filters name, or, without a filter, all of them once counted and, past a bound, agreed to), its
report, ncu's output and the tables in one place. `measure.program` does the profiling."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.markup import escape

from ..errors import Exit, GemmprofError
from .options import NcuRunOptions
from .progress import Progress


@dataclass(frozen=True)
class ProgramOptions(NcuRunOptions):
    """What `gemmprof profile -- CMD ARGS` is asked: the program, and besides what any profile
    under ncu is asked (`kernel`: regexes on the names of its kernels), the filters on its
    launches (NVTX ranges, skip and count, ncu's replay mode); `yes`: profile every launch
    without asking."""

    program: list[str] = field(default_factory=list)
    nvtx_include: list[str] | None = None
    launch_skip: int | None = None
    launch_count: int | None = None
    replay_mode: str | None = None
    yes: bool = False


@dataclass(frozen=True)
class ProgramResult:
    """The run written, ncu's record of the profile (the program's and ncu's exit, the launches),
    the launches read into the tables."""

    run: object  # runs.rundir.RunDir
    record: dict
    launches: int


def profile_program(options: ProgramOptions, progress: Progress) -> ProgramResult:
    """Profile the program of `options`; a program or an ncu that did not end well is a one-line
    error that says what the run kept."""
    from .. import metrics as metric_table
    from ..measure.ncu import NcuOptions, resolve_ncu
    from ..measure.program import check_command
    from ..measure.provenance import collect_environment

    filters = _filters(options)
    argv = check_command(list(options.program))
    exe = resolve_ncu(options.ncu)
    started = time.perf_counter()
    total = filters.launch_count
    if not filters.narrows:
        total = guard(exe, argv, filters, options.section_set, options.yes, progress)
    env = collect_environment(ncu=str(exe), nvml_only=True)  # no CuPy needed: the program is the user's
    opts = NcuOptions(ncu=exe, section_set=options.section_set, clock_control="none", timeline=options.timeline,
                      extra_metrics=metric_table.ncu_extra_metrics())
    run = _open_run(options, argv, env)
    progress.say(f"[bold]{escape(str(env.get('gpu_name', 'GPU unknown')))}[/]: ncu {escape(str(env.get('ncu_version')))} "
                 f"--set {escape(options.section_set)} --clock-control none; {escape(filters.describe())}; "
                 f"{escape(' '.join(argv))} -> {escape(str(run.path / 'ncu'))}", soft_wrap=True)
    done = _run_under_ncu(options, run, argv, opts, filters, total, progress)
    return _finish(run, done, filters, started, progress)


def _filters(options: ProgramOptions):
    """The launches to profile, from the options, checked before anything runs."""
    from ..measure.ncu import REPLAY_MODES, Filters
    from ..names import check_run_id
    from ..paths import check_out_dir

    if options.run_id is not None:
        check_run_id(options.run_id)
    check_out_dir(options.out)
    if options.clock_control != "none":
        raise GemmprofError("a program is profiled with --clock-control none only",
                            "the card is measured at the clocks it runs; ncu must not lock them on a shared machine")
    if options.replay_mode is not None and options.replay_mode not in REPLAY_MODES:
        raise GemmprofError(f"--replay-mode {options.replay_mode!r} is not one of {', '.join(REPLAY_MODES)}")
    regexes = options.kernel or []
    return Filters(
        nvtx_include=tuple(options.nvtx_include or ()),
        kernel_regex=regexes[0] if len(regexes) == 1 else "|".join(f"(?:{r})" for r in regexes) or None,
        launch_skip=options.launch_skip, launch_count=options.launch_count, replay_mode=options.replay_mode)


def _open_run(options: ProgramOptions, argv: list[str], env: dict):
    from ..measure.program import SOURCE
    from ..measure.provenance import git_fields
    from ..runs.rundir import REPO_ROOT, RunDir, command_line, new_run_id

    return RunDir.create(options.out / (options.run_id or new_run_id(env.get("gpu_slug", "gpu"))), {
        "kind": "profile", "source": SOURCE, "command": command_line(), "program": argv, "cwd": os.getcwd(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **git_fields(REPO_ROOT),
        "environment": env, "complete": False,
    })


def _run_under_ncu(options: ProgramOptions, run, argv: list[str], opts, filters, total: int | None, progress: Progress):
    """The program under ncu, its output shown as it comes, the GPU's state sampled beside it;
    run.json records how it ended (an interruption too)."""
    from ..measure.program import INTERRUPTED, profile_program as run_program
    from ..measure.sampler import StateSampler

    try:
        with progress.bar("starting the program under ncu", total, spinner=True) as bar, \
                StateSampler(interval_s=0.5) as sampler:
            def line_seen(line: str) -> None:
                if not line.startswith("==PROF=="):  # the program's own output, and ncu's warnings
                    bar.say(line, markup=False, highlight=False)

            done = run_program(run, argv, opts, filters, compress=options.compress, force=options.force,
                               on_kernel=lambda kernel, passes: bar.advance(f"{escape(kernel[:48])} ({passes} passes)"),
                               on_line=line_seen)
        record = done.record
        meta = {"program_status": record["program_status"], "program_exit_code": record["program_exit_code"],
                "ncu_command": record["ncu_command"], "ncu_wall_s": record["ncu_wall_s"]}
        state = sampler.summary()
        if state.samples:
            meta["gpu_state"] = state.as_columns()
    except KeyboardInterrupt:
        run.update_meta(complete=False, program_status=INTERRUPTED)
        raise
    run.update_meta(**meta)
    return done


def _finish(run, done, filters, started: float, progress: Progress) -> ProgramResult:
    from ..extract.run import extract_run
    from ..measure.program import OK

    record = done.record
    status = record["program_status"]
    if done.report is None:
        raise no_report_error(record, filters, run.path)
    tables = extract_run(run)
    launches = len(tables.get("kernels", ()))
    run.update_meta(complete=status == OK, profile_wall_s=time.perf_counter() - started)
    progress.say(f"{record['launches']} launch(es) profiled, {record['replay_passes']} replay passes, "
                 f"{record['ncu_wall_s']:.1f} s under ncu; {launches} in {escape(str(run.path))}/kernels.csv "
                 f"(see them with: gemmprof analyze {escape(str(run.path))})", soft_wrap=True)
    if status != OK:
        raise no_report_error(record, filters, run.path, kept=True)
    return ProgramResult(run, record, launches)


def no_report_error(record: dict, filters, run_path: Path, kept: bool = False) -> GemmprofError:
    """The one line for a profile that did not end well: the program's exit code, ncu's, or the
    filter that matched nothing. `kept`: ncu wrote a report and the run keeps it."""
    from ..measure.program import NCU_FAILED, PROGRAM_FAILED

    log = f"ncu's output is in {run_path / record['log']}"
    if record["program_status"] == PROGRAM_FAILED:
        what = (f"the run keeps the {record['launches']} launch(es) profiled before: {run_path}" if kept
                else "before ncu profiled any kernel")
        return GemmprofError(f"the program exited with code {record['program_exit_code']}; {what}", log, exit_code=Exit.FAILED)
    if record["program_status"] == NCU_FAILED:
        return GemmprofError(f"ncu failed (exit code {record['ncu_exit_code']})"
                             + (f"; the run keeps what it wrote: {run_path}" if kept else ""), log, exit_code=Exit.FAILED)
    if record["launches"] and not kept:
        return GemmprofError(f"ncu named {record['launches']} launch(es) but wrote no report", log, exit_code=Exit.FAILED)
    if filters.narrows or filters.launch_skip:
        return GemmprofError(f"no kernel launch matched the filter ({filters.describe()})",
                             "check the NVTX range names and the regular expression against the program; " + log,
                             exit_code=Exit.FAILED)
    return GemmprofError("the program launched no CUDA kernel (no filter)", log, exit_code=Exit.FAILED)


def guard(exe: Path, argv: list[str], filters, section_set: str, yes: bool, progress: Progress) -> int:
    """Count the launches of an unfiltered program, and with more than GUARD_LAUNCHES ask (or
    refuse, with no one to ask) before a profile that would take long. Returns the launches the
    profile will see."""
    from ..measure.program import GUARD_LAUNCHES, count_launches, estimate_seconds

    with progress.working("counting the program's launches (one run under ncu, no counters)") as say:
        seen = [0]

        def one_more(kernel: str, passes: int) -> None:
            seen[0] += 1
            say(f"counting the program's launches: {seen[0]}")

        counted = count_launches(exe, argv, on_kernel=one_more)
    if counted.launches == 0:
        if counted.exit_code not in (0, None):
            raise GemmprofError(f"the program exited with code {counted.exit_code} before launching any kernel",
                                "run it on its own first: " + " ".join(argv), exit_code=Exit.FAILED)
        raise GemmprofError("the program launched no CUDA kernel (no filter)", "is it using the GPU? run it on its own first", exit_code=Exit.FAILED)
    launches = max(counted.launches - (filters.launch_skip or 0), 0)
    if launches <= GUARD_LAUNCHES:
        progress.say(f"{launches} launch(es) to profile")
        return launches
    seconds = estimate_seconds(launches, section_set)
    cost = (f"about {format_duration(seconds)} under --set full" if seconds is not None
            else f"--set {section_set} is not priced; --set full would take about {format_duration(estimate_seconds(launches, 'full'))}")
    message = (f"the program launches {launches} kernels and no filter narrows them: {cost}. "
               "Narrow it with --nvtx-include RANGE/, -k REGEX or --launch-count N")
    if yes:
        progress.say(f"[yellow]{escape(message)}[/]; going on (--yes)", soft_wrap=True)
        return launches
    answer = progress.ask("Profile every launch?", f"[yellow]{escape(message)}[/]")
    if answer:
        return launches
    if answer is None:  # no one to ask
        raise GemmprofError(f"{launches} launches and no filter ({cost})",
                            "narrow them with --nvtx-include, -k or --launch-count, or pass --yes to profile them all")
    raise GemmprofError("not profiled", "narrow the launches or pass --yes")


def format_duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
