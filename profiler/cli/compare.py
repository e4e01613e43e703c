"""`gemmprof compare`: a base run against a new run, kernel by kernel and shape by shape
(`profiler.workflows.compare`); exits 1 on a regression (for CI), 2 on a mistake (bad option,
different GPUs), 3 when a run cannot be trusted (incomplete, unreadable, empty, or its tables
fail the schema), so that a CI gate never passes a broken run as "0 regressions"."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import Exit


def compare(
    base: Annotated[Path, typer.Argument(help="The base run: a run directory with a bench table (or a bench .csv/.parquet with its .run.json beside it).", show_default=False)],
    new: Annotated[Path, typer.Argument(help="The new run, the same way.", show_default=False)],
    threshold: Annotated[str, typer.Option(help="Slow-down that counts as a regression, in percent ('3%' or '3').")] = "3%",
    json_out: Annotated[bool, typer.Option("--json", help="Print the comparison as one JSON object, and nothing else.")] = False,
    allow_different_gpus: Annotated[bool, typer.Option(help="Compare runs of different GPUs anyway (with a warning).")] = False,
) -> None:
    """Compare two runs and fail on regressions (exit 1).

    Per kernel and shape: the change in median time and GFLOP/s, and (when both runs were
    profiled) in the key Nsight Compute metrics. A kernel is a regression when it is slower by
    more than the threshold AND outside both runs' measured spread (new p10 above the base p90),
    or when it passed verification before and does not pass now (FAIL, ERROR, SKIP), or passes
    with no time. Differences inside the spread are reported as noise.

    Exit status: 0 no regression, 1 regression, 2 usage error (bad option, different GPUs),
    3 a run is incomplete (complete: false in run.json), unreadable, empty, or its tables are
    invalid (missing columns, non-numeric, zero or negative times).

    Examples:

        gemmprof compare reports/BASE reports/NEW

        gemmprof compare reports/BASE reports/NEW --threshold 5%
    """
    from ..workflows.compare import CompareOptions
    from ..workflows.compare import compare as run_compare
    from ..workflows.options import record_of

    result = run_compare(record_of(CompareOptions, locals()))
    if json_out:
        typer.echo(result.as_json())
    else:
        show(result)
    if result.regressions:
        raise typer.Exit(Exit.FAILED)


def show(result) -> None:
    """The comparison on the terminal: warnings on stderr; environment notes, the tables and the
    count of regressions on stdout (200 columns wide when piped)."""
    from rich.console import Console
    from rich.markup import escape

    from ..render.console import compare_metrics_table, compare_table

    err = Console(stderr=True)
    for warning in result.warnings:
        err.print(f"[bold yellow]WARNING:[/] {escape(str(warning))}", highlight=False)
    console = Console(width=200) if not Console().is_terminal else Console()
    for what, b, n in result.environment_differences:
        if what != "GPU":
            console.print("[yellow]note:[/] " + escape(f"{what} differs: {b} (base) vs {n} (new)"), highlight=False)
    console.print(compare_table(result.bench, f"{result.base} -> {result.new} (threshold {100 * result.threshold:g}%)"))
    if result.kernels is not None and len(result.kernels):
        console.print(compare_metrics_table(result.kernels, result.threshold))
    summary = ", ".join(f"{v} {k}" for k, v in result.counts.items() if k != "regressions")
    style = "bold red" if result.regressions else "green"
    console.print(f"[{style}]{result.regressions} regression(s)[/] ({summary})", highlight=False)
