"""`gemmprof bench` without a GPU says what to do, in one line."""

import subprocess
import sys

import pytest

from profiler.errors import Exit
from profiler.subprocess_env import child_env


def gemmprof(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "profiler", *args], capture_output=True, text=True, env=child_env(), timeout=120)


def test_bench_without_a_gpu_says_what_to_do():
    from helpers.hardware import gpu_missing

    if gpu_missing() is None:
        pytest.skip("a GPU is present")
    r = gemmprof("bench", "-k", "naive", "--sizes", "64")
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    # what is missing, in words and in the exit status kept for it
    assert (r.returncode == Exit.NO_CUDA and "CuPy is not installed" in r.stderr and "gemmprof[gpu]" in r.stderr
            or r.returncode == Exit.NO_GPU and "GPU" in r.stderr), (r.returncode, r.stderr)
