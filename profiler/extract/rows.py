"""Read launches of an opened report into plain Python rows and columns (no pandas here).

`tables.py` turns what `read_rows` gathers into DataFrames. This part imports no pandas so that
the worker processes `tables.py` starts for big reports come up quickly.

Costs that shape the code (ncu_report 2026.3, measured on the project's reports):
- opening a launch (`action_by_idx`) costs ~5-10 ms; each launch is opened once for all tables;
- reading one metric value costs a few microseconds: values go into lists, nothing per value;
- the first source or SASS query on a launch costs ~40 ms and ~10 MB that ncu_report never
  frees, so file, line and SASS text are cached per kernel and asked for once per kernel.
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from .. import metrics as mt
from .ncu_reader import Report, accessors, name_bases, value_kinds
from .units import unit_factor

NAN = math.nan
TABLES = ("kernels", "rules", "sass", "source", "metrics", "timeline")

NVTX_ROOT = "gp"  # gemmprof's own runs push "gp", then "<kernel_key> <M>x<N>x<K>"
_NVTX_RANGE = re.compile(r"^(?P<key>\S+)(?:\s+(?P<M>\d+)x(?P<N>\d+)x(?P<K>\d+))?\s*$")

MESSAGE_TYPES = {0: "none", 1: "ok", 2: "optimization", 3: "warning", 4: "error"}
SPEEDUP_TYPES = {0: "unknown", 1: "local", 2: "global"}
RULE_COLUMNS = [
    "launch",
    "kernel",
    "rule_id",
    "rule",
    "section",
    "title",
    "message",
    "message_type",
    "estimated_speedup_pct",
    "speedup_type",
]
METRIC_COLUMNS = ["launch", "kernel", "name", "value", "text", "unit"]


def parse_nvtx(ranges: Iterable[str]) -> tuple[str | None, int | None, int | None, int | None]:
    """gemmprof's NVTX convention -> (kernel_key, M, N, K).

    ['gp', 'vectorized 4096x4096x4096'] -> ('vectorized', 4096, 4096, 4096); a range with no
    shape (['gp', 'naive']) gives the key alone; no 'gp' range gives all None.
    """
    ranges = list(ranges)
    if NVTX_ROOT not in ranges:
        return None, None, None, None
    i = ranges.index(NVTX_ROOT)
    match = _NVTX_RANGE.match(ranges[i + 1]) if i + 1 < len(ranges) else None
    if not match:
        return None, None, None, None
    if match["M"] is None:
        return match["key"], None, None, None
    return match["key"], int(match["M"]), int(match["N"]), int(match["K"])


@dataclass
class Rows:
    """What `read_rows` gathers: plain lists, merged across worker processes by `extend`."""

    kernels: list[dict[str, Any]] = field(default_factory=list)
    rules: list[dict[str, Any]] = field(default_factory=list)
    sass: dict[str, list[Any]] = field(default_factory=lambda: {c: [] for c in mt.columns_at(mt.INSTRUCTION)})
    code: dict[tuple[str, int], str] = field(default_factory=dict)  # (file, line) -> its text
    metrics: dict[str, list[Any]] = field(default_factory=lambda: {c: [] for c in METRIC_COLUMNS})
    timeline: dict[str, list[Any]] = field(default_factory=lambda: {c: [] for c in mt.TIMELINE_COLUMNS})

    def extend(self, other: "Rows") -> None:
        self.kernels.extend(other.kernels)
        self.rules.extend(other.rules)
        for column, values in other.sass.items():
            self.sass[column].extend(values)
        for key, text in other.code.items():
            self.code.setdefault(key, text)
        for column, values in other.metrics.items():
            self.metrics[column].extend(values)
        for column, values in other.timeline.items():
            self.timeline[column].extend(values)


class _Reader:
    """Per-report state: ncu_report constants and the caches shared between launches."""

    def __init__(self, report: Report, sass_text: bool):
        self.path = report.name
        self.sass_text = sass_text
        self.demangled, self.function, self.mangled = name_bases()
        kinds = value_kinds()
        self.kind_string = kinds["string"]
        self.kind_int = (kinds["uint32"], kinds["uint64"])
        self.kind_float = (kinds["double"], kinds["float"])
        self.access = accessors()
        self.launch_metrics = mt.metrics_at(mt.LAUNCH)
        self.instruction_metrics = mt.metrics_at(mt.INSTRUCTION)
        # (mangled name, entry pc) -> {pc: [file, line, sass]}: one source query per kernel
        self.code_info: dict[tuple[str, int], dict[int, list[Any]]] = {}
        self.source_lines: dict[str, dict[str, list[str]]] = {}  # mangled name -> file -> lines

    # -- one launch metric ----------------------------------------------------------------------
    def value(self, action: Any, metric: mt.Metric) -> Any:
        """One launch metric in our unit; NaN (None for names) when the report lacks it."""
        m = action.metric_by_name(metric.ncu)
        if m is None:
            return None if metric.dtype == "str" else NAN
        kind = m.kind()
        if kind == self.kind_string:
            return m.as_string()
        if not m.has_value():
            return NAN
        if kind in self.kind_int:
            value: float = m.as_uint64()
        elif kind in self.kind_float:
            value = m.as_double()
        else:
            return NAN
        try:
            factor = unit_factor(m.unit(), metric.unit)
        except ValueError:
            return NAN  # a unit we cannot turn into ours: better missing than wrong
        return value if factor == 1.0 else value * factor

    # -- per table ------------------------------------------------------------------------------
    def identity(self, index: int, action: Any) -> dict[str, Any]:
        ranges: list[str] = []
        state = action.nvtx_state()
        if state is not None:
            for domain_id in state.domains():
                names = list(state.domain_by_id(domain_id).push_pop_ranges())
                if names and (NVTX_ROOT in names or not ranges):
                    ranges = names
        key, M, N, K = parse_nvtx(ranges)
        return {
            "launch": index,
            "kernel": action.name(self.demangled),
            "function": action.name(self.function),
            "nvtx": "/".join(ranges) if ranges else None,
            "kernel_key": key,
            "M": M,
            "N": N,
            "K": K,
            "report": self.path,
        }

    def kernel_row(self, identity: dict[str, Any], action: Any) -> dict[str, Any]:
        row = dict(identity)
        for metric in self.launch_metrics:
            row[metric.column] = self.value(action, metric)
        return row

    def rule_rows(self, identity: dict[str, Any], action: Any, out: list[dict[str, Any]]) -> None:
        for result in action.rule_results_as_dicts():
            message = result.get("rule_message") or {}
            speedup = result.get("speedup_estimation") or {}
            out.append(
                {
                    "launch": identity["launch"],
                    "kernel": identity["kernel"],
                    "rule_id": result.get("rule_identifier"),
                    "rule": result.get("name"),
                    "section": result.get("section_identifier"),
                    "title": message.get("title") or None,
                    "message": message.get("message"),
                    "message_type": MESSAGE_TYPES.get(message.get("type")),
                    "estimated_speedup_pct": speedup.get("speedup", NAN),
                    "speedup_type": SPEEDUP_TYPES.get(speedup.get("type")) if speedup else None,
                }
            )

    def instruction_values(self, action: Any) -> tuple[list[int], dict[str, Any]]:
        """Per-PC values of the instruction metrics: column -> {pc: value}, or one value for
        all PCs (0 when the launch total is 0, NaN when the report lacks the metric)."""
        ids_cache: dict[int, list[int]] = {}
        per_column: dict[str, Any] = {}
        pcs: set[int] = set()
        for metric in self.instruction_metrics:
            m = action.metric_by_name(metric.ncu)
            if m is None or not m.has_value():
                per_column[metric.column] = NAN
                continue
            total = m.as_double()
            if total == 0:
                per_column[metric.column] = 0.0  # nothing to attribute: no need to read instances
                continue
            n = m.num_instances()
            if n == 0 or not m.has_correlation_ids():
                per_column[metric.column] = NAN  # a total without per-instruction detail
                continue
            # Metrics of one family (all PC-sampling counters, say) share their PCs: read the
            # PCs once per instance count, checking the ends still match.
            u64 = self.access.as_uint64
            ids = ids_cache.get(n)
            correlation = m.correlation_ids()
            if ids is None or u64(correlation, 0) != ids[0] or u64(correlation, n - 1) != ids[-1]:
                ids = [u64(correlation, i) for i in range(n)]
                ids_cache[n] = ids
                pcs.update(ids)
            get = u64 if m.kind() in self.kind_int else self.access.as_double
            per_column[metric.column] = dict(zip(ids, [get(m, i) for i in range(n)]))
        return sorted(pcs), per_column

    def sass_rows(self, identity: dict[str, Any], action: Any, columns: dict[str, list[Any]]) -> int:
        """Append one row per instruction of the launch; returns the number of rows."""
        pcs, per_column = self.instruction_values(action)
        if not pcs:
            return 0
        entry = pcs[0]
        known = self.code_info.setdefault((action.name(self.mangled), entry), {})
        n = len(pcs)
        columns["launch"].extend([identity["launch"]] * n)
        columns["kernel"].extend([identity["kernel"]] * n)
        columns["pc"].extend(pcs)
        columns["offset"].extend([pc - entry for pc in pcs])
        files, lines, texts = columns["file"], columns["line"], columns["sass"]
        for pc in pcs:
            info = known.get(pc)
            if info is None:
                where = action.source_info(pc)
                info = known[pc] = [where.file_name(), where.line(), None] if where else [None, None, None]
            if self.sass_text and info[2] is None:
                info[2] = action.sass_by_pc(pc).strip()
            files.append(info[0])
            lines.append(info[1])
            texts.append(info[2])
        for column, values in per_column.items():
            if isinstance(values, dict):
                get = values.get
                columns[column].extend([get(pc, 0) for pc in pcs])
            else:
                columns[column].extend([values] * n)
        return n

    def add_code(self, action: Any, sass: dict[str, list[Any]], start: int, code: dict[tuple[str, int], str]) -> None:
        """Record the text of the source lines the launch's new sass rows point at."""
        mangled = action.name(self.mangled)
        files = self.source_lines.get(mangled)
        if files is None:
            files = {name: text.splitlines() for name, text in dict(action.source_files()).items() if text}
            self.source_lines[mangled] = files
        if not files:
            return
        for name, line in zip(sass["file"][start:], sass["line"][start:]):
            lines = files.get(name)
            if lines and line is not None and 0 < line <= len(lines):
                code.setdefault((name, line), lines[line - 1])

    def metric_rows(self, identity: dict[str, Any], action: Any, columns: dict[str, list[Any]]) -> None:
        """Every metric of the launch, in ncu's own unit: the hot loop of the `metrics` table."""
        names = action.metric_names()
        values: list[float] = []
        texts: list[str | None] = []
        units: list[str] = []
        add_value, add_text, add_unit = values.append, texts.append, units.append
        a = self.access
        by_name, kind_of, unit_of, has_value = a.metric_by_name, a.kind, a.unit, a.has_value
        as_double, as_uint64, as_string = a.as_double, a.as_uint64, a.as_string
        kind_string, kind_int, kind_float = self.kind_string, self.kind_int, self.kind_float
        for name in names:
            m = by_name(action, name)
            kind = kind_of(m)
            add_unit(unit_of(m))
            if kind == kind_string:
                add_value(NAN)
                add_text(as_string(m))
                continue
            add_text(None)
            if not has_value(m):
                add_value(NAN)
            elif kind in kind_float:
                add_value(as_double(m))
            elif kind in kind_int:
                add_value(float(as_uint64(m)))
            else:
                add_value(NAN)
        n = len(names)
        columns["launch"].extend([identity["launch"]] * n)
        columns["kernel"].extend([identity["kernel"]] * n)
        columns["name"].extend(names)
        columns["value"].extend(values)
        columns["text"].extend(texts)
        columns["unit"].extend(units)


