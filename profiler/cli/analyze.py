"""`gemmprof analyze`: read Nsight Compute reports into tables, summarise them, export them
(`profiler.workflows.analyze`)."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ..workflows.analyze import AUTO_ROWS_MAX_LAUNCHES


class Rows(str, Enum):
    auto = "auto"
    launch = "launch"
    kernel = "kernel"


def analyze(
    reports: Annotated[
        list[Path],
        typer.Argument(help="Reports (.ncu-rep or .ncu-rep.xz), folders of them, or gemmprof run directories."),
    ],
    json_out: Annotated[
        bool, typer.Option("--json", help="Print the kernels table as a JSON list of objects, and nothing else.")
    ] = False,
    csv_out: Annotated[
        bool, typer.Option("--csv", help="Print the kernels table as CSV, and nothing else (as ncu's --csv).")
    ] = False,
    csv_dir: Annotated[
        Path | None, typer.Option("--csv-dir", help="Write the kernels, rules, sass, source and metrics tables as CSV here.")
    ] = None,
    parquet_dir: Annotated[
        Path | None, typer.Option("--parquet-dir", help="Write the same tables as parquet here.")
    ] = None,
    rows: Annotated[
        Rows,
        typer.Option(
            help=f"Summary rows: one per launch, or one per kernel (launches of one function on one shape "
            f"folded: count, total time and its share, medians). auto: per launch up to "
            f"{AUTO_ROWS_MAX_LAUNCHES} launches in a report, per kernel beyond. Exports are per launch always."
        ),
    ] = Rows.auto,
) -> None:
    """Read .ncu-rep reports into tables: print a summary per launch (or per kernel), export them.

    The summary: time, GFLOP/s, share of the peak (FP32; FP16 tensor cores for a launch that used
    them), DRAM traffic, bank conflicts, occupancy and its limiter, the top stall. Exports: kernels, rules, source, sass and metrics tables.

    Examples:

        gemmprof analyze reports/RUN

        gemmprof analyze my_kernel.ncu-rep --csv > kernels.csv

        gemmprof analyze reports/RUN --csv-dir tables --parquet-dir tables
    """
    from ..errors import GemmprofError
    from ..render.console import launch_summary_table
    from ..render.terminal import make_console
    from ..workflows.analyze import AnalyzeOptions, summarize
    from ..workflows.analyze import analyze as read_reports
    from ..workflows.options import record_of

    if json_out and csv_out:
        raise GemmprofError("--json and --csv each print the kernels table: give one")
    result = read_reports(record_of(AnalyzeOptions, locals()))
    kernels = result.tables["kernels"]
    if csv_out:
        typer.echo(kernels.to_csv(index=False), nl=False)
        return
    if json_out:
        # pandas writes NaN and NA as null; a round trip drops its escaped slashes ("gp\/naive").
        typer.echo(json.dumps(json.loads(kernels.to_json(orient="records", double_precision=15))))
        return
    summary = summarize(kernels, rows.value, result.run.path)
    make_console().print(launch_summary_table(summary.rows, summary.title, summary.per_kernel,
                                              launch_numbers=summary.launch_numbers))
    for folder in result.exported:
        typer.echo(f"wrote {', '.join(result.tables)} to {folder}")
