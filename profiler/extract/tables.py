"""Nsight Compute reports -> pandas DataFrames.

- `kernels`: one row per profiled launch: the columns of `metrics.LAUNCH_FIELDS`, the launch
  metrics of `metrics.METRICS` in our units, and `metrics.DERIVED`.
- `rules`: ncu's guided-analysis results, one row per rule result per launch.
- `sass`: one row per SASS instruction of each launch: executed instructions, PC samples by stall
  reason, shared-memory and L2 excess, with the source file and line it came from.
- `source`: the `sass` counters summed per source line, with the line's text when the report
  holds the source (`--import-source yes`).
- `metrics`: every metric of every launch in long form, in ncu's own units.

`read_tables` reads each launch once for all the tables asked for (opening a launch costs more
than reading its values) and, for reports of many launches, splits the launches among worker
processes. `rows.py` does the reading; this module only builds frames.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterable

import pandas as pd

from ..errors import GemmprofError, warn
from ..runs.rundir import REPORT_SUFFIXES
from .. import metrics as mt
from .ncu_import import must_isolate
from .ncu_reader import Report, open_report
from .report_file import prepare_file
from .rows import METRIC_COLUMNS, RULE_COLUMNS, TABLES, Rows, parse_nvtx, read_rows
from .read_child import Child

__all__ = [
    "TABLES",
    "add_derived",
    "find_reports",
    "kernels",
    "lines_from_sass",
    "metrics",
    "parse_nvtx",
    "read_reports",
    "read_tables",
    "rules",
    "sass",
    "source",
]

ENV_WORKERS = "GEMMPROF_EXTRACT_WORKERS"  # force the number of worker processes (1: none)
PARALLEL_MIN_LAUNCHES = 96  # below this, starting workers (~1 s) costs more than it saves
LAUNCHES_PER_WORKER = 48


# ---------------------------------------------------------------------------------------------
# Frames from rows (pure)


def _typed(values: list[Any], dtype: str) -> Any:
    if dtype == "Int64":
        return pd.array([None if v is None or v != v else int(v) for v in values], dtype="Int64")
    if dtype == "str":
        return pd.Series(values, dtype="object")
    return pd.array(values, dtype="float64")


def add_derived(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with the columns of `metrics.DERIVED` added, as a new frame."""
    out = frame.copy()
    for derived in mt.DERIVED:
        values = derived.compute(out) if len(out) else []
        dtype = "object" if derived.unit == "text" else "float64"
        out[derived.column] = pd.Series(values, index=out.index, dtype=dtype)
    return out


def kernels_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    data = {f.column: _typed([r[f.column] for r in rows], f.dtype) for f in mt.LAUNCH_FIELDS}
    for metric in mt.metrics_at(mt.LAUNCH):
        data[metric.column] = _typed([r[metric.column] for r in rows], metric.dtype)
    return add_derived(pd.DataFrame(data))


def sass_frame(columns: dict[str, list[Any]]) -> pd.DataFrame:
    data = {f.column: _typed(columns[f.column], f.dtype) for f in mt.SASS_FIELDS}
    for metric in mt.metrics_at(mt.INSTRUCTION):
        data[metric.column] = pd.array(columns[metric.column], dtype="float64")
    return pd.DataFrame(data)


def lines_from_sass(sass: pd.DataFrame, code: dict[tuple[str, int], str] | None = None) -> pd.DataFrame:
    """Sum a `sass` table per (launch, kernel, file, line); add each line's text from `code`."""
    keys = ["launch", "kernel", "file", "line"]
    numeric = [m.column for m in mt.metrics_at(mt.INSTRUCTION)]
    if sass.empty:
        return pd.DataFrame({c: [] for c in keys + ["code", "instructions"] + numeric})
    grouped = sass.groupby(keys, dropna=False, sort=True)
    out = grouped[numeric].sum(min_count=1)
    out.insert(0, "instructions", grouped.size())
    out = out.reset_index()
    code = code or {}
    text = [None if pd.isna(n) else code.get((f, int(n))) for f, n in zip(out["file"], out["line"])]
    out.insert(4, "code", pd.Series(text, index=out.index, dtype="object"))
    out["line"] = out["line"].astype("Int64")
    return out