def timeline_rows(identity: dict[str, Any], action: Any, columns: dict[str, list[Any]]) -> None:
    """The launch's PM-sampling timelines (`metrics.TIMELINE`), one row per sampling interval:
    each series aligned to the launch's own timestamps where the reader can (`timelines()`),
    t_ns from the first sample. A report without the PM Sampling section adds no rows."""
    names = action.metric_names()
    timelines = action.timelines() if hasattr(action, "timelines") else None
    found: dict[str, tuple[list[int], list[float]]] = {}
    for series in mt.TIMELINE:
        name = next((n for n in names if n.endswith(series.suffix) and n[-len(series.suffix) - 1:-len(series.suffix)] in ".:"),
                    None)
        if name is None:
            continue
        metric = action.metric_by_name(name)
        aligned = timelines.aligned_metric(metric) if timelines is not None else None
        metric = aligned if aligned is not None else metric
        stamps = metric.correlation_ids() if hasattr(metric, "correlation_ids") else None
        count = metric.num_instances() if hasattr(metric, "num_instances") else 0
        if not count or stamps is None or stamps.num_instances() != count:
            continue
        found[series.column] = ([stamps.as_uint64(i) for i in range(count)], [metric.as_double(i) for i in range(count)])
    if not found:
        return
    found = {column: (_from_start(stamps), values) for column, (stamps, values) in found.items()}
    times = next(iter(found.values()))[0]
    n = len(times)
    columns["launch"].extend([identity["launch"]] * n)
    columns["kernel"].extend([identity["kernel"]] * n)
    columns["t_ns"].extend(float(t) for t in times)
    for series in mt.TIMELINE:
        stamps, values = found.get(series.column, (None, None))
        columns[series.column].extend(values if stamps == times else _nearest(times, stamps, values) if stamps else [NAN] * n)


