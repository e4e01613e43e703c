"""A function's sweep read back as the notebook reads it (`gemmprof.open_run(...).sweep()`), on the
run `tests/programs/profile_function.ipynb` recorded on an H200: one row per configuration, the
shape from its capture, its verdict beside its numbers."""

from __future__ import annotations

import pytest

from helpers.ncu_fixtures import opened_copy
from helpers.paths import DATA


@pytest.mark.ncu
def test_one_row_per_configuration_with_its_verdict():
    run = opened_copy(DATA / "function-h200")
    assert run.meta["source"] == "function" and run.meta["configs"] == ["(1024,)", "(4096,)", "(4096, 'float16')"]
    sweep = run.sweep()
    assert list(sweep["config"]) == [0, 1, 2]
    assert list(sweep["shape"]) == ["1024x1024x1024", "4096x4096x4096", "4096x4096x4096"]
    assert list(sweep["cause"]) == ["latency_global", "fp32_roof", "tensor_roof"]
    assert sweep["gflops"].iloc[2] > 10 * sweep["gflops"].iloc[1]  # FP16 tensor cores against FP32 FFMA
    assert (sweep["sm_ghz"] > 1.0).all()
