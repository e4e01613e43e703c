"""`gemmprof bench` without a GPU says what to do, in one line."""

import subprocess
import sys

import pytest

from profiler.subprocess_env import child_env


def gemmprof(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "profiler", *args], capture_output=True, text=True, env=child_env(), timeout=120)


def test_bench_without_a_gpu_says_what_to_do():
    from helpers.hardware import gpu_missing

    if gpu_missing() is None:
        pytest.skip("a GPU is present")
    r = gemmprof("bench", "-k", "naive", "--sizes", "64")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert ("CuPy is not installed" in r.stderr and "gemmprof[gpu]" in r.stderr) or "GPU" in r.stderr