def frames(rows: Rows, wanted: Iterable[str]) -> dict[str, pd.DataFrame]:
    wanted = list(wanted)
    out: dict[str, pd.DataFrame] = {}
    if "kernels" in wanted:
        out["kernels"] = kernels_frame(rows.kernels)
    if "rules" in wanted:
        out["rules"] = pd.DataFrame(rows.rules, columns=RULE_COLUMNS).astype(
            {"launch": "Int64", "estimated_speedup_pct": "float64"}
        )
    if "sass" in wanted or "source" in wanted:
        sass_table = sass_frame(rows.sass)
        if "sass" in wanted:
            out["sass"] = sass_table
        if "source" in wanted:
            out["source"] = lines_from_sass(sass_table, rows.code)
    if "metrics" in wanted:
        m = rows.metrics
        out["metrics"] = pd.DataFrame(
            {
                "launch": pd.array(m["launch"], dtype="Int64"),
                "kernel": pd.Series(m["kernel"], dtype="object"),
                "name": pd.Series(m["name"], dtype="object"),
                "value": pd.array(m["value"], dtype="float64"),
                "text": pd.Series(m["text"], dtype="object"),
                "unit": pd.Series(m["unit"], dtype="object"),
            },
            columns=METRIC_COLUMNS,
        )
    if "timeline" in wanted:
        t = rows.timeline
        out["timeline"] = pd.DataFrame({c: pd.array(t[c], dtype="Int64") if c == "launch" else
                                        pd.Series(t[c], dtype="object") if c == "kernel" else
                                        pd.array(t[c], dtype="float64") for c in mt.TIMELINE_COLUMNS},
                                       columns=mt.TIMELINE_COLUMNS)
    return {name: out[name] for name in wanted if name in out}


# ---------------------------------------------------------------------------------------------
# Reading


def _parallel_from(workers: int | None) -> float:
    """Launch count from which the launches are shared among worker processes."""
    if workers is None and os.environ.get(ENV_WORKERS):
        workers = max(1, int(os.environ[ENV_WORKERS]))
    if workers == 1:
        return float("inf")
    return PARALLEL_MIN_LAUNCHES if workers is None else 2 * LAUNCHES_PER_WORKER


