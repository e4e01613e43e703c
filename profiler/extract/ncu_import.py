"""Find and import `ncu_report`, the Python interface to Nsight Compute reports: the only module
that imports it, and only when asked.

`ncu_report` comes from PyPI (`ncu-report`) or, failing that, from the copy every ncu
installation ships in `extras/python`.

The copy bundled with ncu 2025.3 segfaults in IMetric.unit() when numpy was imported before it
(seen on the H200 machine, where no PyPI package is installed); `must_isolate()` tells
`tables.read_tables` to read in a fresh process then (`read_child.py`).
"""

from __future__ import annotations

import glob
import importlib
import importlib.util
import os
import shutil
import sys
from pathlib import Path
from types import ModuleType

from ..errors import GemmprofError
from ..tools import NCU_ENV  # the path of the ncu executable (or its install folder) ncu_report is taken from

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
    if env.get(NCU_ENV):
        executables.append(env[NCU_ENV])
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
            f"pip install ncu-report, or set {NCU_ENV} to your ncu executable"
            + (f" (tried {', '.join(map(str, tried))})" if tried else ""),
        )
    _module = module
    _unsafe = numpy_first and _bundled(getattr(module, "__file__", None))
    return module


def loaded_unsafely() -> bool:
    """Whether the ncu_report imported here is the bundled copy loaded after numpy: opening a
    report with it would crash this process (`must_isolate`)."""
    return _unsafe
