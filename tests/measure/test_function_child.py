"""The process that runs a profiled function (profiler.measure.function_child), without ncu: each
configuration called as it should be, inside gemmprof's ranges; a function that raises ends it
with its error in one line."""

from __future__ import annotations

import subprocess
import sys

import cloudpickle
import pytest

from profiler.measure.function_child import RAISED, call
from profiler.subprocess_env import child_env


@pytest.mark.parametrize("config, called", [(None, ((), {})), ((1, 2), ((1, 2), {})), ([3], ((3,), {})),
                                            ({"n": 4}, ((), {"n": 4})), (5, ((5,), {}))])
def test_a_configuration_is_passed_as_it_reads(config, called):
    seen = []
    call(lambda *a, **k: seen.append((a, k)), config)
    assert seen == [called]


def run_child(tmp_path, fn, configs):
    error = tmp_path / "error.txt"
    payload = tmp_path / "payload.pickle"
    payload.write_bytes(cloudpickle.dumps({"function": cloudpickle.dumps(fn), "configs": configs, "error": str(error),
                                           "sys_path": []}))
    done = subprocess.run([sys.executable, "-m", "profiler.measure.function_child", str(payload)], env=child_env(),
                          capture_output=True, text=True, timeout=120)
    return done, error


def test_every_configuration_runs_once_in_order(tmp_path):
    log = tmp_path / "calls.txt"

    def fn(n, dtype="float32"):  # defined here, sent by value: nothing to import in the child
        with open(log, "a") as f:
            f.write(f"{n} {dtype}\n")

    done, error = run_child(tmp_path, fn, [(1,), (2,), {"n": 3, "dtype": "float16"}])
    assert done.returncode == 0, done.stderr
    assert log.read_text() == "1 float32\n2 float32\n3 float16\n" and not error.exists()


def test_a_function_that_raises_is_one_line(tmp_path):
    def fn(n):
        if n == 2:
            raise ValueError("no such size")

    done, error = run_child(tmp_path, fn, [(1,), (2,), (3,)])
    assert done.returncode == RAISED
    text = error.read_text()
    assert text.startswith("config 1 ((2,)): ValueError: no such size (at ") and "\n" not in text.strip()
