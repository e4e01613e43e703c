"""Extract the reports of a run directory into its tables (`gemmprof profile` ends with this).

The reports live in `<run>/ncu/`; the tables land beside `run.json` as CSV and parquet, one per
name in `TABLES` (kernels, rules, sass, source, metrics), each with a `report` column holding the
report's path relative to the run (so a run directory can be moved or shared).

Each report's tables are also kept in `<run>/extract/<report name>/` (parquet), keyed on the
report's size and SHA-256 (in its `done` file). `gemmprof profile`
fills that cache in the background while ncu works on the next kernel (`background.ExtractServer`:
`python -m profiler.extract.prefetch --serve`, started as ncu replays the first kernel), so
extraction costs almost no wall time, and a rerun that adds one report reads only that one.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pandas as pd

from ..runs.rundir import RunDir
from .. import metrics as mt
from .tables import TABLES, find_reports, read_tables

CACHE_DIR = "extract"
# Long tables (one row per SASS instruction or per metric) are kept as parquet only.
PARQUET_ONLY = ("sass", "metrics", "timeline")


def cache_dir_for(report: Path) -> Path:
    """<run>/extract/<report file name> for a report at <run>/ncu/<report file name>."""
    return report.parent.parent / CACHE_DIR / report.name


def fingerprint(report: Path) -> str:
    """Size and SHA-256 of a report's bytes: what its cache is keyed on. Modification times are
    not trusted: a report replaced by an older file (cp -p, rsync, an unpacked archive) keeps an
    old mtime, and would otherwise be served the tables of the report it replaced."""
    digest = hashlib.sha256()
    with open(report, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return f"{report.stat().st_size} {digest.hexdigest()}"


def table_layout() -> str:
    """A short fingerprint of the tables' columns (the metric table): a cache written under another
    metric table is stale even when the report is not."""
    columns = "|".join(mt.columns_at(mt.LAUNCH) + ["/"] + mt.columns_at(mt.INSTRUCTION))
    return hashlib.sha256(columns.encode()).hexdigest()[:16]


def _cache_fresh(key: str, cache: Path, tables: tuple[str, ...]) -> bool:
    done = cache / "done"
    try:
        recorded = done.read_text().strip()
    except (OSError, UnicodeDecodeError):
        return False
    return recorded == key and all((cache / f"{t}.parquet").is_file() for t in tables)


def extract_report(report: Path, tables: tuple[str, ...] = TABLES, cache: Path | None | bool = True
                   ) -> dict[str, pd.DataFrame]:
    """One report's tables, from its cache when fresh, else read and cached (atomically).

    `cache`: True keeps it in the run's `extract/` folder (`cache_dir_for`); a path keeps it
    there instead (a report that is not ours: nothing may be written beside it); None or False
    reads the report and caches nothing."""
    report = Path(report)
    if cache is None or cache is False:
        return _label(read_tables(report, tables), report)
    cache = cache_dir_for(report) if cache is True else Path(cache)
    key = f"{fingerprint(report)} {table_layout()}"  # the report's bytes and the metric table it was read with
    if _cache_fresh(key, cache, tables):
        try:
            return {t: pd.read_parquet(cache / f"{t}.parquet") for t in tables}
        except (OSError, ValueError):  # a damaged cache is only a cache: read the report again
            pass
    frames = _label(read_tables(report, tables), report)
    tmp = cache.with_name(f".{cache.name}.{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for name, frame in frames.items():
        frame.to_parquet(tmp / f"{name}.parquet", index=False)
    (tmp / "done").write_text(key + "\n")
    shutil.rmtree(cache, ignore_errors=True)
    tmp.replace(cache)
    return frames


def _label(frames: dict[str, pd.DataFrame], report: Path) -> dict[str, pd.DataFrame]:
    """Each table's `report` column: the report's folder and name (`ncu/x.ncu-rep` in a run), so
    that a run directory can be moved or shared."""
    relative = f"{report.parent.name}/{report.name}"
    for frame in frames.values():
        if "report" in frame.columns:
            frame["report"] = relative
        else:
            frame.insert(0, "report", pd.Series([relative] * len(frame), index=frame.index, dtype="object"))
    return frames


def extract_run(run: RunDir, tables: tuple[str, ...] = TABLES) -> dict[str, pd.DataFrame]:
    """Read every report under `run.path/ncu` (through the cache), write the run's tables, return them."""
    parts: dict[str, list[pd.DataFrame]] = {t: [] for t in tables}
    for report in find_reports([run.path / "ncu"]):
        for name, frame in extract_report(report, tables).items():
            parts[name].append(frame)
    frames = {name: pd.concat(fs, ignore_index=True) for name, fs in parts.items() if fs}
    for name, frame in frames.items():
        run.write_table(name, frame, csv=name not in PARQUET_ONLY)
    return frames
