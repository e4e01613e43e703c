"""The analyze workflow: Nsight Compute reports (files, folders of them, run directories) read
into tables, exported as CSV or parquet, and summarised one row a launch or one a kernel."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import GemmprofError

# Beyond this many launches in a report, `rows="auto"` summarises one row per kernel.
AUTO_ROWS_MAX_LAUNCHES = 40


@dataclass(frozen=True)
class AnalyzeOptions:
    """The reports, and where their tables are exported (`csv_dir`, `parquet_dir`: may be one
    folder, written together); without an export only the kernels table is read."""

    reports: list[Path]
    csv_dir: Path | None = None
    parquet_dir: Path | None = None


@dataclass(frozen=True)
class AnalyzeResult:
    run: object  # run.Run
    tables: dict  # name -> DataFrame: kernels, and with an export rules, source, sass, metrics
    exported: list  # the folders written


@dataclass(frozen=True)
class Summary:
    """What the summary table shows: its rows (launches, or kernels folded), in ladder order with
    the cuBLAS references last, its title, and whether launch numbers tell rows apart."""

    rows: object  # DataFrame
    title: str
    per_kernel: bool
    launch_numbers: bool


def analyze(options: AnalyzeOptions) -> AnalyzeResult:
    """Read the reports (every output folder checked first) and write the exports asked for."""
    from ..extract.tables import TABLES
    from ..outdir import write_files
    from ..paths import check_out_dir
    from ..run import open_run

    for folder, option in ((options.csv_dir, "--csv-dir"), (options.parquet_dir, "--parquet-dir")):
        if folder is not None:
            check_out_dir(folder, option)
    exporting = options.csv_dir is not None or options.parquet_dir is not None
    run = open_run(options.reports, from_reports=True)  # analyze extracts: a run's own tables may be what it rewrites
    frames = run.tables(TABLES if exporting else ("kernels",))
    if "kernels" not in frames:
        raise GemmprofError(f"{run.path} holds no Nsight Compute reports", "pass .ncu-rep files, folders of them or a profiled run")
    formats: dict[Path, list[str]] = {}  # --csv-dir and --parquet-dir may name one folder: written together
    for folder, suffix in ((options.csv_dir, "csv"), (options.parquet_dir, "parquet")):
        if folder is not None:
            formats.setdefault(folder, []).append(suffix)
    for folder, suffixes in formats.items():
        write_files(folder, lambda tmp, suffixes=suffixes: _export(frames, tmp, suffixes),
                    signature=tuple(f"kernels.{suffix}" for suffix in suffixes))
    return AnalyzeResult(run, frames, [f for f in (options.csv_dir, options.parquet_dir) if f is not None])


def _export(frames: dict, folder: Path, suffixes: list[str]) -> None:
    for name, frame in frames.items():
        if "csv" in suffixes:
            frame.to_csv(folder / f"{name}.csv", index=False)
        if "parquet" in suffixes:
            frame.to_parquet(folder / f"{name}.parquet", index=False)


def summarize(kernels, rows: str, where: Path) -> Summary:
    """One table for all the reports: a row per launch, or per kernel (`rows` 'kernel', or 'auto'
    with more than AUTO_ROWS_MAX_LAUNCHES launches in a report), shapes named by NVTX ranges
    filled in as the report reads them."""
    from ..analyze.gemm_shape import fill_shapes
    from ..analyze.launches import group_launches, in_ladder_order
    from ..catalogue.manifest import load_manifest
    from ..numbers import count_of

    most = int(kernels.groupby("report", sort=False).size().max()) if len(kernels) else 0
    per_kernel = rows == "kernel" or (rows == "auto" and most > AUTO_ROWS_MAX_LAUNCHES)
    kernels = fill_shapes(kernels)
    shown = in_ladder_order(group_launches(kernels) if per_kernel else kernels, load_manifest())
    reports = kernels["report"].nunique()
    title = (str(kernels["report"].iloc[0]) if reports == 1
             else count_of(reports, "report") + (f" in {where}" if where.is_dir() else ""))
    if per_kernel:
        title += f"  ({count_of(len(kernels), 'launch')} of {count_of(len(shown), 'kernel')}; --rows launch lists each)"
    return Summary(shown, title, per_kernel, launch_numbers=reports == 1 or most > 1)
