"""Reading numbers out of tables that may be old or partial: a missing column or value is unknown
(NaN), never an error, so analyses run on any report and on run directories of older versions."""

from __future__ import annotations

import posixpath

import numpy as np
import pandas as pd

# The columns that name one launch in every extracted table (a report may hold many launches).
LAUNCH_KEYS = ["report", "launch"]


def numeric_column(frame: pd.DataFrame, column: str) -> pd.Series:
    """`frame[column]` as float64; all NaN when the table lacks the column."""
    if column not in frame.columns:
        return pd.Series(np.nan, index=frame.index, dtype="float64")
    return pd.to_numeric(frame[column], errors="coerce").astype("float64")


def number(value) -> float:
    """A cell as a float; None, NaN and pandas' NA as NaN."""
    return np.nan if value is None or pd.isna(value) else float(value)


def flag(value) -> bool:
    """A yes/no cell as a bool: True, numpy's True and 1 are yes; False, None, NaN and NA are no.
    (`value is True` is False for numpy.bool_, which is what a bench table's column holds.)"""
    return False if value is None or (not isinstance(value, str) and pd.isna(value)) else bool(value)


def file_name(path) -> str | None:
    """A source path's file name as a report shows it ('/src/kernels/fix.cuh' or 'C:\\k\\fix.cuh'
    -> 'fix.cuh'), whichever machine compiled it; None for a cell without one."""
    return posixpath.basename(path.replace("\\", "/")) if isinstance(path, str) else None


def per_launch(sass: pd.DataFrame | None, read, columns: list[str], need: str = "sass") -> pd.DataFrame:
    """One row per launch of an instruction-level table: `read(group)` (a dict of that launch's
    facts) beside its report and launch, in a frame of `columns`; an empty frame of them where
    the table is missing, empty or lacks the column `need`."""
    if sass is None or sass.empty or need not in sass.columns:
        return pd.DataFrame(columns=columns)
    rows = [{"report": report, "launch": launch, **read(group)}
            for (report, launch), group in sass.groupby(LAUNCH_KEYS, sort=False, dropna=False)]
    return pd.DataFrame(rows, columns=columns)
