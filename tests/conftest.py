"""Test tiers by marker: plain (no hardware), `nvcc` (compiler on PATH), `ncu` (ncu_report
importable, real committed reports), `gpu` (a CUDA GPU with CuPy: the device machine only).
Each tier skips with the reason when what it needs is absent."""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

import pytest

# The committed real run (H200) that analysis, report and chart tests read.
SAMPLE_RUN = Path(__file__).resolve().parent.parent / "reports" / "sample-h200"


@functools.cache
def gpu_missing() -> str | None:
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() > 0:
            return None
        return "no CUDA GPU"
    except ImportError:
        return "CuPy not installed (GPU tests run on the device machine: make gpu-check)"
    except Exception as exc:
        return f"no usable CUDA GPU ({type(exc).__name__})"


@functools.cache
def ncu_report_missing() -> str | None:
    try:
        from profiler.extract.ncu_reader import import_ncu_report

        import_ncu_report()
        return None
    except Exception as exc:
        return f"ncu_report not importable ({exc})"


def nvcc_missing() -> str | None:
    return None if shutil.which("nvcc") else "nvcc not on PATH"


CHECKS = {"gpu": gpu_missing, "ncu": ncu_report_missing, "nvcc": nvcc_missing}


def pytest_collection_modifyitems(config, items):
    for item in items:
        for marker, missing in CHECKS.items():
            if marker in item.keywords:
                reason = missing()
                if reason:
                    item.add_marker(pytest.mark.skip(reason=f"{marker}: {reason}"))


@pytest.fixture(autouse=True, scope="session")
def _extraction_cache(tmp_path_factory):
    """Reports outside a run are cached in the user's cache folder: tests use a folder of their
    own (inherited by the CLI subprocesses they start), never ~/.cache."""
    import os

    os.environ["GEMMPROF_CACHE_DIR"] = str(tmp_path_factory.mktemp("gemmprof-cache"))
    yield
