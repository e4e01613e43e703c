"""`gemmprof profile [options] -- CMD ARGS...`: any program under Nsight Compute into a run
directory. The options are parsed by `profile.py`; this module guards, shows progress and writes
run.json; `measure.program` does the profiling."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import typer
from rich.console import Console

from ..render.console import make_console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from ..errors import Exit, GemmprofError


def profile_program_cli(program: list[str], *, kernel_regex: list[str] | None, nvtx_include: list[str] | None,
                        launch_skip: int | None, launch_count: int | None, replay_mode: str | None, yes: bool,
                        section_set: str, clock_control: str, timeline: bool = False, ncu: str | None, out: Path, run_id: str | None,
                        force: bool, compress: bool, ladder_only: dict) -> None:
    from .. import metrics as metric_table
    from ..extract.run import extract_run
    from ..measure.provenance import collect_environment, git_fields
    from ..measure.sampler import StateSampler
    from ..measure.ncu import REPLAY_MODES, Filters, NcuOptions, resolve_ncu
    from ..measure.program import INTERRUPTED, OK, SOURCE, check_command, profile_program
    from ..names import check_run_id
    from ..paths import check_out_dir
    from ..runs.rundir import REPO_ROOT, RunDir, command_line, new_run_id

    given = [name for name, value in ladder_only.items() if value]
    if given:
        raise GemmprofError(f"{', '.join(given)} applies to the ladder only", "a program runs the shapes it chooses itself")
    if run_id is not None:
        check_run_id(run_id)
    check_out_dir(out)
    if clock_control != "none":
        raise GemmprofError("a program is profiled with --clock-control none only",
                            "the card is measured at the clocks it runs; ncu must not lock them on a shared machine")
    if replay_mode is not None and replay_mode not in REPLAY_MODES:
        raise GemmprofError(f"--replay-mode {replay_mode!r} is not one of {', '.join(REPLAY_MODES)}")
    argv = check_command(list(program))
    regexes = kernel_regex or []
    filters = Filters(
        nvtx_include=tuple(nvtx_include or ()),
        kernel_regex=regexes[0] if len(regexes) == 1 else "|".join(f"(?:{r})" for r in regexes) or None,
        launch_skip=launch_skip, launch_count=launch_count, replay_mode=replay_mode)
    exe = resolve_ncu(ncu)
    console = make_console()
    started = time.perf_counter()

    total = filters.launch_count
    if not filters.narrows:
        total = guard(exe, argv, filters, section_set, yes, console)

    env = collect_environment(ncu=str(exe), nvml_only=True)  # no CuPy needed: the program is the user's
    opts = NcuOptions(ncu=exe, section_set=section_set, clock_control="none", timeline=timeline,
                      extra_metrics=metric_table.ncu_extra_metrics())
    run = RunDir.create(out / (run_id or new_run_id(env.get("gpu_slug", "gpu"))), {
        "kind": "profile", "source": SOURCE, "command": command_line(), "program": argv, "cwd": os.getcwd(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **git_fields(REPO_ROOT),
        "environment": env, "complete": False,
    })
    console.print(f"[bold]{escape(str(env.get('gpu_name', 'GPU unknown')))}[/]: ncu {escape(str(env.get('ncu_version')))} "
                  f"--set {escape(section_set)} --clock-control none; {escape(filters.describe())}; "
                  f"{escape(' '.join(argv))} -> {escape(str(run.path / 'ncu'))}", soft_wrap=True)
    progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=console, transient=False)
    task = progress.add_task("starting the program under ncu", total=total)

    def kernel_seen(kernel: str, passes: int) -> None:
        progress.update(task, advance=1, description=f"{escape(kernel[:48])} ({passes} passes)")

    def line_seen(line: str) -> None:
        if not line.startswith("==PROF=="):  # the program's own output, and ncu's warnings
            progress.console.print(line, markup=False, highlight=False)

    meta: dict = {}
    try:
        with progress, StateSampler(interval_s=0.5) as sampler:
            done = profile_program(run, argv, opts, filters, compress=compress, force=force,
                                   on_kernel=kernel_seen, on_line=line_seen)
        record = done.record
        meta = {"program_status": record["program_status"], "program_exit_code": record["program_exit_code"],
                "ncu_command": record["ncu_command"], "ncu_wall_s": record["ncu_wall_s"]}
        state = sampler.summary()
        if state.samples:
            meta["gpu_state"] = state.as_columns()
    except KeyboardInterrupt:
        run.update_meta(complete=False, program_status=INTERRUPTED)
        raise
    status = record["program_status"]
    run.update_meta(**meta)
    if done.report is None:
        raise no_report_error(record, filters, run.path)
    tables = extract_run(run)
    launches = len(tables.get("kernels", ()))
    run.update_meta(complete=status == OK, profile_wall_s=time.perf_counter() - started)
    console.print(f"{record['launches']} launch(es) profiled, {record['replay_passes']} replay passes, "
                  f"{record['ncu_wall_s']:.1f} s under ncu; {launches} in {escape(str(run.path))}/kernels.csv "
                  f"(see them with: gemmprof analyze {escape(str(run.path))})", soft_wrap=True)
    if status != OK:
        raise no_report_error(record, filters, run.path, kept=True)


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


def guard(exe: Path, argv: list[str], filters, section_set: str, yes: bool, console: Console) -> int:
    """Count the launches of an unfiltered program, and with more than GUARD_LAUNCHES ask (or
    refuse, without a terminal) before a profile that would take long. Returns the launches
    the profile will see."""
    from ..measure.program import GUARD_LAUNCHES, count_launches, estimate_seconds

    with console.status("counting the program's launches (one run under ncu, no counters)") as status:
        seen = [0]

        def one_more(kernel: str, passes: int) -> None:
            seen[0] += 1
            status.update(f"counting the program's launches: {seen[0]}")

        counted = count_launches(exe, argv, on_kernel=one_more)
    if counted.launches == 0:
        if counted.exit_code not in (0, None):
            raise GemmprofError(f"the program exited with code {counted.exit_code} before launching any kernel",
                                "run it on its own first: " + " ".join(argv), exit_code=Exit.FAILED)
        raise GemmprofError("the program launched no CUDA kernel (no filter)", "is it using the GPU? run it on its own first", exit_code=Exit.FAILED)
    launches = max(counted.launches - (filters.launch_skip or 0), 0)
    if launches <= GUARD_LAUNCHES:
        console.print(f"{launches} launch(es) to profile")
        return launches
    seconds = estimate_seconds(launches, section_set)
    cost = (f"about {format_duration(seconds)} under --set full" if seconds is not None
            else f"--set {section_set} is not priced; --set full would take about {format_duration(estimate_seconds(launches, 'full'))}")
    message = (f"the program launches {launches} kernels and no filter narrows them: {cost}. "
               "Narrow it with --nvtx-include RANGE/, -k REGEX or --launch-count N")
    if yes:
        console.print(f"[yellow]{escape(message)}[/]; going on (--yes)", soft_wrap=True)
        return launches
    if sys.stdin.isatty() and sys.stdout.isatty():
        console.print(f"[yellow]{escape(message)}[/]", soft_wrap=True)
        if typer.confirm("Profile every launch?", default=False):
            return launches
        raise GemmprofError("not profiled", "narrow the launches or pass --yes")
    raise GemmprofError(f"{launches} launches and no filter ({cost})",
                        "narrow them with --nvtx-include, -k or --launch-count, or pass --yes to profile them all")


def format_duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
