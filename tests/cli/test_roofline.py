"""`gemmprof roofline` end to end: the charts it writes and its one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from helpers.ncu_fixtures import fixtures, no_fixtures_reason
from helpers.paths import REPO, SAMPLE_RUN
from helpers.roofline_frames import synthetic_kernels
from profiler.cli.roofline import roofline as roofline_command

SAMPLE = SAMPLE_RUN


def app() -> typer.Typer:
    cli = typer.Typer()
    cli.command("roofline")(roofline_command)
    cli.command("other")(lambda: None)
    return cli


def gemmprof(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "profiler", *map(str, args)], check=False, capture_output=True, text=True,
                          cwd=cwd or REPO, timeout=300)


def write_run(path: Path, **tables) -> Path:
    path.mkdir(parents=True)
    (path / "run.json").write_text(json.dumps({"schema_version": 1, "environment": {"gpu_name": "Test GPU"}}))
    for name, frame in tables.items():
        frame.to_csv(path / f"{name}.csv", index=False)
    return path


def test_cli_writes_png_and_ladder(tmp_path):
    out, ladder = tmp_path / "roof.png", tmp_path / "sub" / "ladder.svg"
    result = CliRunner().invoke(app(), ["roofline", str(SAMPLE), "-o", str(out), "--ladder", str(ladder)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 20_000
    assert ladder.read_text().lstrip().startswith("<?xml") and "<svg" in ladder.read_text()[:2000]
    assert "DRAM 4.81 TB/s" in result.output and "FP32 FMA 66.6 TFLOP/s" in result.output
    assert "3 smem" in result.output and "shared" in result.output
    fp16 = ladder.with_name("ladder-fp16.svg")  # the tensor-core tier gets its own ladder beside it
    assert "<svg" in fp16.read_text()[:2000] and f"wrote {fp16}" in result.output.replace("\n", "")


@pytest.mark.parametrize("setup, message", [
    (lambda tmp: tmp / "missing", "no such file"),
    (lambda tmp: (tmp / "empty").mkdir() or tmp / "empty", "not a gemmprof run"),
    (lambda tmp: write_run(tmp / "benchonly"), "has no kernels table"),
    (lambda tmp: write_run(tmp / "nokernels", kernels=synthetic_kernels().iloc[0:0]), "no profiled launches"),
    (lambda tmp: [(tmp / "x.txt").write_text("hi"), tmp / "x.txt"][-1], "neither a run directory"),
])
def test_cli_wrong_input_is_one_line(tmp_path, setup, message):
    result = gemmprof("roofline", setup(tmp_path), "-o", tmp_path / "r.png")
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 3


def test_cli_rejects_unknown_format(tmp_path):
    result = gemmprof("roofline", SAMPLE, "-o", tmp_path / "r.jpg")
    assert result.returncode == 2 and "unknown image format" in result.stderr


def test_cli_draws_synthetic_run(tmp_path):
    run = write_run(tmp_path / "synthetic", kernels=synthetic_kernels())
    result = gemmprof("roofline", run, "-o", tmp_path / "r.png")
    assert result.returncode == 0, result.stderr
    assert "DRAM 1.00 TB/s" in result.stdout and "no shared traffic" in result.stderr


@pytest.mark.ncu
@pytest.mark.skipif(not fixtures(), reason=no_fixtures_reason())
def test_cli_reads_reports(tmp_path):
    """The committed 512x256x128 reports (no kernels table): read through ncu_report."""
    reports = sorted((REPO / "tests" / "data" / "profile-h200").glob("*.ncu-rep.xz"))
    result = gemmprof("roofline", *reports, "-o", tmp_path / "r.png")
    assert result.returncode == 0, result.stderr
    assert "NVIDIA H200" in result.stdout and "cuBLAS" in result.stdout
