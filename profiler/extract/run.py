"""Extract the reports of a run directory into its tables (`gemmprof profile` ends with this).

The reports live in `<run>/ncu/`; the tables land beside `run.json` as CSV and parquet, one per
name in `TABLES` (kernels, rules, sass, source, metrics), each with a `report` column.
"""

from __future__ import annotations

import pandas as pd

from ..rundir import RunDir
from .tables import TABLES, read_reports


def extract_run(run: RunDir, tables: tuple[str, ...] = TABLES) -> dict[str, pd.DataFrame]:
    """Read every report under `run.path/ncu`, write the tables into the run, return them."""
    frames = read_reports([run.path / "ncu"], tables)
    for name, frame in frames.items():
        run.write_table(name, frame)
    return frames
