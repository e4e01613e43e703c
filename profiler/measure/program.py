"""Profile any program under Nsight Compute into a run directory: one report per program run,
its kernels recorded as ncu saw them (no manifest entry, no verification), and one line of
profile.jsonl saying how ncu and the program ended.

Before a profile without filters, `count_launches` runs the program once under the cheapest ncu
that still names every launch, so the CLI can price the full profile before it starts.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import GemmprofError
from ..names import slug
from ..runs.rundir import PROFILE_LOG, REPORT_SUFFIXES, RunDir
from ..subprocess_env import child_env
from .ncu import Filters, NcuOptions, NcuResult, counters_refused, counting_command, program_command, program_exit_code, run_ncu
from .profiling import finish_report, remove_twin, write_record

SOURCE = "program"  # run.json's and profile.jsonl's "source" for a program's run

# Above this many launches and no filter, the CLI asks before profiling.
GUARD_LAUNCHES = 50
# Seconds a launch costs under `--set full` on the H200: 18 reports (one launch each, 38 replay
# passes, the target's start included) took 128.6 s of bare ncu (benchmarks/results/2026-11-22-h200/README.md).
FULL_SET_S_PER_LAUNCH = 128.6 / 18

# Program statuses in profile.jsonl ("program_status").
OK, PROGRAM_FAILED, NO_KERNELS, NCU_FAILED, INTERRUPTED = "ok", "program_failed", "no_kernels", "ncu_failed", "interrupted"

# Launchers whose first plain argument names what actually runs (python3 x.py -> x).
_LAUNCHERS = ("python", "python3", "bash", "sh", "node", "ruby", "perl", "julia", "Rscript", "uv", "env")


def program_stem(argv: list[str]) -> str:
    """A report name for a command: the program's name, or the script (or `-m` module) an
    interpreter runs; passed through `names.slug`, so any text is safe."""
    name = Path(argv[0]).name
    if name.startswith(_LAUNCHERS):
        rest = iter(argv[1:])
        for arg in rest:
            if arg == "-m":
                name = next(rest, name)
                break
            if arg == "-c":
                break
            if not arg.startswith("-") and "=" not in arg:
                name = Path(arg).stem or name
                break
    return slug(name or "program")


def estimate_seconds(launches: int, section_set: str) -> float | None:
    """ncu's time for that many launches, where measured (the full set); None otherwise."""
    return launches * FULL_SET_S_PER_LAUNCH if section_set == "full" else None


def check_command(argv: list[str]) -> list[str]:
    """The program must exist before ncu is started for it (ncu's own complaint is buried in its
    output)."""
    import shutil

    exe = argv[0]
    if os.sep in exe:
        if not Path(exe).is_file():
            raise GemmprofError(f"program {exe!r} does not exist", "give the path of an executable, or a command on PATH")
    elif shutil.which(exe) is None:
        raise GemmprofError(f"program {exe!r} is not on PATH", "give the path of an executable, or a command on PATH")
    return argv


@dataclass
class Count:
    launches: int
    exit_code: int | None
    result: NcuResult


def count_launches(ncu: Path, argv: list[str], on_kernel: Callable[[str, int], None] | None = None) -> Count:
    """Run the program once under `counting_command` and count the launches ncu names."""
    result = run_ncu(counting_command(ncu, argv), child_env(), on_kernel=on_kernel, target_output=False)
    if refused := counters_refused(result, timing_only=False):
        raise refused
    return Count(len(result.kernels), program_exit_code(result), result)


@dataclass
class ProgramRun:
    """What one profile of a program left: its profile.jsonl record and the report (None when
    ncu wrote none)."""

    record: dict
    report: Path | None


def profile_program(run: RunDir, argv: list[str], opts: NcuOptions, filters: Filters, compress: bool = False,
                    force: bool = False, on_kernel: Callable[[str, int], None] | None = None,
                    on_line: Callable[[str], None] | None = None) -> ProgramRun:
    """Profile `argv` (run in the current directory) into `run.path/ncu/<stem>.ncu-rep[.xz]`,
    ncu's output beside it as `<stem>.log`, and one profile.jsonl line. Whatever ends the program
    (a non-zero exit, no kernels, Ctrl-C) the report ncu wrote is kept and the line says how it
    ended; deciding what is an error is the caller's."""
    stem = program_stem(argv)
    ncu_dir = run.path / "ncu"
    ncu_dir.mkdir(parents=True, exist_ok=True)
    if not force and any((ncu_dir / (stem + ext)).is_file() for ext in REPORT_SUFFIXES):
        raise GemmprofError(f"{ncu_dir / stem}.ncu-rep exists in run {run.path.name}",
                            "pass --force to replace it, or another --run-id")
    tmp_base = ncu_dir / f".{stem}.partial"
    partial = tmp_base.with_name(tmp_base.name + ".ncu-rep")
    command = program_command(opts, filters, tmp_base, argv)
    log = ncu_dir / f"{stem}.log"
    t0 = time.perf_counter()
    result: NcuResult | None = None
    status = INTERRUPTED
    lines: list[str] = []

    def line_seen(line: str) -> None:
        lines.append(line)
        if on_line:
            on_line(line)

    try:
        result = run_ncu(command, child_env(), on_kernel=on_kernel, on_line=line_seen, target_output=False)
        if refused := counters_refused(result, timing_only=False):
            partial.unlink(missing_ok=True)
            raise refused
        status = outcome(result)
    finally:  # on an interruption too: keep what ncu wrote, and say so in profile.jsonl
        wall = time.perf_counter() - t0
        log.write_text("".join(line + "\n" for line in lines), errors="replace")
        report = None
        if partial.is_file() and partial.stat().st_size > 0:
            report = ncu_dir / (stem + (".ncu-rep.xz" if compress else ".ncu-rep"))
            finish_report(partial, report, compress)
            remove_twin(run, report)
        partial.unlink(missing_ok=True)
        kernels = result.kernels if result else []
        record = {
            "kernel": stem, "source": SOURCE, "report": str(report.relative_to(run.path)) if report else None,
            "program": list(argv), "cwd": os.getcwd(), "program_status": status,
            "program_exit_code": program_exit_code(result) if result else None,
            "ncu_exit_code": result.returncode if result else None,
            "launches": len(kernels), "replay_passes": sum(p for _, p in kernels), "ncu_wall_s": wall,
            "ncu_command": command, "filters": filters.describe(), "log": str(log.relative_to(run.path)),
        }
        if report is not None:  # profile.jsonl holds one line per report
            write_record(run.path / PROFILE_LOG, record)
    return ProgramRun(record, report)


def outcome(result: NcuResult) -> str:
    """How a program's profile ended, from ncu's exit and output."""
    code = program_exit_code(result)
    if code not in (0, None):
        return PROGRAM_FAILED
    if code is None:
        return NCU_FAILED
    return OK if result.kernels else NO_KERNELS
