"""What a run's files must hold, checked at the door: run.json's fields, each table's columns and
each line of profile.jsonl. One declarative table per file; a reader checks what it reads here
once, so the analyses behind it meet only well-typed data and every complaint is one line naming
the file and the field.

Only what readers rely on is declared; other fields and columns pass untouched (older and newer
runs stay readable).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path

from typing import TYPE_CHECKING

from ..errors import GemmprofError

if TYPE_CHECKING:  # pandas is imported where a table is checked: run.json's checks need none
    import pandas as pd

# Kinds of value: JSON types for run.json and profile.jsonl, column kinds for tables.
TEXT, INT, NUMBER, BOOL, OBJECT, LIST = "text", "integer", "number", "true/false", "object", "list"


@dataclass(frozen=True)
class Field:
    """One field of a JSON object or one column of a table."""

    name: str
    kind: str
    required: bool = False
    positive: bool = False  # numbers: above zero wherever present (times, sizes)
    filled: bool = False  # no empty cell (the keys a row is known by)


# run.json (and <stem>.run.json beside a bench table)
RUN_META: tuple[Field, ...] = (
    Field("schema_version", INT, required=True),
    Field("kind", TEXT), Field("command", TEXT), Field("created", TEXT),
    Field("git_commit", TEXT), Field("git_dirty", BOOL), Field("git_tree", TEXT),
    Field("environment", OBJECT), Field("complete", BOOL),
    Field("shapes", LIST), Field("kernels", LIST), Field("dispatchers", OBJECT),
    Field("policy", OBJECT), Field("resources", OBJECT),
    # a program's run (`profile -- CMD`): source "program", its argv and folder, how it ended
    Field("source", TEXT), Field("program", LIST), Field("cwd", TEXT),
    Field("program_status", TEXT), Field("program_exit_code", INT), Field("ncu_command", LIST),
)

# run.json's "environment": the facts compare and the report read
ENVIRONMENT: tuple[Field, ...] = (
    Field("gpu_name", TEXT), Field("driver", TEXT), Field("cuda_runtime", TEXT), Field("cublas_version", TEXT),
    Field("compute_capability", TEXT), Field("arch", TEXT), Field("gpu_slug", TEXT),
    Field("sm_count", INT), Field("l2_bytes", INT),
    Field("sm_clock_mhz", NUMBER), Field("sm_clock_max_mhz", NUMBER),
    Field("mem_clock_mhz", NUMBER), Field("mem_clock_max_mhz", NUMBER),
)

# one line of profile.jsonl
PROFILE_RECORD: tuple[Field, ...] = (
    Field("kernel", TEXT, required=True), Field("report", TEXT, required=True),
    Field("M", INT), Field("N", INT), Field("K", INT),
    Field("status", TEXT), Field("reason", TEXT), Field("launches", INT), Field("replay_passes", INT),
    Field("ncu_wall_s", NUMBER),
    Field("source", TEXT), Field("program", LIST), Field("program_status", TEXT), Field("program_exit_code", INT),
)

_TIMES = ("median_ms", "mean_ms", "p10_ms", "p90_ms", "min_ms",
          "cublas_median_ms", "cublas_mean_ms", "cublas_p10_ms", "cublas_p90_ms", "cublas_min_ms")

# Tables by name (RunDir.read_table): the columns readers rely on; the kernels table's follow
# the metric table (`_kernels_fields`).
TABLES: dict[str, tuple[Field, ...]] = {
    "bench": (
        Field("kernel", TEXT, required=True, filled=True),
        *(Field(dim, INT, required=True, positive=True, filled=True) for dim in "MNK"),
        Field("status", TEXT, required=True, filled=True), Field("median_ms", NUMBER, required=True, positive=True),
        Field("gflops", NUMBER, required=True),
        *(Field(c, NUMBER, positive=True) for c in _TIMES if c != "median_ms"),
        Field("tier", TEXT), Field("pct_of_cublas", NUMBER), Field("cv", NUMBER),
    ),
}


@functools.cache
def _kernels_fields() -> tuple[Field, ...]:
    """The kernels table's columns, from the one metric table (`metrics`): its dtypes
    say which are numbers; (report, launch) names a launch (`report` needs them, see
    `require_columns`; a roofline of a hand-made table does not); times and peaks are above zero."""
    from .. import metrics as mt

    declared = {"report": Field("report", TEXT, filled=True), "launch": Field("launch", INT, filled=True),
                "duration_ns": Field("duration_ns", NUMBER, required=True, positive=True)}
    for column in (*mt.LAUNCH_FIELDS, *mt.metrics_at(mt.LAUNCH), *mt.DERIVED):
        name = column.column
        if name in declared:
            continue
        dtype = getattr(column, "dtype", "text" if getattr(column, "unit", "") == "text" else "float64")
        kind = INT if dtype == "Int64" else TEXT if dtype in ("str", "text", "object") else NUMBER
        peak = name.startswith("peak_") and getattr(column, "unit", "") != "%"  # peak_pct of a launch with no math is 0
        declared[name] = Field(name, kind, positive=peak or name in ("M", "N", "K"))
    return tuple(declared.values())



def check_object(data: object, fields: tuple[Field, ...], where: str, what: str = "") -> dict:
    """`data` as a dict whose declared fields have their kinds; a GemmprofError naming `where`
    and the field otherwise. Absent or null optional fields are fine."""
    if not isinstance(data, dict):
        raise GemmprofError(f"{where}: {what or 'top level'} must be a JSON object, not {_json_kind(data)}")
    for f in fields:
        label = f"{what}.{f.name}" if what else f.name
        if f.name not in data or data[f.name] is None:
            if f.required:
                raise GemmprofError(f"{where}: field {label!r} is missing")
            continue
        value = data[f.name]
        if not _is_kind(value, f.kind):
            raise GemmprofError(f"{where}: field {label!r} must be {_article(f.kind)}, not {_json_kind(value)} {_short(value)}")
        if f.positive and not value > 0:
            raise GemmprofError(f"{where}: field {label!r} must be above zero, got {value!r}")
    return data


def check_run_meta(data: object, where: str) -> dict:
    """run.json: the top level, then its environment."""
    meta = check_object(data, RUN_META, where)
    if isinstance(meta.get("environment"), dict):
        check_object(meta["environment"], ENVIRONMENT, where, "environment")
    return meta


def check_table(name: str, frame: pd.DataFrame, where: str) -> pd.DataFrame:
    """A table as readers may trust it: the declared columns present when required, numbers as
    float64 (integers as Int64), no text where numbers belong, no zero or negative times. Returns
    a new frame; tables without a declared schema pass unchanged."""
    import numpy as np
    import pandas as pd

    fields = _kernels_fields() if name == "kernels" else TABLES.get(name)
    if fields is None:
        return frame
    missing = [f.name for f in fields if f.required and f.name not in frame.columns]
    if missing:
        needs = ", ".join(f.name for f in fields if f.required)
        raise GemmprofError(f"{where}: no column {', '.join(map(repr, missing))} (a {name} table needs {needs})")
    out = frame.copy()
    for f in fields:
        if f.name not in out.columns:
            continue
        if f.kind == TEXT:
            column = out[f.name]
            if f.filled and column.isna().any():
                row = int(np.flatnonzero(column.isna().to_numpy())[0])
                raise GemmprofError(f"{where}: column {f.name!r} is empty in row {row + 1}")
            if not column.map(lambda v: v is None or isinstance(v, str) or pd.isna(v)).all():
                out[f.name] = column.map(lambda v: v if v is None or isinstance(v, str) or pd.isna(v) else str(v))
            continue
        if f.kind not in (INT, NUMBER):
            continue
        column = out[f.name]
        if column.dtype == bool:
            raise GemmprofError(f"{where}: column {f.name!r} holds true/false, not numbers")
        numbers = pd.to_numeric(column, errors="coerce")
        bad = numbers.isna() & column.notna() & (column.astype(str).str.strip() != "")
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise GemmprofError(f"{where}: column {f.name!r} holds a non-number ({_short(column.iloc[row])} in row {row + 1})",
                                f"the {name} table's {f.name} must be numeric")
        already = pd.api.types.is_numeric_dtype(column.dtype)  # keep a typed column's dtype as it is
        numbers = numbers.astype("float64")
        if f.filled and numbers.isna().any():
            raise GemmprofError(f"{where}: column {f.name!r} is empty in row {int(np.flatnonzero(numbers.isna().to_numpy())[0]) + 1}")
        finite = numbers[np.isfinite(numbers)]
        if f.positive and (finite <= 0).any():
            value = finite[finite <= 0].iloc[0]
            raise GemmprofError(f"{where}: column {f.name!r} holds {value:g}; it must be above zero")
        if f.kind == INT:
            if np.isinf(numbers).any() or (finite != np.floor(finite)).any() or (finite.abs() > 2**53).any():
                raise GemmprofError(f"{where}: column {f.name!r} must hold whole numbers")
            if not already:
                out[f.name] = numbers.where(np.isfinite(numbers)).astype("Int64")
        elif not already:
            out[f.name] = numbers
    return out


def require_columns(frame: pd.DataFrame, columns: tuple[str, ...], where: str, why: str) -> None:
    """What one reader needs beyond the table's schema, as the same one-line error."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise GemmprofError(f"{where}: no column {', '.join(map(repr, missing))} ({why})")


