"""The profile workflow (profiler.workflows.profile) called as a library, with the stand-in ncu
(`helpers.ncu_fixtures.fake_ncu`): the result it returns; --timing-only a bench instead."""

import pytest

from helpers import bench_fakes
from helpers.ncu_fixtures import fake_ncu  # noqa: F401  (the stand-in ncu fixture)
from profiler.errors import GemmprofError
from profiler.workflows.bench import BenchResult
from profiler.workflows.profile import ProfileOptions, ProfileResult, profile
from profiler.workflows.progress import Quiet


@pytest.mark.ncu
@pytest.mark.nvcc
def test_profile_returns_its_run_and_tables(fake_ncu, tmp_path):
    options = ProfileOptions(kernel=["naive", "cublas"], mnk=(512, 256, 128), out=tmp_path, run_id="r")
    result = profile(options, Quiet())
    assert isinstance(result, ProfileResult) and result.run.path == tmp_path / "r"
    assert sorted(result.tables["kernels"]["kernel_key"]) == ["cublas", "naive"]
    assert set(result.phases_s) == {"environment_s", "profile_loop_s", "extract_wait_s", "tables_s"}
    assert result.wall_s >= result.ncu_wall_s > 0


def test_timing_only_benches_the_same_kernels_and_shape(tmp_path, monkeypatch):
    bench_fakes.patch(monkeypatch.setattr)
    result = profile(ProfileOptions(kernel=["naive"], mnk=(64, 32, 16), timing_only=True, out=tmp_path, run_id="r"), Quiet())
    assert isinstance(result, BenchResult)
    assert sorted(result.table["kernel"]) == ["naive"] and result.table["M"].tolist() == [64]  # no 'cublas' named


def test_an_unknown_clock_control_is_one_line(tmp_path):
    with pytest.raises(GemmprofError, match="--clock-control must be one of"):
        profile(ProfileOptions(kernel=["naive"], clock_control="fast", out=tmp_path), Quiet())


@pytest.mark.ncu
def test_cublas_alone_profiles_the_reference_of_the_tier(fake_ncu, tmp_path):
    """`-k cublas --tier fp16`: no ladder kernel, and the FP16 reference (cuBLAS GemmEx)."""
    options = ProfileOptions(kernel=["cublas"], tier="fp16", mnk=(512, 256, 128), out=tmp_path, run_id="r")
    result = profile(options, Quiet())
    assert sorted(p.name.split("_")[0] for p in (result.run.path / "ncu").glob("*.ncu-rep*")) == ["cublas-fp16"]
    with pytest.raises(GemmprofError, match="unknown precision tier"):
        profile(ProfileOptions(kernel=["cublas"], tier="fp64", out=tmp_path), Quiet())


def test_the_path_to_the_first_ncu_run_imports_no_pandas():
    """pandas is most of a second to import: what a profile does before ncu starts (the command
    line, the progress printer, the run directory, the background reader's client) must not wait
    for it; the profile imports it beside ncu."""
    import subprocess
    import sys

    modules = ["profiler.cli", "profiler.cli.profile", "profiler.render.progress", "profiler.runs.rundir",
               "profiler.extract.background", "profiler.measure.profiling", "profiler.measure.ncu",
               "profiler.measure.provenance", "profiler.measure.build", "profiler.workflows.profile",
               "profiler.catalogue.manifest"]
    code = f"import sys\nfor m in {modules!r}: __import__(m)\nprint(sorted(m for m in ('pandas', 'pyarrow') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
