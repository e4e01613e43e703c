"""--gpus on the commands (profiler.cli._fanout): profile on a local dask cluster, mixed GPU models
refused."""

import json

import pandas as pd
from typer.testing import CliRunner

from helpers.ncu_fixtures import fake_ncu  # noqa: F401  (the stand-in ncu fixture)
from profiler.cli import app
from profiler.errors import GemmprofError
from profiler.fanout.gpus import Gpu

SHAPE = (512, 256, 128)

TWO = [Gpu("0", "GPU-aaa", "NVIDIA H200", 1980, 3201), Gpu("1", "GPU-bbb", "NVIDIA H200", 1980, 3201)]


def test_cli_profile_with_gpus_on_dask(fake_ncu, tmp_path, monkeypatch):
    """`gemmprof profile --gpus 0,1` end to end: one run, a fanout section in run.json."""
    import profiler.fanout.cluster as cluster
    import profiler.fanout.gpus as gpus

    monkeypatch.setattr(gpus, "list_gpus", lambda: TWO)
    real = cluster.open_client  # in-process workers: no GPU to pin here
    monkeypatch.setattr(cluster, "open_client", lambda pins, scheduler=None, processes=True: real(pins, scheduler, False))
    result = CliRunner().invoke(app, ["profile", "--out", str(tmp_path), "--run-id", "r", "-k", "naive", "-k", "cublas",
                                      "--mnk", *map(str, SHAPE), "--gpus", "0,1"])
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert [g["uuid"] for g in meta["fanout"]["gpus"]] == ["GPU-aaa", "GPU-bbb"]
    assert sorted(j["job"] for j in meta["fanout"]["jobs"]) == ["profile:cublas:fp32:512x256x128", "profile:naive:fp32:512x256x128"]
    assert sorted(pd.read_parquet(tmp_path / "r" / "kernels.parquet")["kernel_key"]) == ["cublas", "naive"]


def test_cli_refuses_mixed_models(monkeypatch, tmp_path):
    import profiler.fanout.gpus as gpus

    monkeypatch.setattr(gpus, "list_gpus", lambda: [TWO[0], Gpu("1", "GPU-ccc", "NVIDIA H100 80GB HBM3")])
    result = CliRunner().invoke(app, ["bench", "-k", "naive", "--sizes", "64", "--out", str(tmp_path), "--gpus", "all"])
    assert isinstance(result.exception, GemmprofError) and "mixes GPU models" in str(result.exception)
