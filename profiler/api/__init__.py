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
the report reader) and wraps the CLI's measuring commands; it holds no logic of its own, so the
notebook and the command line cannot disagree. Imports are absolute (`profiler.…`) because
the package is imported under two names. Nothing here imports CuPy or touches a GPU until
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
    from profiler.measure.function import profile_function as _profile_function

    return open_run(_profile_function(fn, configs, Path(out), run_id=run_id, ncu=ncu, timeline=timeline,
                                      captured_only=captured_only))


def capture(name: str):
    """A context manager marking a region for the profiler: an NVTX range named `name` (no '/';
    a shape in it, `gemm 4096x4096x4096` or `bmm batch=8 64x64x64`, is read as the launches')."""
    from profiler.measure.nvtx import capture as _capture

    return _capture(name)


def bench(*args: str, out: str | os.PathLike = "reports", run_id: str | None = None, **options: Any) -> Run:
    """Run `gemmprof bench` here (a GPU machine with the `[gpu]` extra) and open the run it wrote.

    Options are the command line's, as keywords (`kernel=["vectorized", "cublas"]`,
    `sizes="1024,2048"`, `mnk=(4096, 4096, 1024)`) or as strings in `args`. Returns the Run, so a
    notebook goes on with `.bench`, `.ladder()` without finding the folder."""
    return _command("bench", args, out, run_id, options)


def profile(*args: str, out: str | os.PathLike = "reports", run_id: str | None = None, **options: Any) -> Run:
    """Run `gemmprof profile` here (a GPU machine with ncu) and open the run it wrote; options as
    for `bench` (`kernel="vectorized"`, `size=2048`)."""
    return _command("profile", args, out, run_id, options)


def _command(name: str, args: tuple[str, ...], out: str | os.PathLike, run_id: str | None, options: dict) -> Run:
    """The CLI command in this process (errors raise GemmprofError, not exit), into a run
    directory whose name is known beforehand, then that directory opened."""
    from profiler.cli import app  # the CLI, only when asked: it sets up one-line warnings

    run_id = run_id or time.strftime(f"%Y%m%d-%H%M%S-{name}")
    argv = [name, *map(str, args), *_flags(options), "--out", str(out), "--run-id", run_id]
    app(argv, standalone_mode=False)
    return open_run(Path(out) / run_id)


def _flags(options: dict) -> list[str]:
    """kernel=["a", "b"] -> --kernel a --kernel b; mnk=(1, 2, 3) -> --mnk 1 2 3; flag=True -> --flag;
    flag=False -> --no-flag."""
    argv: list[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None:
            continue
        if isinstance(value, bool):
            argv.append(flag if value else f"--no-{key.replace('_', '-')}")
        elif isinstance(value, tuple):
            argv += [flag, *map(str, value)]
        elif isinstance(value, list):
            for item in value:
                argv += [flag, str(item)]
        else:
            argv += [flag, str(value)]
    return argv
