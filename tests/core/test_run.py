"""The run facade (profiler/run.py) and `gemmprof report` on reports gemmprof did not write: no
run.json, no bench, no manifest entry. Real committed reports, copied into a temporary folder."""

from __future__ import annotations

import shutil

import pytest

from helpers.paths import DATA, REPO
from profiler.errors import GemmprofError
from profiler.run import environment_from_kernels, open_run

SAMPLE = REPO / "reports" / "sample-h200"

# Reports from other programs: (report, kernel names the report must list). A new foreign
# capture (e.g. a CuPy program under `gemmprof profile -- python3 script.py`) is one more line.
FOREIGN = [
    (DATA / "many-h200" / "many_20launches.ncu-rep.xz", {"sgemm_naive", "sgemm_coalesced", "sgemm_smem"}),
    (DATA / "program-h100" / "ncu" / "cupy_and_own_kernel.ncu-rep", {"scale_rows"}),
]
# gemmprof's own reports treated as foreign (no run.json beside them); cuBLAS is a kernel no
# manifest names, the probes are not in the default manifest.
PROBE_REPORTS = ["cublas_2048x2048x2048", "probe-tail_896x2432x4096", "probe-bank-conflicts_2048x2048x2048"]


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
def test_a_run_whose_reports_lie_beside_its_run_json(tmp_path):
    # the captured fixtures keep run.json and the reports in one folder (no ncu/)
    run = open_run(DATA / "profile-h200", from_reports=True)
    assert run.is_gemmprof_run and [p.name for p in run.reports] == sorted(p.name for p in (DATA / "profile-h200").glob("*.ncu-rep.xz"))
    assert set(run.kernels["kernel"]) >= {"sgemm_naive", "sgemm_smem", "sgemm_vectorized", "sgemm_warptile"}
    assert not (DATA / "profile-h200" / "extract").exists()  # read through the user's cache, not beside them


def test_suite_heatmap_of_a_suite_run_and_one_line_for_another(tmp_path):
    import json

    copy = shutil.copytree(SAMPLE, tmp_path / "run")
    with pytest.raises(GemmprofError, match="is not a suite run"):
        open_run(copy).suite()
    meta = json.loads((copy / "run.json").read_text())
    shapes = sorted({(int(m), int(n), int(k)) for m, n, k in open_run(copy).bench[["M", "N", "K"]].itertuples(index=False)})
    meta["suite"] = {"name": "squares", "shapes": [list(s) for s in shapes]}
    (copy / "run.json").write_text(json.dumps(meta))
    fig = open_run(copy).suite()
    ax = fig.axes[0]
    assert ax.get_title(loc="left") == "suite squares, fp32: % of cuBLAS"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["x".join(map(str, s)) for s in shapes]
    assert len(ax.get_yticklabels()) >= 10  # the sample's FP32 rungs
