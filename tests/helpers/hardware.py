"""What each test tier needs and whether this machine has it: `gpu` (a CUDA GPU with CuPy),
`ncu` (ncu_report importable), `nvcc` (the compiler on PATH). Each answer is None when present,
else the reason to print beside the skip. conftest.py turns the markers into skips from these."""

from __future__ import annotations

import functools
import shutil


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
