"""`gemmprof analyze`: read Nsight Compute reports into tables, summarise them, export them."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

# Beyond this many launches in a report, `--rows auto` prints one row per kernel.
AUTO_ROWS_MAX_LAUNCHES = 40


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
    csv_dir: Annotated[
        Path | None, typer.Option("--csv", help="Write the kernels, rules, sass, source and metrics tables as CSV here.")
    ] = None,
    parquet_dir: Annotated[
        Path | None, typer.Option("--parquet", help="Write the same tables as parquet here.")
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
    them), DRAM traffic, bank conflicts, occupancy and its limiter, the top stall. Exports: kernels, rules, source, sass and metrics tables."""
    from ..extract.tables import TABLES
    from ..run import open_run
    from ..errors import GemmprofError
    from ..outdir import write_files
    from ..paths import check_out_dir

    for folder, option in ((csv_dir, "--csv"), (parquet_dir, "--parquet")):
        if folder is not None:
            check_out_dir(folder, option)
    exporting = csv_dir is not None or parquet_dir is not None
    tables = TABLES if exporting else ("kernels",)
    run = open_run(reports, from_reports=True)  # analyze extracts: a run's own tables may be what it rewrites
    frames = run.tables(tables)
    if "kernels" not in frames:
        raise GemmprofError(f"{run.path} holds no Nsight Compute reports", "pass .ncu-rep files, folders of them or a profiled run")
    formats: dict[Path, list[str]] = {}  # --csv and --parquet may name one folder: written together
    for folder, suffix in ((csv_dir, "csv"), (parquet_dir, "parquet")):
        if folder is not None:
            formats.setdefault(folder, []).append(suffix)
    for folder, suffixes in formats.items():
        write_files(folder, lambda tmp, suffixes=suffixes: _export(frames, tmp, suffixes),
                    signature=tuple(f"kernels.{suffix}" for suffix in suffixes))
    kernels = frames["kernels"]
    if json_out:
        # pandas writes NaN and NA as null; a round trip drops its escaped slashes ("gp\/naive").
        typer.echo(json.dumps(json.loads(kernels.to_json(orient="records", double_precision=15))))
        return
    _print_summary(kernels, rows, run.path)
    for folder in (csv_dir, parquet_dir):
        if folder is not None:
            typer.echo(f"wrote {', '.join(frames)} to {folder}")


def _export(frames: dict, folder: Path, suffixes: list[str]) -> None:
    for name, frame in frames.items():
        if "csv" in suffixes:
            frame.to_csv(folder / f"{name}.csv", index=False)
        if "parquet" in suffixes:
            frame.to_parquet(folder / f"{name}.parquet", index=False)


def _print_summary(kernels: Any, rows: Rows, where: Path) -> None:
    """One table for all the reports, in ladder order with the cuBLAS references last."""
    from ..analyze.launches import group_launches, in_ladder_order
    from ..catalogue.manifest import load_manifest
    from ..numbers import count_of
    from ..render.console import launch_summary_table, make_console

    most = int(kernels.groupby("report", sort=False).size().max()) if len(kernels) else 0
    per_kernel = rows == Rows.kernel or (rows == Rows.auto and most > AUTO_ROWS_MAX_LAUNCHES)
    from ..analyze.gemm_shape import fill_shapes

    kernels = fill_shapes(kernels)  # shapes named by NVTX ranges, as the report reads them
    shown = in_ladder_order(group_launches(kernels) if per_kernel else kernels, load_manifest())
    reports = kernels["report"].nunique()
    title = (str(kernels["report"].iloc[0]) if reports == 1
             else count_of(reports, "report") + (f" in {where}" if where.is_dir() else ""))
    if per_kernel:
        title += f"  ({count_of(len(kernels), 'launch')} of {count_of(len(shown), 'kernel')}; --rows launch lists each)"
    make_console().print(launch_summary_table(shown, title, per_kernel, launch_numbers=reports == 1 or most > 1))
