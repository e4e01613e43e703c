"""Open Nsight Compute reports: the only module that imports `ncu_report`, and only when asked.

`ncu_report` comes from PyPI (`ncu-report`) or, failing that, from the copy every ncu
installation ships in `extras/python`. The reader checks what it is given before ncu_report sees
it: ncu_report returns an empty or half-broken context for bad files instead of raising, so a
truncated report would otherwise surface later as a confusing TypeError. Every problem with the
file becomes one `GemmprofError` that names it.

`open_report` hands back a `Report` that yields launches one at a time: the tables in
`tables.py` read each launch once and turn it into plain pandas straight away (holding all
launches of a big report alive costs more than a megabyte each).

The copy bundled with ncu 2025.3 segfaults in IMetric.unit() when numpy was imported before it
(seen on the H200 machine, where no PyPI package is installed); `must_isolate()` tells
`tables.read_tables` to read in a fresh process then (`read_child.py`).
"""

from __future__ import annotations

import glob
import importlib
import importlib.util
import lzma
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

from ..errors import GemmprofError

ENV_NCU = "GEMMPROF_NCU"  # path of the ncu executable (or its install folder) to take ncu_report from
REPORT_MAGIC = b"NVR\0"
XZ_MAGIC = b"\xfd7zXZ\x00"
NCU_INSTALL_GLOB = "/opt/nvidia/nsight-compute/*/extras/python"

_module: ModuleType | None = None
_unsafe = False  # the bundled module was imported after numpy: it would crash in this process


def _version_key(path: Path) -> tuple:
    """Sort install folders like 2025.3.1 by version, newest last."""
    parts = []
    for piece in path.parent.parent.name.replace("-", ".").split("."):
        parts.append((0, int(piece), "") if piece.isdigit() else (1, 0, piece))
    return tuple(parts)


def candidate_dirs(env: dict[str, str] | None = None) -> list[Path]:
    """Folders that may hold the ncu_report.py bundled with ncu, best first."""
    env = os.environ if env is None else env
    found: list[Path] = []
    executables = []
    if env.get(ENV_NCU):
        executables.append(env[ENV_NCU])
    on_path = shutil.which("ncu", path=env.get("PATH"))
    if on_path:
        executables.append(on_path)
    for exe in executables:
        resolved = Path(exe).expanduser().resolve()
        roots = [resolved] if resolved.is_dir() else [resolved.parent, resolved.parent.parent]
        for root in roots:
            found.append(root / "extras" / "python")
            # CUDA toolkits keep ncu in <cuda>/nsight-compute-<version>/ beside bin/.
            found.extend(sorted((Path(p) for p in glob.glob(str(root / "nsight-compute*" / "extras" / "python"))),
                                key=_version_key, reverse=True))
    found.extend(sorted((Path(p) for p in glob.glob(NCU_INSTALL_GLOB)), key=_version_key, reverse=True))
    unique: list[Path] = []
    for path in found:
        if path not in unique and (path / "ncu_report.py").is_file():
            unique.append(path)
    return unique


def _bundled(origin: str | None) -> bool:
    """Whether a module file is the copy under an ncu installation's extras/python."""
    if not origin:
        return False
    folder = Path(origin).resolve().parent
    return folder.name == "python" and folder.parent.name == "extras"


def must_isolate() -> bool:
    """True when ncu_report must be used from a fresh process.

    The copy bundled with ncu 2025.3 crashes (SIGSEGV in IMetric.unit()) when numpy was loaded
    before it, as seen on the H200 machine; imported first, it works. The PyPI package does not
    have the problem. Where only the bundled copy exists and numpy is loaded here,
    `tables.read_tables` reads in a child process that imports ncu_report first (`read_child.py`).
    """
    if _module is not None:
        return _unsafe
    spec = importlib.util.find_spec("ncu_report")
    if spec is not None and not _bundled(spec.origin):
        return False
    return "numpy" in sys.modules