def check_profile_record(data: object, where: str) -> dict:
    """One line of profile.jsonl (already parsed)."""
    return check_object(data, PROFILE_RECORD, where)


def _is_kind(value: object, kind: str) -> bool:
    if kind == BOOL:
        return isinstance(value, bool)
    if isinstance(value, bool):  # JSON true is no number
        return False
    if kind == INT:
        return isinstance(value, int)
    if kind == NUMBER:
        return isinstance(value, (int, float)) and not math.isnan(value)
    return isinstance(value, {TEXT: str, OBJECT: dict, LIST: list}[kind])


def _json_kind(value: object) -> str:
    for kind in (BOOL, INT, NUMBER, TEXT, OBJECT, LIST):
        if _is_kind(value, kind):
            return _article(kind)
    return "null" if value is None else type(value).__name__


def _article(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def _short(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def read_frame(path: Path) -> pd.DataFrame:
    """A .csv or .parquet file as a frame; an unreadable, empty or truncated file is a one-line
    error naming it."""
    import pandas as pd

    try:
        if path.suffix == ".parquet":
            frame = pd.read_parquet(path)
            for column in frame.select_dtypes(include="string"):
                # text that is not UTF-8 fails only when first read, which must be here, not later
                frame[column].to_numpy(dtype=object)
            return frame
        return pd.read_csv(path)
    except pd.errors.EmptyDataError:
        raise GemmprofError(f"{path} is empty", "rerun the step that writes it") from None
    except (OSError, ValueError, NotImplementedError, pd.errors.ParserError, *_arrow_errors()) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise GemmprofError(f"{path} cannot be read ({first[:160]})", "it may be truncated: rerun the step that writes it") from None


def _arrow_errors() -> tuple[type[BaseException], ...]:
    """pyarrow's own error base (a corrupt parquet can raise it bare, e.g. "Wrapping ... failed"),
    where pyarrow is installed."""
    try:
        from pyarrow.lib import ArrowException
    except ImportError:
        return ()
    return (ArrowException,)
