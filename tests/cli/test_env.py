"""`gemmprof env` runs and reports without a GPU."""

import subprocess
import sys

from profiler.subprocess_env import child_env


def gemmprof(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "profiler", *args], capture_output=True, text=True, env=child_env(), timeout=120)


def test_env_runs_without_a_gpu():
    r = gemmprof("env", "--json")
    assert r.returncode == 0
    import json

    info = json.loads(r.stdout)
    assert info["gemmprof_version"] and "counters_permitted" in info


def test_env_says_what_it_did_not_find(tmp_path):
    """A tool it cannot find is said, never a blank cell."""
    r = subprocess.run([sys.executable, "-m", "profiler", "env", "--ncu", str(tmp_path / "no-ncu")], capture_output=True,
                       text=True, env={**child_env(), "COLUMNS": "120"}, timeout=120)
    assert r.returncode == 0, r.stderr
    line = next(line for line in r.stdout.splitlines() if line.startswith("│ ncu "))
    assert "not found (pass --ncu" in line
