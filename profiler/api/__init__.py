"""gemmprof for notebooks: `import gemmprof`.

    import gemmprof
    run = gemmprof.open_run(gemmprof.sample_run())   # a run directory, a folder of reports, report files
    run.bench                                          # the bench table (None when not benchmarked)
    run.kernels                                        # one row per profiled launch
    diagnosis = run.diagnose()                         # a verdict per kernel
    fig = run.roofline()                               # a matplotlib Figure, not saved

This package is `profiler/api/` installed under the import name `gemmprof` (pyproject.toml's
package-dir): `profiler` is the project's layout, `gemmprof` the name users type and one no
other package on PyPI takes for a module. It only re-exports the library (the run facade,
the report reader) and calls the measuring workflows (`profiler.workflows`) the commands call;
it holds no logic of its own, so the notebook and the command line cannot disagree. Imports are
absolute (`profiler.…`) because the package is imported under two names. Nothing here imports CuPy or touches a GPU until
`bench` or `profile` is called.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Iterable

from profiler import __version__
from profiler.errors import GemmprofError
from profiler.run import Run, open_run

__all__ = ["GemmprofError", "Run", "__version__", "bench", "capture", "open_run", "profile", "profile_function",
           "read_reports", "sample_run"]


def sample_run() -> Path:
    """The folder of the real run that ships with gemmprof (an H200: every rung profiled at
    2048^3 and benched at 512-4096), to try what reads a run without a GPU or a run of your own:
    `gemmprof.open_run(gemmprof.sample_run())`, or `gemmprof report` on this path. Read it, do
    not write into it: it is part of the installed package."""
    from profiler.shipped import SAMPLE_RUN

    return SAMPLE_RUN


def read_reports(paths: str | os.PathLike | Iterable[str | os.PathLike],
                 tables: Iterable[str] = ("kernels", "rules", "source", "sass", "metrics")) -> dict[str, Any]:
    """The tables of Nsight Compute reports (files, folders of them, run directories), by name:
    kernels, rules, source, sass, metrics (pandas DataFrames). The same reading `gemmprof analyze`
    does, through the same extraction cache."""
    return open_run(paths).tables(tables)


def profile_function(fn, configs=None, *, out: str | os.PathLike = "reports", run_id: str | None = None,
                     captured_only: bool = True, timeline: bool = False, ncu: str | None = None) -> Run:
    """Profile `fn` under Nsight Compute, once per configuration, and open the run.

    `configs`: a list of argument tuples (or keyword dicts); `fn(*config)` runs for each, in a
    child process under ncu, so this works from a notebook. Only what `fn` launches inside
    `capture` (`with gemmprof.capture(f"gemm {M}x{N}x{K}"):`, directly in `fn`) is profiled, the
    inputs' set-up and warm-ups not; `captured_only=False` profiles all `fn` launches. The
    capture's name gives the shape. `run.sweep()` gives one row per launch with its verdict:

        def gemm(n):
            a, b = cupy.random.rand(n, n, dtype="float32"), cupy.random.rand(n, n, dtype="float32")
            with gemmprof.capture(f"gemm {n}x{n}x{n}"):
                a @ b
        run = gemmprof.profile_function(gemm, [(1024,), (2048,), (4096,)])
        run.sweep()
    """
    from profiler.workflows.function import FunctionOptions
    from profiler.workflows.function import profile_function as workflow
    from profiler.workflows.progress import Quiet

    options = FunctionOptions(out=Path(out), run_id=run_id, ncu=ncu, timeline=timeline, captured_only=captured_only)
    return open_run(workflow(fn, configs, options, Quiet()).run.path)


def capture(name: str):
    """A context manager marking a region for the profiler: an NVTX range named `name` (no '/';
    a shape in it, `gemm 4096x4096x4096` or `bmm batch=8 64x64x64`, is read as the launches')."""
    from profiler.measure.nvtx import capture as _capture

    return _capture(name)


def bench(*args: str, out: str | os.PathLike = "reports", run_id: str | None = None, **options: Any) -> Run:
    """Bench here (a GPU machine with the `[gpu]` extra), as `gemmprof bench` does, and open the
    run it wrote.

    Options are `profiler.workflows.bench.BenchOptions`'s, as keywords (`kernel=["vectorized",
    "cublas"]`, `sizes="1024,2048"`, `mnk=(4096, 4096, 1024)`, `manifest=["mine.toml"]`), or the
    command line's words in `args` (`"--tier", "fp16"`). Returns the Run, so a notebook goes on
    with `.bench`, `.ladder()` without finding the folder."""
    from profiler.workflows.bench import BenchOptions
    from profiler.workflows.bench import bench as workflow

    return _run(workflow, BenchOptions, "bench", _values("bench", args, options), out, run_id)


def profile(*args: str, out: str | os.PathLike = "reports", run_id: str | None = None, **options: Any) -> Run:
    """Profile here (a GPU machine with ncu), as `gemmprof profile` does, and open the run it
    wrote; options as for `bench`, `profiler.workflows.profile.ProfileOptions`'s (`kernel="vectorized"`,
    `size=2048`, `compress=True` for --xz), or with a program (`program=["./app"]`, or after "--"
    in `args`) `profiler.workflows.program.ProgramOptions`'s."""
    values = _values("profile", args, options)
    if values.get("program"):
        from profiler.workflows.program import ProgramOptions
        from profiler.workflows.program import profile_program as workflow

        return _run(workflow, ProgramOptions, "profile", values, out, run_id)
    from profiler.workflows.profile import ProfileOptions
    from profiler.workflows.profile import profile as workflow

    return _run(workflow, ProfileOptions, "profile", {k: v for k, v in values.items() if k != "program"}, out, run_id)


def _values(name: str, args: tuple[str, ...], options: dict) -> dict:
    """The options of a call: the command line's words in `args`, then the keywords."""
    return {**(_words(name, args) if args else {}), **options}


def _run(workflow, record: type, name: str, values: dict, out: str | os.PathLike, run_id: str | None) -> Run:
    """The workflow in this process, its progress printed as the command prints it, into a run
    directory whose name is known beforehand; then that directory opened."""
    from profiler.catalogue.kernel_paths import add_manifests
    from profiler.render.progress import ConsoleProgress
    from profiler.workflows.options import check_names, record_of

    values = dict(values)
    add_manifests(values.pop("manifest", None))
    check_names(record, values, f"gemmprof.{name}()")
    run_id = run_id or time.strftime(f"%Y%m%d-%H%M%S-{name}")
    result = workflow(record_of(record, {**values, "out": Path(out), "run_id": run_id}), ConsoleProgress())
    return open_run(result.run.path)


def _words(name: str, args: tuple[str, ...]) -> dict:
    """Command-line words (`"--kernel", "naive"`) read by the command's own option table into
    its parameters (those not given at their defaults), one line for a word it does not take."""
    from profiler.cli import command

    try:
        context = command().commands[name].make_context(name, [str(a) for a in args])
    except Exception as exc:  # click's usage errors (typer may carry its own copy of click): one line
        if not callable(getattr(exc, "format_message", None)):
            raise
        raise GemmprofError(f"gemmprof.{name}(): {exc.format_message()}") from None
    return {key: value for key, value in context.params.items() if context.get_parameter_source(key).name != "DEFAULT"}
