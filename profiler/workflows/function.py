"""The function workflow, behind `gemmprof.profile_function`: a Python function profiled under
Nsight Compute from a notebook or a script, once per configuration, in a child process
(`measure.function`), its run directory a program run's with the function and configurations
in run.json."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.markup import escape

from ..errors import GemmprofError
from .options import RunOptions
from .progress import Progress


@dataclass(frozen=True)
class FunctionOptions(RunOptions):
    """Where the run goes, which ncu, warp-state sampling over each launch, and `captured_only`:
    profile only the launches inside `gemmprof.capture` ranges opened directly in the function
    (not its inputs' set-up or warm-ups); else all of them."""

    ncu: str | None = None
    timeline: bool = False
    captured_only: bool = True


@dataclass(frozen=True)
class FunctionResult:
    run: object  # runs.rundir.RunDir
    record: dict  # ncu's record of the profile


def profile_function(fn: Callable, configs: Sequence[Any] | None, options: FunctionOptions,
                     progress: Progress) -> FunctionResult:
    """Run `fn` once per configuration (a tuple: positional arguments; a dict: keywords; None or
    no configurations: one call with none) under `ncu --set full --clock-control none` and
    extract the tables. Errors are one line: nothing to call, a function that cannot be pickled,
    no ncu, counters not permitted, the function raising."""
    from .. import metrics as metric_table
    from ..extract.run import extract_run
    from ..measure.function import SOURCE, payload
    from ..measure.ncu import NcuOptions, resolve_ncu
    from ..measure.program import OK
    from ..measure.provenance import collect_environment, git_fields
    from ..names import check_run_id
    from ..paths import check_out_dir
    from ..runs.rundir import REPO_ROOT, RunDir, new_run_id

    if not callable(fn):
        raise GemmprofError(f"{fn!r} is not a function", "pass the function itself: profile_function(my_gemm, ...)")
    configs = [None] if configs is None or len(configs) == 0 else list(configs)
    if options.run_id is not None:
        check_run_id(options.run_id)
    check_out_dir(options.out)
    pickled = payload(fn, configs)
    exe = resolve_ncu(options.ncu)
    env = collect_environment(ncu=str(exe), nvml_only=True)
    run = RunDir.create(options.out / (options.run_id or new_run_id(env.get("gpu_slug", "gpu"))), {
        "kind": "profile", "source": SOURCE, "function": getattr(fn, "__qualname__", getattr(fn, "__name__", "function")),
        "configs": [repr(c) for c in configs], "cwd": os.getcwd(), "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **git_fields(REPO_ROOT), "environment": env, "complete": False,
    })
    opts = NcuOptions(ncu=exe, clock_control="none", timeline=options.timeline, extra_metrics=metric_table.ncu_extra_metrics())
    done, error = _run_under_ncu(run, pickled, len(configs), opts, options.captured_only, progress)
    _check_ended_well(done, error, run.path, options.captured_only)
    extract_run(run)
    status = done.record["program_status"]
    run.update_meta(complete=status == OK, program_status=status)
    return FunctionResult(run, done.record)


def _run_under_ncu(run, pickled: Callable[[str], bytes], configs: int, opts, captured_only: bool, progress: Progress):
    """The child process under ncu, filtered to the configurations' ranges (their captures, or
    all they launch); returns what ncu did and the file the child writes the function's error to."""
    from ..measure.function_child import NVTX_ROOT
    from ..measure.ncu import Filters
    from ..measure.nvtx import CAPTURE
    from ..measure.program import profile_program

    folder = Path(tempfile.mkdtemp(prefix="gemmprof-function-"))
    error = folder / "error.txt"
    path = folder / "payload.pickle"
    path.write_bytes(pickled(str(error)))
    argv = [sys.executable, "-m", "profiler.measure.function_child", str(path)]
    ranges = (tuple(f"{NVTX_ROOT}/config {i}/{CAPTURE}/" for i in range(configs)) if captured_only
              else (f"{NVTX_ROOT}/",))
    with progress.bar("the function under ncu", None, spinner=True) as bar:
        done = profile_program(run, argv, opts, Filters(nvtx_include=ranges), compress=True, force=True,
                               on_kernel=lambda kernel, passes: bar.advance(f"{escape(kernel[:48])} ({passes} passes)"),
                               on_line=lambda line: None)
    return done, error


def _check_ended_well(done, error: Path, run_path: Path, captured_only: bool) -> None:
    """One line for a function that raised, a process that died, an ncu that failed, or nothing
    profiled."""
    from ..measure.function_child import RAISED
    from ..measure.program import NCU_FAILED, PROGRAM_FAILED

    record = done.record
    status = record["program_status"]
    if status == PROGRAM_FAILED and record["program_exit_code"] == RAISED and error.is_file():
        raise GemmprofError(f"the function raised in {error.read_text().strip()}",
                            f"the launches profiled before it are in {run_path}" if done.report else "")
    if status == PROGRAM_FAILED:
        raise GemmprofError(f"the function's process ended with code {record['program_exit_code']}",
                            f"ncu's output is in {run_path / record['log']}")
    if status == NCU_FAILED or done.report is None:
        nothing = ("nothing was profiled: no launch inside gemmprof.capture(...)" if captured_only
                   else "nothing was profiled: the function launched no kernel")
        raise GemmprofError(nothing if done.report is None else f"ncu failed (exit code {record['ncu_exit_code']})",
                            ("mark the region with `with gemmprof.capture(...)` directly in the function, or pass "
                             "captured_only=False; " if captured_only else "") + f"ncu's output is in {run_path / record['log']}")
