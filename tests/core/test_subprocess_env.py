"""The environment of gemmprof's children (profiler.subprocess_env): this checkout first on
PYTHONPATH, the caller's path kept after it, the caller's mapping left alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import profiler
from profiler.subprocess_env import PACKAGE_PARENT, child_env


def test_the_checkout_comes_first_and_the_callers_path_is_kept():
    base = {"PYTHONPATH": "/elsewhere", "HOME": "/home/x"}
    env = child_env(base)
    assert env["PYTHONPATH"].split(os.pathsep) == [PACKAGE_PARENT, "/elsewhere"]
    assert env["HOME"] == "/home/x" and base == {"PYTHONPATH": "/elsewhere", "HOME": "/home/x"}
    assert child_env({})["PYTHONPATH"] == PACKAGE_PARENT


def test_a_child_imports_this_very_profiler(tmp_path):
    out = subprocess.run([sys.executable, "-c", "import profiler; print(profiler.__file__)"], capture_output=True,
                         text=True, env=child_env(), cwd=tmp_path, timeout=120, check=True).stdout
    assert Path(out.strip()).resolve() == Path(profiler.__file__).resolve()


def test_a_pinned_child_sees_one_gpu_counted_as_nvml_counts():
    from profiler.subprocess_env import pin_env

    assert pin_env({"PATH": "/bin"}, "1") == {"PATH": "/bin", "CUDA_VISIBLE_DEVICES": "1", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
