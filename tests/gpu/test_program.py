"""On the GPU, under the real ncu: `gemmprof profile --nvtx-include app/ -- python3
tests/programs/cupy_and_own_kernel.py` records exactly the launches inside the program's 'app'
range (one cuBLAS SGEMM in 'app/gemm MxNxK', one `scale_rows` in 'app/scale'), and `report`
renders the run. Runs on the device machine (make gpu-check); skipped elsewhere."""

import json
import subprocess
import sys

import pandas as pd
import pytest

from profiler.tools import find_ncu
from profiler.subprocess_env import child_env
from helpers.paths import REPO

pytestmark = [pytest.mark.gpu, pytest.mark.ncu]

ROOT = REPO
PROGRAM = ROOT / "tests" / "programs" / "cupy_and_own_kernel.py"
SHAPE = (256, 384, 128)


def gemmprof(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "profiler", *map(str, args)], cwd=cwd, env=child_env(),
                          capture_output=True, text=True, timeout=540)


@pytest.fixture(scope="module")
def program_run(tmp_path_factory):
    if find_ncu() is None:
        pytest.skip("ncu not found (set GEMMPROF_NCU)")
    out = tmp_path_factory.mktemp("runs")
    done = gemmprof("profile", "--nvtx-include", "app/", "--out", out, "--run-id", "program", "--",
                    sys.executable, PROGRAM, *SHAPE)
    assert done.returncode == 0, done.stdout + done.stderr
    return out / "program", done.stdout


def test_the_filter_keeps_the_two_launches_in_the_range(program_run):
    run, output = program_run
    assert "max relative error" in output  # the program's own output comes through
    kernels = pd.read_parquet(run / "kernels.parquet")
    assert kernels["nvtx"].str.startswith("app/").all(), kernels[["kernel", "nvtx"]]
    gemm = kernels[kernels["nvtx"] == "app/gemm {}x{}x{}".format(*SHAPE)]
    scale = kernels[kernels["nvtx"] == "app/scale"]
    assert len(gemm) >= 1 and len(scale) == 1 and len(kernels) == len(gemm) + 1
    assert scale["kernel"].str.contains("scale_rows").all()
    assert kernels["kernel_key"].isna().all()  # no manifest entry, no gemmprof range
    record = json.loads((run / "profile.jsonl").read_text())
    assert record["launches"] == len(kernels) and record["program_status"] == "ok" and record["program_exit_code"] == 0
    meta = json.loads((run / "run.json").read_text())
    assert meta["source"] == "program" and meta["complete"] is True and meta["environment"]["gpu_name"]
    assert meta["program"][-3:] == [str(v) for v in SHAPE]


def test_report_renders_the_program_run(program_run, tmp_path):
    run, _ = program_run
    done = gemmprof("report", run, "-o", tmp_path / "report")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "report" / "index.html").is_file() and (tmp_path / "report" / "diagnosis.json").is_file()
