"""`gemmprof profile` end to end without a GPU: a stand-in for ncu (a script that "profiles" by
writing a real captured report where ncu would, and prints what ncu prints) exercises the
orchestration: one report per kernel, atomic writes, skip-if-done, --force, the extracted
tables, and the errors a user must be able to act on."""

import json

import pytest
from helpers.ncu_fixtures import fake_ncu  # noqa: F401  (the stand-in ncu fixture)
from typer.testing import CliRunner

from profiler.cli import app
from profiler.errors import GemmprofError

pytestmark = [pytest.mark.ncu, pytest.mark.nvcc]


def profile(tmp_path, *args):
    result = CliRunner().invoke(app, ["profile", "--out", str(tmp_path / "runs"), "--run-id", "r", *args])
    return result, tmp_path / "runs" / "r"


def test_one_report_per_kernel_and_tables(fake_ncu, tmp_path):
    result, run = profile(tmp_path, "-k", "naive", "-k", "smem", "-k", "cublas", "--mnk", "512", "256", "128")
    assert result.exit_code == 0, result.output
    reports = sorted(p.name for p in (run / "ncu").iterdir())
    assert reports == ["cublas_512x256x128.ncu-rep", "naive_512x256x128.ncu-rep", "smem_512x256x128.ncu-rep"]
    records = [json.loads(line) for line in (run / "profile.jsonl").read_text().splitlines()]
    assert [r["kernel"] for r in records] == ["cublas", "naive", "smem"]  # cuBLAS first: no cubin to wait for
    assert all(r["replay_passes"] == 38 and r["status"] == "PASS" and "--clock-control" in r["ncu_command"] for r in records)
    assert records[0]["ncu_command"][records[0]["ncu_command"].index("--clock-control") + 1] == "none"
    import pandas as pd

    kernels = pd.read_parquet(run / "kernels.parquet")
    assert sorted(kernels["kernel_key"]) == ["cublas", "naive", "smem"]
    assert set(kernels["report"]) == {f"ncu/{r}" for r in reports}
    meta = json.loads((run / "run.json").read_text())
    assert meta["environment"]["cublas_version"] == "13.1.0"  # reported by the target
    assert set(meta["profile_phases_s"]) == {"environment_s", "profile_loop_s", "extract_wait_s", "tables_s"}
    assert not any(p.name.startswith(".") for p in (run / "ncu").iterdir())  # no partial files left
    # the background extraction filled every report's cache, so the final tables only read caches
    assert sorted(p.name for p in (run / "extract").iterdir()) == reports
    assert all((run / "extract" / r / "done").is_file() for r in reports)


def test_kernels_that_cannot_run_the_shape_are_skipped_with_the_reason(fake_ncu, tmp_path):
    # vectorized needs N and K multiples of 4: at 512x255x128 it is skipped, naive is profiled
    result, run = profile(tmp_path, "-k", "naive", "-k", "vectorized", "--mnk", "512", "255", "128")
    assert result.exit_code == 0, result.output
    assert "vectorized: skipped (vectorized needs N=255 is not a multiple of 4)" in result.output
    assert sorted(p.name for p in (run / "ncu").iterdir()) == ["naive_512x255x128.ncu-rep"]


def test_rerun_skips_finished_reports_unless_forced(fake_ncu, tmp_path):
    profile(tmp_path, "-k", "naive", "--size", "64")
    report = tmp_path / "runs" / "r" / "ncu" / "naive_64x64x64.ncu-rep"
    before = report.stat().st_mtime_ns
    result, _ = profile(tmp_path, "-k", "naive", "--size", "64")
    assert "report exists, skipped" in result.output and report.stat().st_mtime_ns == before
    result, _ = profile(tmp_path, "-k", "naive", "--size", "64", "--force")
    assert result.exit_code == 0 and report.stat().st_mtime_ns != before


def test_xz_reports_are_read_back(fake_ncu, tmp_path):
    result, run = profile(tmp_path, "-k", "warptile", "--mnk", "512", "256", "128", "--xz")
    assert result.exit_code == 0, result.output
    assert [p.name for p in (run / "ncu").iterdir()] == ["warptile_512x256x128.ncu-rep.xz"]
    assert "warptile" in (run / "kernels.csv").read_text()


@pytest.mark.parametrize("mode,fragment", [("perm", "ERR_NVGPUCTRPERM"), ("none", "matched nothing")])
def test_ncu_failures_are_one_clear_error(fake_ncu, tmp_path, monkeypatch, mode, fragment):
    monkeypatch.setenv("FAKE_NCU_MODE", mode)
    result, run = profile(tmp_path, "-k", "naive", "--size", "64")
    assert isinstance(result.exception, GemmprofError) and fragment in str(result.exception)
    assert not list((run / "ncu").glob("*.ncu-rep"))  # nothing half-written is left as a report


def test_forced_rerun_replaces_its_record(fake_ncu, tmp_path):
    profile(tmp_path, "-k", "naive", "-k", "smem", "--size", "64")
    profile(tmp_path, "-k", "naive", "--size", "64", "--force")
    run = tmp_path / "runs" / "r"
    records = [json.loads(line) for line in (run / "profile.jsonl").read_text().splitlines()]
    assert sorted(r["kernel"] for r in records) == ["naive", "smem"]
    meta = json.loads((run / "run.json").read_text())
    assert meta["ncu_wall_s"] == pytest.approx(next(r["ncu_wall_s"] for r in records if r["kernel"] == "naive"))


def test_force_xz_removes_the_uncompressed_twin(fake_ncu, tmp_path):
    """profile, then profile --force --xz: one report per launch, one log line, one table row."""
    profile(tmp_path, "-k", "naive", "--size", "64")
    result, run = profile(tmp_path, "-k", "naive", "--size", "64", "--force", "--xz")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (run / "ncu").iterdir()) == ["naive_64x64x64.ncu-rep.xz"]
    assert sorted(p.name for p in (run / "extract").iterdir()) == ["naive_64x64x64.ncu-rep.xz"]
    records = [json.loads(line) for line in (run / "profile.jsonl").read_text().splitlines()]
    assert [r["report"] for r in records] == ["ncu/naive_64x64x64.ncu-rep.xz"]
    import pandas as pd

    assert pd.read_parquet(run / "kernels.parquet")["kernel_key"].tolist() == ["naive"]