def _workers(launches: int, workers: int | None) -> int:
    if launches < _parallel_from(workers):
        return 1
    if workers is None:
        workers = int(os.environ.get(ENV_WORKERS) or 0) or min(os.cpu_count() or 1, 8)
    return max(1, min(workers, launches // LAUNCHES_PER_WORKER or 1))


def _read_in_children(local: Path, shown: str, wanted: list[str], sass_text: bool, count: int, n: int) -> Rows:
    """Launches split into `n` contiguous shares, each read by its own process."""
    bounds = [count * i // n for i in range(n + 1)]
    children = [
        Child(shown, path=str(local), tables=wanted, sass_text=sass_text, start=lo, stop=hi)
        for lo, hi in zip(bounds, bounds[1:])
    ]
    rows = Rows()
    try:
        for child in children:
            rows.extend(child.result()["rows"])
    finally:
        for child in children:
            if child.process.poll() is None:
                child.process.kill()
                child.process.wait()
    return rows


def read_tables(
    report: Report | str | os.PathLike,
    tables: Iterable[str] = TABLES,
    sass_text: bool = True,
    workers: int | None = None,
) -> dict[str, pd.DataFrame]:
    """The tables named in `tables` (of TABLES), reading each launch of the report once.

    `report` is an open `Report` or a path to a `.ncu-rep` or `.ncu-rep.xz`. `sass_text=False`
    skips disassembly when only the numbers of the `sass` table are needed. `workers` processes
    share the launches of a big report (default: one per CPU from 96 launches on; the
    environment variable GEMMPROF_EXTRACT_WORKERS overrides, 1 for none).
    """
    wanted = list(dict.fromkeys(tables))
    unknown = [t for t in wanted if t not in TABLES]
    if unknown:
        raise ValueError(f"unknown tables {unknown}; choose from {TABLES}")
    if isinstance(report, Report):
        count = len(report)
        n = _workers(count, workers)
        if n == 1:
            return frames(read_rows(report, wanted, sass_text), wanted)
        return frames(_read_in_children(report.local_path, report.name, wanted, sass_text, count, n), wanted)
    if not must_isolate():
        with open_report(report) as opened:
            return read_tables(opened, wanted, sass_text, workers)
    # Only the ncu_report bundled with ncu is at hand and numpy is loaded: read in children.
    shown = str(report)
    folder = Path(tempfile.mkdtemp(prefix="gemmprof-"))
    try:
        local = prepare_file(Path(report), folder, shown)
        first = Child(shown, path=str(local), tables=wanted, sass_text=sass_text, start=0, stop=None,
                      auto=True, parallel_from=_parallel_from(workers)).result()
        if first["rows"] is not None:
            return frames(first["rows"], wanted)
        count = first["count"]
        return frames(_read_in_children(local, shown, wanted, sass_text, count, _workers(count, workers)), wanted)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def find_reports(paths: Iterable[str | os.PathLike]) -> list[Path]:
    """Report files named by `paths`: files as given; a folder gives the reports in it (a run
    directory: those in its ncu/ folder), sorted by name."""
    found: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            folder = path / "ncu" if (path / "ncu").is_dir() else path
            inside = sorted(p for p in folder.iterdir() if p.name.endswith(REPORT_SUFFIXES) and not p.name.startswith("."))
            if not inside:
                raise GemmprofError(f"{path}: no .ncu-rep or .ncu-rep.xz files in this folder")
            found.extend(inside)
        else:
            found.append(path)
    return drop_twins(found)


def drop_twins(reports: list[Path]) -> list[Path]:
    """One report per launch: where X.ncu-rep and X.ncu-rep.xz lie side by side (a profile redone
    with --xz, or a report packed by hand), the newer is read and the other skipped, with a
    warning; reading both would count the launch twice."""
    by_launch: dict[tuple[Path, str], list[Path]] = {}
    for report in reports:
        by_launch.setdefault((report.parent, report.name.removesuffix(".xz")), []).append(report)
    kept = []
    for report in reports:
        twins = by_launch[(report.parent, report.name.removesuffix(".xz"))]
        distinct = list(dict.fromkeys(twins))
        if len(distinct) == 1:
            if report not in kept:
                kept.append(report)
            continue
        newest = max(distinct, key=_mtime)
        if report == newest and newest not in kept:
            others = ", ".join(p.name for p in distinct if p != newest)
            warn(f"{report.parent}: {newest.name} and {others} hold the same launch; reading {newest.name} (the newer), "
                 f"delete the other")
            kept.append(newest)
    return kept


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return float("-inf")


def read_reports(paths: Iterable[str | os.PathLike], tables: Iterable[str] = TABLES, sass_text: bool = True
                 ) -> dict[str, pd.DataFrame]:
    """`read_tables` over several reports (or folders of them), concatenated; every table gets a
    `report` column so that (report, launch) names a launch."""
    wanted = list(dict.fromkeys(tables))
    parts: dict[str, list[pd.DataFrame]] = {name: [] for name in wanted}
    for path in find_reports(paths):
        for name, frame in read_tables(path, wanted, sass_text).items():
            if "report" not in frame.columns:
                frame.insert(0, "report", pd.Series([str(path)] * len(frame), index=frame.index, dtype="object"))
            parts[name].append(frame)
    return {name: pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
            for name, frames in parts.items() if frames}


def kernels(report: Report | str | os.PathLike) -> pd.DataFrame:
    """One row per profiled launch: launch settings, counters in our units, derived columns."""
    return read_tables(report, ["kernels"])["kernels"]


def rules(report: Report | str | os.PathLike) -> pd.DataFrame:
    """ncu's guided-analysis results, one row per rule result per launch."""
    return read_tables(report, ["rules"])["rules"]


def sass(report: Report | str | os.PathLike, text: bool = True) -> pd.DataFrame:
    """One row per SASS instruction per launch, with its source line and counters."""
    return read_tables(report, ["sass"], sass_text=text)["sass"]


def source(report: Report | str | os.PathLike) -> pd.DataFrame:
    """The per-instruction counters summed per source line, with the line's text."""
    return read_tables(report, ["source"])["source"]


def metrics(report: Report | str | os.PathLike) -> pd.DataFrame:
    """Every metric of every launch in long form: launch, kernel, name, value (or text), unit."""
    return read_tables(report, ["metrics"])["metrics"]
