"""occupancy.py: achieved against theoretical, and what limits it."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from helpers.paths import SAMPLE_RUN

from profiler.analyze.occupancy import occupancy, registers_for_blocks

SAMPLE = SAMPLE_RUN


def test_registers_for_blocks():
    assert registers_for_blocks(1, 1024) == 64  # 65536 / 1024
    assert registers_for_blocks(3, 256) == 80  # 85.3, rounded down to a multiple of 8
    assert registers_for_blocks(2, 256) == 128
    assert math.isnan(registers_for_blocks(0, 256))


def launch(**values) -> pd.DataFrame:
    row = {"report": "r", "launch": 0, "achieved_occupancy_pct": 24.0, "theoretical_occupancy_pct": 25.0,
           "occupancy_limit_registers": 2.0, "occupancy_limit_shared_mem": 3.0, "occupancy_limit_warps": 8.0,
           "occupancy_limit_blocks": 32.0, "occupancy_limit_barriers": 32.0, "occupancy_limiter": "registers",
           "registers_per_thread": 128, "shared_mem_per_block": 1024.0, "threads_per_block": 256.0}
    row.update(values)
    return pd.DataFrame([row])


def test_register_limited_launch():
    o = occupancy(launch()).iloc[0]
    assert o["blocks_per_sm"] == 2 and o["warps_per_block"] == 8
    assert o["max_warps_per_sm"] == 64  # 2 blocks x 8 warps = 16 warps = 25%
    assert o["warps_per_scheduler"] == pytest.approx(0.24 * 64 / 4)
    assert o["registers_for_next_block"] == 80 and not o["achieved_gap"]


def test_full_occupancy_has_no_register_advice_and_a_gap_is_flagged():
    o = occupancy(launch(theoretical_occupancy_pct=100.0, achieved_occupancy_pct=60.0, occupancy_limiter="registers, warps",
                         occupancy_limit_warps=2.0, threads_per_block=1024.0, registers_per_thread=32)).iloc[0]
    assert math.isnan(o["registers_for_next_block"]) and o["achieved_gap"]


@pytest.mark.skipif(not (SAMPLE / "kernels.parquet").is_file(), reason="sample run not present")
def test_sample_run():
    kernels = pd.read_parquet(SAMPLE / "kernels.parquet")
    o = occupancy(kernels).assign(name=kernels["kernel_key"].values).set_index("name")
    assert o.loc["warptile", "limiter"] == "registers" and o.loc["warptile", "blocks_per_sm"] == 2
    assert o.loc["warptile", "registers_for_next_block"] == 80
    assert o.loc["blocktile1d", "theoretical_pct"] == 50 and o.loc["blocktile1d", "registers_per_thread"] == 51
    assert o.loc["cublas", "limiter"] == "registers, shared memory" and o.loc["cublas", "blocks_per_sm"] == 1
    assert (o["max_warps_per_sm"] == 64).all()  # every H200 SM holds 64 warps
