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


def pin_env(env: dict[str, str], pin: str) -> dict[str, str]:
    """`env` with the child seeing only GPU `pin` (an index as NVML counts them, or a GPU-...
    UUID). CUDA counts fastest-first unless told otherwise, NVML by PCI bus: on a host of mixed
    GPUs index 0 could name two different cards, so CUDA is told to count as NVML does."""
    env["CUDA_VISIBLE_DEVICES"] = pin
    env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"
    return env
