"""User mistakes and missing prerequisites end in one line on stderr and a non-zero exit, never a
traceback. Runs the real entry point in a subprocess, as a user would."""

import subprocess
import sys

import pytest

from profiler.subprocess_env import child_env


def gemmprof(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "profiler", *args], capture_output=True, text=True, env=child_env(), timeout=120)


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["bench", "-k", "vectorised"], "unknown kernel 'vectorised'"),
        (["bench", "--sizes", "1024,abc"], "bad size 'abc'"),
        (["bench", "--sizes", "0"], "out of range"),
        (["profile", "-k", "nope"], "unknown kernel 'nope'"),
        (["profile", "--clock-control", "fast"], "--clock-control must be one of"),
        (["analyze", "/nonexistent/x.ncu-rep"], "/nonexistent/x.ncu-rep"),
    ],
)
def test_mistakes_are_one_line(args, fragment):
    r = gemmprof(*args)
    assert r.returncode != 0
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout
    assert fragment in r.stderr
    assert len([l for l in r.stderr.splitlines() if l.strip()]) == 1, r.stderr


def test_bench_without_a_gpu_says_what_to_do():
    from conftest import gpu_missing

    if gpu_missing() is None:
        pytest.skip("a GPU is present")
    r = gemmprof("bench", "-k", "naive", "--sizes", "64")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert ("CuPy is not installed" in r.stderr and "gemmprof[gpu]" in r.stderr) or "GPU" in r.stderr


def test_profile_without_ncu_says_how_to_point_to_it(tmp_path):
    env = child_env()
    env["PATH"] = str(tmp_path)  # nothing on PATH
    env["GEMMPROF_NCU"] = str(tmp_path / "ncu")  # and an explicit path that does not exist
    r = subprocess.run([sys.executable, "-m", "profiler", "profile", "-k", "naive"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "Nsight Compute not found" in r.stderr and "--ncu" in r.stderr


def test_env_runs_without_a_gpu():
    r = gemmprof("env", "--json")
    assert r.returncode == 0
    import json

    info = json.loads(r.stdout)
    assert info["gemmprof_version"] and "counters_permitted" in info
