"""The environment for gemmprof's own child processes (bench workers, ncu targets, extraction
children): this checkout first on PYTHONPATH, so `python -m profiler...` finds the same code
whether or not gemmprof is installed."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent)


def child_env(base: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    env["PYTHONPATH"] = PACKAGE_PARENT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env