def import_ncu_report() -> ModuleType:
    """The ncu_report module: the installed package, else the copy bundled with ncu."""
    global _module, _unsafe
    if _module is not None:
        return _module
    numpy_first = "numpy" in sys.modules
    try:
        module = importlib.import_module("ncu_report")
    except ImportError:
        module = None
    tried = [] if module is not None else candidate_dirs()
    for folder in tried:
        sys.path.insert(0, str(folder))
        try:
            sys.modules.pop("ncu_report", None)
            module = importlib.import_module("ncu_report")
            break
        except ImportError:
            sys.path.remove(str(folder))
    if module is None:
        raise GemmprofError(
            "cannot import ncu_report, the Python interface to Nsight Compute reports",
            f"pip install ncu-report, or set {ENV_NCU} to your ncu executable"
            + (f" (tried {', '.join(map(str, tried))})" if tried else ""),
        )
    _module = module
    _unsafe = numpy_first and _bundled(getattr(module, "__file__", None))
    return module


def _check_magic(data: bytes, path: str) -> None:
    if len(data) == 0:
        raise GemmprofError(f"{path}: the file is empty, not an Nsight Compute report")
    if not data.startswith(REPORT_MAGIC):
        raise GemmprofError(f"{path}: not an Nsight Compute report (no 'NVR' header)")


# Largest report an .xz may unpack to (a full-set report of hundreds of launches is a few
# hundred MB); GEMMPROF_MAX_UNPACKED_BYTES overrides it.
MAX_UNPACKED_ENV = "GEMMPROF_MAX_UNPACKED_BYTES"
MAX_UNPACKED_BYTES = 4 << 30
_CHUNK = 1 << 20


def max_unpacked_bytes() -> int:
    value = os.environ.get(MAX_UNPACKED_ENV, "")
    try:
        return int(value) if value else MAX_UNPACKED_BYTES
    except ValueError:
        raise GemmprofError(f"{MAX_UNPACKED_ENV}={value!r} is not a number of bytes") from None


def _decompress(path: Path, folder: Path, shown: str) -> Path:
    """Unpack `name.ncu-rep.xz` into `folder` (ncu_report reads from disk, lazily), streamed: the
    report header is checked in the first chunk and the unpacking stops at the size limit, so a
    small hostile .xz cannot fill the disk; a partial file is removed on any way out."""
    target = folder / (path.name.removesuffix(".xz") or "report.ncu-rep")
    limit = max_unpacked_bytes()
    written = 0
    try:
        with lzma.open(path) as src, open(target, "wb") as dst:
            while chunk := src.read(_CHUNK):
                if written == 0:
                    _check_magic(chunk, shown)
                written += len(chunk)
                if written > limit:
                    raise GemmprofError(f"{shown}: unpacks to more than {limit:,} bytes",
                                        f"raise {MAX_UNPACKED_ENV} if the report is really that large")
                dst.write(chunk)
    except (lzma.LZMAError, EOFError) as exc:
        target.unlink(missing_ok=True)
        raise GemmprofError(f"{shown}: corrupt or truncated xz file ({exc})") from None
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    return target


def prepare_file(path: Path, folder: Path, shown: str) -> Path:
    """Check a report file without ncu_report and return the path ncu_report should load:
    the file itself, or its copy unpacked into `folder` when it is xz-compressed."""
    if not path.exists():
        raise GemmprofError(f"{shown}: no such file")
    if path.is_dir():
        raise GemmprofError(f"{shown}: is a folder, not an Nsight Compute report")
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError as exc:
        raise GemmprofError(f"{shown}: cannot read ({exc.strerror})") from None
    local = path
    if head.startswith(XZ_MAGIC):
        local = _decompress(path, folder, shown)
        with open(local, "rb") as f:
            head = f.read(8)
    elif path.name.endswith(".xz") and head:
        raise GemmprofError(f"{shown}: not an xz file")
    _check_magic(head, shown)
    return local


@dataclass
class ReportLaunch:
    """One profiled launch: its position in the report and ncu_report's action for it."""

    index: int
    action: Any


class Report:
    """An opened report. Use as a context manager, or call `close()`; iterate with `launches()`."""

    def __init__(self, path: str | os.PathLike, shown_as: str | os.PathLike | None = None, prepared: bool = False):
        self.path = Path(path)
        self.name = str(shown_as if shown_as is not None else path)  # for messages and tables
        self._prepared = prepared  # `path` already went through prepare_file()
        self._tmp: Path | None = None
        self._context: Any = None
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
        if _unsafe:
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
