"""`gemmprof analyze`: read Nsight Compute reports into tables, summarise them, export them."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer


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
) -> None:
    """Read .ncu-rep reports into tables: print a summary per launch, export them.

    The summary: time, GFLOP/s, share of the peak (FP32; FP16 tensor cores for a launch that used
    them), DRAM traffic, bank conflicts, occupancy and its limiter, the top stall. Exports: kernels, rules, source, sass and metrics tables."""
    from ..extract.tables import TABLES, read_reports

    exporting = csv_dir is not None or parquet_dir is not None
    tables = TABLES if exporting else ("kernels",)
    frames = read_reports(reports, tables)
    for folder, suffix in ((csv_dir, "csv"), (parquet_dir, "parquet")):
        if folder is None:
            continue
        folder.mkdir(parents=True, exist_ok=True)
        for name, frame in frames.items():
            target = folder / f"{name}.{suffix}"
            if suffix == "csv":
                frame.to_csv(target, index=False)
            else:
                frame.to_parquet(target, index=False)
    kernels = frames["kernels"]
    if json_out:
        # pandas writes NaN and NA as null; a round trip drops its escaped slashes ("gp\/naive").
        typer.echo(json.dumps(json.loads(kernels.to_json(orient="records", double_precision=15))))
        return
    _print_summary(kernels)
    for folder in (csv_dir, parquet_dir):
        if folder is not None:
            typer.echo(f"wrote {', '.join(frames)} to {folder}")


def _print_summary(kernels: Any) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console() if sys.stdout.isatty() else Console(width=200)  # piped: do not wrap at 80
    for report, launches in kernels.groupby("report", sort=False):
        table = Table(title=str(report), title_justify="left")
        for header in summary_headers():
            left = header in ("kernel", "occupancy", "top stall")
            table.add_column(header, justify="left" if left else "right", no_wrap=header == "kernel")
        for row in summary_rows(launches):
            table.add_row(*row)
        console.print(table)


def summary_headers() -> list[str]:
    return ["#", "kernel", "shape", "time µs", "GFLOP/s", "% of peak", "DRAM MB", "bank conflicts",
            "occupancy", "top stall"]


def summary_rows(kernels: Any) -> list[list[str]]:
    """The summary, formatted: one list of cells per launch (pure, for the table and tests)."""

    import pandas as pd

    def num(value: Any, fmt: str) -> str:
        return "-" if pd.isna(value) else format(value, fmt)

    rows = []
    for r in kernels.to_dict("records"):
        name = r["kernel_key"] if isinstance(r["kernel_key"], str) else r["function"]
        name = name if len(name) <= 48 else name[:45] + "..."
        shape = "-" if pd.isna(r["M"]) else f"{r['M']}x{r['N']}x{r['K']}"
        occupancy = f"{num(r['achieved_occupancy_pct'], '.0f')}% of {num(r['theoretical_occupancy_pct'], '.0f')}%"
        if isinstance(r["occupancy_limiter"], str):
            occupancy += f" ({r['occupancy_limiter']})"
        stall = r["top_stall"]
        top = f"{stall} {num(r['stall_' + stall], '.1f')}" if isinstance(stall, str) else "-"
        rows.append([
            str(r["launch"]),
            name,
            shape,
            num(r["duration_ns"] / 1e3, ",.1f"),
            num(r["achieved_flops"] / 1e9, ",.0f"),
            num(r["peak_pct"], ".1f"),
            num(r["dram_bytes"] / 1e6, ",.2f"),
            num(r["shared_bank_conflicts"], ",.0f"),
            occupancy,
            top,
        ])
    return rows
