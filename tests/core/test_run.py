"""The run facade (profiler/run.py) and `gemmprof report` on reports gemmprof did not write: no
run.json, no bench, no manifest entry. Real committed reports, copied into a temporary folder."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from profiler.errors import GemmprofError
from profiler.run import environment_from_kernels, open_run
from helpers.paths import DATA, REPO

SAMPLE = REPO / "reports" / "sample-h200"

# Reports from other programs: (report, kernel names the report must list). A new foreign
# capture (e.g. a CuPy program under `gemmprof profile -- python3 script.py`) is one more line.
FOREIGN = [
    (DATA / "many-h200" / "many_20launches.ncu-rep.xz", {"sgemm_naive", "sgemm_coalesced", "sgemm_smem"}),
    (DATA / "program-h100" / "ncu" / "cupy_and_own_kernel.ncu-rep.xz", {"scale_rows"}),
]
PROGRAM_RUN = DATA / "program-h100"  # `gemmprof profile -- python3 tests/programs/cupy_and_own_kernel.py`
# gemmprof's own reports treated as foreign (no run.json beside them); cuBLAS is a kernel no
# manifest names, the probes are not in the default manifest.
PROBE_REPORTS = ["cublas_2048x2048x2048", "probe-tail_896x2432x4096", "probe-bank-conflicts_2048x2048x2048"]


def gemmprof(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "profiler", *map(str, args)], check=False, capture_output=True,
                          text=True, cwd=cwd or REPO, timeout=600)


def copy_probes(folder: Path) -> Path:
    folder.mkdir()
    for stem in PROBE_REPORTS:
        shutil.copy(DATA / "probes-h100" / "ncu" / f"{stem}.ncu-rep.xz", folder)
    return folder


def test_environment_from_kernels_is_what_the_reports_say():
    import pandas as pd

    kernels = pd.DataFrame({"gpu": ["NVIDIA H100", "NVIDIA H100"], "cc_major": [9, 9], "cc_minor": [0, 0],
                            "sm_count": [132, 132], "sm_clock_hz": [1.98e9, 1.5e9], "dram_clock_hz": [2.6e9, None]})
    env = environment_from_kernels(kernels)
    assert env["gpu_name"] == "NVIDIA H100" and env["compute_capability"] == "9.0" and env["sm_count"] == 132
    assert env["sm_clock_mhz"] == 1740 and env["mem_clock_mhz"] == 2600
    assert env["driver"] is None and env["ncu_version"] is None  # not in a report: unknown, not invented


def test_open_run_of_a_gemmprof_run_reads_its_tables():
    run = open_run(SAMPLE)
    assert run.is_gemmprof_run and run.meta["environment"]["gpu_name"] == "NVIDIA H200"
    assert len(run.bench) and len(run.kernels) and run.profile_log is not None


@pytest.mark.parametrize("setup, message", [
    (lambda tmp: tmp / "missing", "no such file"),
    (lambda tmp: tmp, "not a gemmprof run"),
    (lambda tmp: [(tmp / "x.txt").write_text("hi"), tmp / "x.txt"][-1], "neither a run directory"),
    (lambda tmp: [(tmp / "b.csv").write_text("kernel\n"), tmp / "b.csv"][-1], "no run.json beside it"),
])
def test_open_run_wrong_input(tmp_path, setup, message):
    with pytest.raises(GemmprofError, match=message):
        open_run(setup(tmp_path))


@pytest.mark.ncu
@pytest.mark.parametrize("report, names", FOREIGN, ids=lambda v: getattr(v, "name", ""))
def test_open_run_of_foreign_reports(tmp_path, report, names):
    copy = tmp_path / "mine" / report.name
    copy.parent.mkdir()
    shutil.copy(report, copy)
    run = open_run(copy)
    assert not run.is_gemmprof_run and run.bench is None and run.profile_log is None
    assert names <= set(run.kernels["function"]) and run.meta["environment"]["gpu_name"].startswith("NVIDIA")
    assert set(run.kernels["report"]) == {str(copy)}
    assert sorted(p.name for p in copy.parent.iterdir()) == [copy.name]  # nothing written beside it
    diagnosis = run.diagnose()
    assert {d.name for d in diagnosis.kernels} >= names and all(d.verdict for d in diagnosis.kernels)


@pytest.mark.ncu
def test_report_on_reports_without_a_run(tmp_path):
    folder = copy_probes(tmp_path / "reports")
    out = tmp_path / "out"
    result = gemmprof("report", folder, "-o", out)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{s}.ncu-rep.xz" for s in PROBE_REPORTS)
    data = json.loads((out / "diagnosis.json").read_text())
    by = {k["kernel"]: k for k in data["kernels"]}
    assert set(by) == {"cublas", "probe-tail", "probe-bank-conflicts"}
    assert by["probe-tail"]["cause"] == "tail" and by["probe-tail"]["shape"] == [896, 2432, 4096]
    assert by["probe-bank-conflicts"]["cause"] == "bank_conflicts"
    # the same shape as the cuBLAS launch: % of cuBLAS from the times; another shape: none
    assert by["probe-bank-conflicts"]["pct_cublas"] is not None and by["probe-tail"]["pct_cublas"] is None
    page = (out / "probe-tail.html").read_text()
    assert "GEMM minimum" in page and "2MNK / time" in page and "NVIDIA H100" in (out / "index.html").read_text()


@pytest.mark.ncu
def test_report_shape_unknown_then_given(tmp_path):
    report = DATA / "many-h200" / "many_20launches.ncu-rep.xz"
    result = gemmprof("report", report, "-o", tmp_path / "a")
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "a" / "sgemm_naive.html").read_text()
    assert "shape unknown: pass --mnk" in page and "2MNK / time" not in page
    assert json.loads((tmp_path / "a" / "diagnosis.json").read_text())["kernels"][0]["shape"] is None
    given = gemmprof("report", report, "--mnk-for", "naive=64x64x64", "--json")
    assert given.returncode == 0, given.stderr
    shapes = {k["kernel"]: k["shape"] for k in json.loads(given.stdout)["kernels"]}
    assert shapes == {"sgemm_naive": [64, 64, 64], "sgemm_coalesced": None, "sgemm_smem": None}


def test_report_default_output_is_not_beside_a_foreign_report(tmp_path):
    from profiler.cli.report import FOREIGN_OUT

    assert not FOREIGN_OUT.is_absolute() and FOREIGN_OUT.name == "gemmprof-report"


@pytest.mark.parametrize("content, message", [(b"", "empty"), (b"NVR\0" + b"\0" * 64, "")])
def test_report_of_a_broken_or_empty_report_is_one_line(tmp_path, content, message):
    bad = tmp_path / "x.ncu-rep"
    bad.write_bytes(content)
    result = gemmprof("report", bad, "-o", tmp_path / "out")
    ours = [line for line in result.stderr.splitlines() if line.startswith("gemmprof")]  # ncu_report logs too
    assert result.returncode == 2 and len(ours) == 1 and ours[0].startswith("gemmprof: error:"), result.stderr
    assert message in ours[0] and "Traceback" not in result.stderr


def _report_of(tmp_path, *inputs):
    out = tmp_path / "out"
    result = gemmprof("report", *inputs, "-o", out)
    assert result.returncode == 0, result.stderr
    diagnosis = json.loads((out / "diagnosis.json").read_text())
    return out, {d["kernel"]: d for d in diagnosis["kernels"]}


def test_report_of_a_profiled_program_reads_the_shape_from_its_nvtx_range(tmp_path):
    run = tmp_path / "program"
    shutil.copytree(PROGRAM_RUN, run)
    out, kernels = _report_of(tmp_path, run)
    assert (out / "index.html").is_file() and len(kernels) == 3
    gemms = [d for name, d in kernels.items() if name.startswith("sm80_xmma_gemm")]
    assert len(gemms) == 2 and all(d["shape"] == [512, 512, 512] for d in gemms)  # 'app/gemm 512x512x512'
    assert kernels["scale_rows"]["shape"] is None  # in 'app/scale': no shape, none guessed
    page = (out / "scale_rows.md").read_text()
    assert "shape unknown" in page
    for name in kernels:
        assert any(p.suffix == ".html" and p.name.startswith(name[:40]) for p in out.iterdir()), name


def test_report_of_a_plain_report_from_another_program(tmp_path):
    report = tmp_path / "theirs.ncu-rep.xz"
    shutil.copy(PROGRAM_RUN / "ncu" / "cupy_and_own_kernel.ncu-rep.xz", report)
    out, kernels = _report_of(tmp_path, report)
    assert (out / "index.html").is_file() and (out / "scale_rows.html").is_file()
    assert "scale_rows" in kernels and all(d["cause"] for d in kernels.values())