def _from_start(stamps: list[int]) -> list[int]:
    """Sample times in ns from the first sample. Aligned samples already count from the launch;
    the others (a reader that cannot align them, the warp states' own pass) carry GPU timestamps,
    sometimes with a 0 for the first: they count from the first real one."""
    real = [t for t in stamps if t > 0]
    if not real or min(real) < len(stamps) * 1_000_000:  # already relative
        return [t - stamps[0] for t in stamps]
    first = min(real)
    return [max(t - first, 0) for t in stamps]


def _nearest(times: list[int], stamps: list[int], values: list[float]) -> list[float]:
    """`values` sampled at `stamps` (another sampling pass: the warp states), read at each of
    `times` from the nearest stamp; outside the stamps' span, NaN."""
    order = sorted(range(len(stamps)), key=stamps.__getitem__)
    xs, ys = [stamps[i] for i in order], [values[i] for i in order]
    out = []
    for t in times:
        i = bisect.bisect_left(xs, t)
        if i == 0 and (not xs or t < xs[0]) or i == len(xs) and t > xs[-1]:
            out.append(NAN)
            continue
        j = i if i < len(xs) and (i == 0 or xs[i] - t <= t - xs[i - 1]) else i - 1
        out.append(ys[j])
    return out


def read_rows(report: Report, tables: Iterable[str], sass_text: bool = True, start: int = 0,
              stop: int | None = None) -> Rows:
    """Rows of the named tables for launches start..stop-1, each launch opened once."""
    wanted = set(tables)
    reader = _Reader(report, sass_text=sass_text and "sass" in wanted)
    rows = Rows()
    want_sass = bool(wanted & {"sass", "source"})
    for launch in report.launches(start, stop):
        action = launch.action
        identity = reader.identity(launch.index, action)
        if "kernels" in wanted:
            rows.kernels.append(reader.kernel_row(identity, action))
        if "rules" in wanted:
            reader.rule_rows(identity, action, rows.rules)
        if want_sass:
            first = len(rows.sass["pc"])
            if reader.sass_rows(identity, action, rows.sass) and "source" in wanted:
                reader.add_code(action, rows.sass, first, rows.code)
        if "metrics" in wanted:
            reader.metric_rows(identity, action, rows.metrics)
        if "timeline" in wanted:
            timeline_rows(identity, action, rows.timeline)
    return rows
