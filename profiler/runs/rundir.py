"""Run directories: how commands talk to each other.

`bench` and `profile` write a run directory (tables, ncu reports, `run.json`); `analyze`,
`report`, `roofline` and `compare` read it back, so every step can be rerun on recorded data.
`run.json` carries a schema version that readers check.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from ..errors import GemmprofError, warn
from ..catalogue.kernel_paths import CHECKOUT_ROOT
from ..outdir import writing
from .schema import check_profile_record, check_run_meta, check_table, read_frame
from ..shipped import SAMPLE_RUN

if TYPE_CHECKING:  # pandas is imported where a table is read or written: opening a run needs none
    import pandas as pd

SCHEMA_VERSION = 1
RUN_JSON = "run.json"
PROFILE_LOG = "profile.jsonl"
REPORT_SUFFIXES = (".ncu-rep", ".ncu-rep.xz")  # what a run's ncu/ folder holds: reports, xz-packed or not
REPO_ROOT = CHECKOUT_ROOT  # None when gemmprof runs installed, not from a checkout


def new_run_id(gpu_slug: str) -> str:
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{gpu_slug}"


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write to a temporary name, then rename: an interrupted write never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data.encode() if isinstance(data, str) else data)
    tmp.replace(path)


class RunDir:
    """A directory holding one run: run.json plus tables (CSV and parquet) and ncu reports."""

    def __init__(self, path: Path):
        self.path = Path(path)

    @classmethod
    def create(cls, path: Path, meta: dict) -> RunDir:
        run = cls(path)
        existing = run.meta() if (run.path / RUN_JSON).is_file() else {}
        with writing(run.path):
            run.path.mkdir(parents=True, exist_ok=True)
            run.write_meta({**existing, **meta})
        return run

    def meta(self) -> dict:
        f = self.path / RUN_JSON
        if not f.is_file():
            raise GemmprofError(f"{self.path} is not a gemmprof run (no {RUN_JSON})", "pass a directory written by gemmprof bench or profile")
        return read_meta_file(f)

    def write_meta(self, meta: dict) -> None:
        meta = {"schema_version": SCHEMA_VERSION, "gemmprof_version": __version__, **meta}
        write_atomic(self.path / RUN_JSON, json.dumps(meta, indent=2, default=str) + "\n")

    def update_meta(self, **fields) -> None:
        self.write_meta({**self.meta(), **fields})

    def write_table(self, name: str, df: pd.DataFrame, csv: bool = True) -> None:
        """`name`.parquet for exact types, and `name`.csv for people and diff tools unless the
        table is too long to read that way (`csv=False`)."""
        if csv:
            write_atomic(self.path / f"{name}.csv", df.to_csv(index=False))
        tmp = self.path / f".{name}.parquet.tmp"
        df.to_parquet(tmp, index=False)
        tmp.replace(self.path / f"{name}.parquet")

    def table_file(self, name: str) -> Path | None:
        """The file `read_table` reads for `name`: the parquet, else the CSV, else None."""
        return next((f for f in (self.path / f"{name}.parquet", self.path / f"{name}.csv") if f.is_file()), None)

    def read_table(self, name: str) -> pd.DataFrame:
        """A table, checked against its schema (`profiler.runs.schema`). The bench table is rebuilt
        from bench.jsonl when the table is missing or older than it (an interrupted bench)."""
        from .bench_log import stale_bench_table

        if name == "bench" and stale_bench_table(self):
            from .bench_log import rebuild_bench_table

            return rebuild_bench_table(self)
        found = self.table_file(name)
        if found is None:
            raise GemmprofError(f"run {self.path} has no {name} table", f"run the step that writes {name}.csv first")
        return check_table(name, read_frame(found), str(found))

    def read_profile_log(self) -> pd.DataFrame | None:
        """profile.jsonl as a frame (None when absent): a line that is not valid JSON or fails its
        schema is skipped with a warning naming the file and the line."""
        log = self.path / PROFILE_LOG
        if not log.is_file():
            return None
        records = []
        for number, line in enumerate(log.read_bytes().decode("utf-8", errors="replace").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append(check_profile_record(json.loads(line), f"{log}:{number}"))
            except (json.JSONDecodeError, RecursionError):
                warn(f"{log}:{number}: not valid JSON, line skipped")
            except GemmprofError as exc:
                warn(f"{exc.message}; line skipped")
        import pandas as pd

        return pd.DataFrame(records)

    def has_table(self, name: str) -> bool:
        if name == "bench" and (self.path / "bench.jsonl").is_file():
            return True
        return self.table_file(name) is not None


def read_meta_file(f: Path) -> dict:
    """A run.json (or a copy such as bench.run.json), schema version checked."""
    try:
        meta = json.loads(f.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise GemmprofError(f"{f} is not UTF-8 text (byte {exc.start})", "a run.json is written by gemmprof as JSON") from None
    except json.JSONDecodeError as exc:
        raise GemmprofError(f"{f} is not valid JSON: {exc}") from None
    except RecursionError:
        raise GemmprofError(f"{f} nests too deeply to be a run.json") from None
    except OSError as exc:
        raise GemmprofError(f"{f} cannot be read: {exc.strerror or exc}") from None
    check_run_meta(meta, str(f))
    if meta.get("schema_version") != SCHEMA_VERSION:
        raise GemmprofError(f"{f} has schema version {meta.get('schema_version')!r}; this gemmprof reads {SCHEMA_VERSION}")
    return meta


def command_line() -> str:
    return " ".join(["gemmprof", *sys.argv[1:]])


def newest_run(root: Path | None = None, need_table: str | None = None) -> Path:
    """The run directory under `root` (default: ./reports of the current directory) whose
    run.json changed last, among those holding `need_table` when given: what `report` and
    `roofline` read when no run is named. Never the checkout's own sample runs: a command run
    from elsewhere must not write into them."""
    folder = root if root is not None else Path("reports")
    if folder.is_dir():
        runs = [p.parent for p in folder.glob(f"*/{RUN_JSON}") if need_table is None or RunDir(p.parent).has_table(need_table)]
        if runs:
            return max(runs, key=lambda p: (p / RUN_JSON).stat().st_mtime)
    what = f"run directory with a {need_table} table" if need_table else "run directory"
    raise GemmprofError(f"no {what} found under {folder}/",
                        f"pass one (e.g. the sample run that ships with gemmprof, {SAMPLE_RUN}), "
                        f"or run gemmprof bench or profile first")
