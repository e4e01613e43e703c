"""What the command line says about itself: readable metavars in --help, which run a bare
`roofline` drew, plurals that agree."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from helpers.paths import SAMPLE_RUN


def gemmprof(*args: str, cwd=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "120", "PYTHONPATH": str(SAMPLE_RUN.parent.parent)}
    return subprocess.run([sys.executable, "-m", "profiler", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300)


@pytest.mark.parametrize("command", ["bench", "profile", "analyze", "report"])
def test_option_metavars_are_words_not_python_types(command):
    out = gemmprof(command, "--help").stdout
    assert "<list[" not in out and "<str>" not in out and "<bool>" not in out and "<int" not in out
    assert "TEXT" in out or "PATH" in out


def test_bench_help_names_the_shape_option_m_n_k():
    out = gemmprof("bench", "--help").stdout
    assert "M N K" in out and "<int,int,int>" not in out


def test_roofline_without_a_run_says_which_it_drew(tmp_path):
    out = tmp_path / "roof.png"
    proc = gemmprof("roofline", "-o", str(out), cwd=SAMPLE_RUN.parent.parent)
    assert proc.returncode == 0, proc.stderr
    assert "roofline of the newest run with a kernels table: reports/" in proc.stderr


@pytest.mark.parametrize("columns", ["80", "200"])
def test_help_keeps_every_option_name_whole_at_80_and_200_columns(columns):
    """Below 100 columns --help is plain text (boxes at 80 columns cut `--kernel-regex` and took
    171 lines for profile); at 200 the boxes, every name whole in both."""
    env = {**os.environ, "COLUMNS": columns}
    for command in ("bench", "profile", "dispatch"):
        out = subprocess.run([sys.executable, "-m", "profiler", command, "-h"], capture_output=True, text=True,
                             env=env, timeout=300).stdout
        assert "…" not in out, (command, columns)
        assert all(len(line) <= int(columns) for line in out.splitlines()), (command, columns)
    profile = subprocess.run([sys.executable, "-m", "profiler", "profile", "-h"], capture_output=True, text=True,
                             env={**os.environ, "COLUMNS": "80"}, timeout=300).stdout
    assert "--kernel-regex" in profile and len(profile.splitlines()) < 100
