"""The extraction-speed benchmark and the many-launch launcher keep working between the device
sessions that use them: the benchmark runs on a committed report and its two sides read the same
values; the launcher compiles."""

import re
import subprocess
import sys

import pytest
from helpers.paths import REPO

ROOT = REPO
FIXTURE = ROOT / "tests" / "data" / "profile-h200" / "smem_512x256x128.ncu-rep.xz"


@pytest.mark.ncu
def test_extract_speed_runs_and_both_sides_read_every_value():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "extract_speed.py"), str(FIXTURE), "--repeat", "1"],
        capture_output=True, text=True, timeout=300,
    )
    # The script asserts that tables.metrics has one row per value the bare loop read.
    assert proc.returncode == 0, proc.stderr[-2000:]
    header = re.search(r"\((\d+) launches, (\d+) metric values\)", proc.stdout)
    assert header and header.group(1) == "1" and int(header.group(2)) > 1000, proc.stdout
    ratio = re.search(r"ratio ours/bare\s*:\s*([\d.]+)", proc.stdout)
    assert ratio and float(ratio.group(1)) > 0
    assert re.search(r"kernels\+rules\+source\s*: [\d.]+ s", proc.stdout)


@pytest.mark.nvcc
def test_many_launches_program_compiles(tmp_path):
    proc = subprocess.run(
        ["nvcc", "-O2", "-c", "-o", str(tmp_path / "many.o"), str(ROOT / "benchmarks" / "many_launches.cu")],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr
