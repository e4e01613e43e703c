"""Open Nsight Compute reports: `open_report` hands back a `Report` that yields launches one at a
time, and `accessors` the ncu_report calls the tables use. The tables in `tables.py` read each
launch once and turn it into plain pandas straight away (holding all launches of a big report
alive costs more than a megabyte each). Finding ncu_report is `ncu_import`, checking and
unpacking the file `report_file`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from ..errors import GemmprofError
from .ncu_import import import_ncu_report, loaded_unsafely
from .report_file import prepare_file


@dataclass
class ReportLaunch:
    """One profiled launch: its position in the report and ncu_report's action for it."""

    index: int
    action: Any


class Report:
    """An opened report. Use as a context manager, or call `close()`; iterate with `launches()`."""

    def __init__(self, path: str | os.PathLike, shown_as: str | os.PathLike | None = None, prepared: bool = False):
        self._tmp: Path | None = None  # first: close() (from __del__ too) runs whatever fails after
        self._context: Any = None
        self.path = Path(path)
        self.name = str(shown_as if shown_as is not None else path)  # for messages and tables
        self._prepared = prepared  # `path` already went through prepare_file()
        self.local_path = self.path  # where ncu_report reads it: the file, or its unpacked copy
        try:
            self._open()
        except BaseException:  # Ctrl-C or SIGTERM while opening: no temp folder left behind
            self.close()
            raise

    def _open(self) -> None:
        if self._prepared:
            local = self.path
        else:
            self._tmp = Path(tempfile.mkdtemp(prefix="gemmprof-"))
            local = self.local_path = prepare_file(self.path, self._tmp, self.name)
        ncu_report = import_ncu_report()
        if loaded_unsafely():
            self.close()
            raise GemmprofError(
                f"{self.name}: the ncu_report at {ncu_report.__file__} was loaded after numpy and crashes in "
                "this process",
                "read reports through profiler.extract.tables (it then reads in a fresh process), "
                "or pip install ncu-report",
            )
        try:
            context = ncu_report.load_report(str(local))
        except Exception as exc:  # ncu_report raises bare RuntimeErrors for unreadable files
            self.close()
            raise GemmprofError(f"{self.name}: Nsight Compute cannot load it ({exc})") from None
        if context is None or context.num_ranges() == 0:
            self.close()
            raise GemmprofError(
                f"{self.name}: holds no profile results: the file is truncated or corrupt, or ncu profiled no kernel"
            )
        self._context = context

    def __enter__(self) -> "Report":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

    def close(self) -> None:
        self._context = None
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def __len__(self) -> int:
        """Number of profiled launches."""
        context = self._require()
        return sum(context.range_by_idx(r).num_actions() for r in range(context.num_ranges()))

    def _require(self) -> Any:
        if self._context is None:
            raise GemmprofError(f"{self.name}: report is closed")
        return self._context

    def launches(self, start: int = 0, stop: int | None = None) -> Iterator[ReportLaunch]:
        """Launches start..stop-1 (all by default), once each, in report order.

        Raises GemmprofError on a launch it cannot read."""
        context = self._require()
        index = 0
        for r in range(context.num_ranges()):
            profile_range = context.range_by_idx(r)
            count = profile_range.num_actions()
            for a in range(count):
                if index >= start and (stop is None or index < stop):
                    action = profile_range.action_by_idx(a)
                    if action is None or action.name() is None or not action.metric_names():
                        raise GemmprofError(
                            f"{self.name}: launch {index} cannot be read: the report is truncated or corrupt"
                        )
                    yield ReportLaunch(index, action)
                index += 1
            if stop is not None and index >= stop:
                return


def open_report(path: str | os.PathLike, shown_as: str | os.PathLike | None = None, prepared: bool = False
                ) -> Report:
    """Open a `.ncu-rep` or `.ncu-rep.xz` file; every problem is a GemmprofError naming it.

    `shown_as` names the report in tables and messages when `path` is a local copy of it;
    `prepared` says `path` already went through `prepare_file` (checked, unpacked)."""
    return Report(path, shown_as, prepared)


@dataclass(frozen=True)
class Accessors:
    """ncu_report's per-value calls as plain functions of (object, *args).

    Where the module exposes its SWIG extension, these are the extension's own functions: the
    Python wrappers around them cost about a third of reading a value, and a report holds
    millions of values. Otherwise they are the unbound methods, which take the same arguments.
    """

    metric_by_name: Any
    kind: Any
    unit: Any
    has_value: Any
    as_double: Any
    as_uint64: Any
    as_string: Any


def accessors() -> Accessors:
    module = import_ncu_report()
    raw = getattr(module, "_ncu_report", None)

    def pick(cls: str, name: str) -> Any:
        return getattr(raw, f"{cls}_{name}", None) or getattr(getattr(module, cls), name)

    return Accessors(
        metric_by_name=pick("IAction", "metric_by_name"),
        kind=pick("IMetric", "kind"),
        unit=pick("IMetric", "unit"),
        has_value=pick("IMetric", "has_value"),
        as_double=pick("IMetric", "as_double"),
        as_uint64=pick("IMetric", "as_uint64"),
        as_string=pick("IMetric", "as_string"),
    )


# Constants of ncu_report the tables need, looked up once the module is loaded.
def name_bases() -> tuple[int, int, int]:
    """(demangled, function, mangled) name bases of IAction.name()."""
    action = import_ncu_report().IAction
    return action.NameBase_DEMANGLED, action.NameBase_FUNCTION, action.NameBase_MANGLED


def value_kinds() -> dict[str, int]:
    metric = import_ncu_report().IMetric
    return {
        "double": metric.ValueKind_DOUBLE,
        "float": metric.ValueKind_FLOAT,
        "string": metric.ValueKind_STRING,
        "uint32": metric.ValueKind_UINT32,
        "uint64": metric.ValueKind_UINT64,
    }
