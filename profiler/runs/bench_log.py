"""bench.jsonl and the bench table: merging a re-bench into a run, and rebuilding the table after
an interrupted bench.

`gemmprof bench` appends one line per result to bench.jsonl as it goes and writes bench.csv and
bench.parquet at the end. So the log holds every result of every bench into the run, in order;
the table is the log's newest row per kernel, shape and tier. When the table is missing or older
than the log (a bench killed before it wrote its tables), readers rebuild it from the log.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ..errors import GemmprofError, warn
from .schema import check_table

LOG = "bench.jsonl"
# One result per kernel, shape and precision tier: a newer one replaces an older one.
KEY = ("kernel", "tier", "M", "N", "K")


def read_log(path: Path) -> list[dict]:
    """The results of a bench.jsonl; a line that is not a JSON object (a line cut short by a
    killed bench) is skipped with a warning naming the file and line."""
    records = []
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        raise GemmprofError(f"{path} cannot be read: {exc.strerror or exc}") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            record = None
        if not isinstance(record, dict):
            warn(f"{path}:{number}: not a JSON object, skipped")
            continue
        records.append(record)
    return records


def as_table(records: list[dict]) -> pd.DataFrame:
    """Result records as a bench table; every column the bench schema requires is present (a
    bench of only FAIL or ERROR rows has no times, yet its table still has the column)."""
    table = pd.DataFrame(records)
    for column in ("kernel", "M", "N", "K", "status", "median_ms", "gflops"):
        if column not in table.columns:
            table[column] = pd.Series([float("nan")] * len(table), index=table.index, dtype="float64")
    return table


def merge_rows(earlier: pd.DataFrame | None, newer: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """(`earlier` and `newer` as one table, the number of earlier rows replaced). A newer row
    replaces the earlier row of the same kernel, shape and tier; every other row is kept."""
    if earlier is None or earlier.empty:
        return newer.reset_index(drop=True), 0
    if newer.empty:
        return earlier.reset_index(drop=True), 0
    key = [k for k in KEY if k in earlier.columns or k in newer.columns]
    both = pd.concat([earlier.assign(_newer=False), newer.assign(_newer=True)], ignore_index=True)
    ident = both[key].astype(str)  # compare keys as text: a CSV's 512 and a record's 512 agree
    kept = both[~ident.duplicated(keep="last")]
    replaced = int(len(earlier) - (~kept["_newer"]).sum())
    return kept.drop(columns="_newer").reset_index(drop=True), replaced


def stale_bench_table(run) -> bool:
    """bench.jsonl is newer than the bench table (or the table is missing)."""
    log = run.path / LOG
    if not log.is_file():
        return False
    table = run.table_file("bench")
    return table is None or log.stat().st_mtime_ns > table.stat().st_mtime_ns


def rebuild_bench_table(run) -> pd.DataFrame:
    """The bench table from bench.jsonl (merged over the table when there is one), written back
    (atomically) when the run directory is writable; checked against the bench schema."""
    log = run.path / LOG
    rows = as_table(read_log(log))
    if rows.empty:
        raise GemmprofError(f"{log} holds no results", "run gemmprof bench into this run again")
    earlier = None
    if run.table_file("bench") is not None:
        from .schema import read_frame

        found = run.table_file("bench")
        earlier = check_table("bench", read_frame(found), str(found))
    table, _ = merge_rows(earlier, rows)
    table = check_table("bench", table, str(log))
    try:
        run.write_table("bench", table)
        warn(f"{run.path}: the bench table was older than {LOG} (an interrupted bench?): rebuilt from it")
    except OSError:
        warn(f"{run.path}: the bench table is older than {LOG}: read from it (cannot write the run directory)")
    return table
