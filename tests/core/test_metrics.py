"""The one table of ncu metrics is consistent, and its derived columns compute what they say
(plain tier: synthetic frames with numbers checkable by hand)."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from profiler import metrics as mt
from profiler.extract.units import parse_unit
from profiler.stall_table import LAUNCH_REASONS
from profiler.stall_table import LAUNCH_REASONS as STALL_REASONS

# The columns other modules rely on: the contract of the `kernels` table.
REQUIRED_KERNEL_COLUMNS = [
    "kernel", "grid", "block", "registers_per_thread", "shared_mem_per_block", "duration_ns",
    "sm_clock_hz", "dram_read_bytes", "dram_write_bytes", "l2_bytes", "l1_bytes",
    "shared_load_wavefronts", "shared_store_wavefronts", "shared_load_bank_conflicts",
    "shared_store_bank_conflicts", "achieved_occupancy_pct", "theoretical_occupancy_pct",
    "occupancy_limiter", "fp32_flop", "tensor_flop", "achieved_flops", "peak_fp32_flops",
    "peak_dram_bytes_per_s", "peak_l2_bytes_per_s", "peak_l1_bytes_per_s", "peak_shared_bytes_per_s",
    "peak_tensor_fp16_flops", "stall_mio_throttle", "stall_short_scoreboard", "stall_long_scoreboard",
    "stall_barrier", "stall_math_pipe_throttle", "stall_not_selected", "stall_wait",
    "sm_throughput_pct", "memory_throughput_pct", "kernel_key", "M", "N", "K", "gpu", "launch", "report",
]
REQUIRED_SOURCE_COLUMNS = ["pc", "sass", "file", "line", "inst_executed", "samples", "samples_long_scoreboard",
                           "samples_mio_throttle", "shared_excess_wavefronts"]
NCU_NAME = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)*(__[a-z0-9_]+)?(\.[a-z0-9_]+)*$")


@pytest.mark.parametrize("level", [mt.LAUNCH, mt.INSTRUCTION])
def test_columns_unique(level):
    columns = mt.columns_at(level)
    assert len(columns) == len(set(columns)), sorted(c for c in columns if columns.count(c) > 1)


@pytest.mark.parametrize("level", [mt.LAUNCH, mt.INSTRUCTION])
def test_ncu_names_unique_and_well_formed(level):
    names = [m.ncu for m in mt.metrics_at(level)]
    assert len(names) == len(set(names))
    for name in names:
        assert NCU_NAME.match(name), name


def test_required_columns_produced():
    assert not set(REQUIRED_KERNEL_COLUMNS) - set(mt.columns_at(mt.LAUNCH))
    assert not set(REQUIRED_SOURCE_COLUMNS) - set(mt.columns_at(mt.INSTRUCTION))


def test_units_known_and_parseable():
    entries = [*mt.LAUNCH_FIELDS, *mt.SASS_FIELDS, *mt.METRICS, *mt.DERIVED]
    for entry in entries:
        assert entry.unit in mt.UNITS, (entry.column, entry.unit)
        if entry.unit not in ("text", "index"):
            parse_unit(entry.unit)
        assert entry.meaning.endswith("."), entry.column


def test_levels_and_dtypes_known():
    for m in mt.METRICS:
        assert m.level in (mt.LAUNCH, mt.INSTRUCTION)
        assert m.dtype in ("float64", "Int64", "str")


def test_extra_metrics_are_the_ones_full_lacks():
    extra = mt.ncu_extra_metrics()
    assert extra == [m.ncu for m in mt.METRICS if not m.in_full_set]
    assert "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum" in extra
    assert mt.metrics_argument() == ",".join(extra)
    assert len(extra) == len(set(extra))


def test_describe():
    assert mt.describe("duration_ns") == ("ns", "GPU time of the launch.")
    assert mt.describe("fp32_flop")[0] == "FLOP"
    assert mt.describe("samples", mt.INSTRUCTION)[0] == "sample"
    with pytest.raises(KeyError):
        mt.describe("no_such_column")


# ---------------------------------------------------------------------------------------------
# Derived columns on a synthetic frame


def synthetic(**overrides) -> pd.DataFrame:
    """One launch: 64x64 grid of 16x16 blocks, 1 ms, FFMA-only, on a 2-SM toy GPU."""
    row = {c: np.nan for c in mt.columns_at(mt.LAUNCH) if c not in {d.column for d in mt.DERIVED}}
    row.update(
        grid_x=64, grid_y=64, grid_z=1, block_x=16, block_y=16, block_z=1,
        shared_mem_static_per_block=1024, shared_mem_dynamic_per_block=3072,
        duration_ns=1_000_000.0, sm_clock_hz=1e9, dram_clock_hz=2e9, l2_clock_hz=1.5e9, l1_clock_hz=1e9,
        smsp_cycles=1_000_000.0,
        ffma_thread_inst=1_000_000.0, fadd_thread_inst=10.0, fmul_thread_inst=20.0,
        tensor_fp16_flop=0.0, tensor_bf16_flop=0.0, tensor_tf32_flop=0.0, tensor_fp8_flop=0.0, tensor_fp64_flop=0.0,
        ffma_per_cycle_peak=256.0, dram_bytes_per_cycle_peak=100.0, l2_bytes_per_cycle_peak=400.0,
        l1_bytes_per_cycle_peak=256.0, shared_wavefronts_per_cycle_peak=2.0, tensor_fp16_per_cycle_peak=8192.0,
        dram_read_bytes=3000.0, dram_write_bytes=1000.0, l2_sectors=10.0,
        shared_load_bank_conflicts=5.0, shared_store_bank_conflicts=7.0,
        occupancy_limit_registers=4, occupancy_limit_shared_mem=8, occupancy_limit_warps=4,
        occupancy_limit_blocks=32, occupancy_limit_barriers=32,
        **{f"stall_{r}": 0.1 for r in LAUNCH_REASONS},
    )
    row["stall_selected"] = 9.0  # never the top stall
    row["stall_long_scoreboard"] = 3.0
    row.update(overrides)
    return pd.DataFrame([row])


def derive(frame: pd.DataFrame) -> dict:
    from profiler.extract.tables import add_derived

    out = add_derived(frame)
    assert list(frame.columns) == [c for c in out.columns if c in frame.columns]  # input kept
    return out.iloc[0].to_dict()


def test_derived_by_hand():
    r = derive(synthetic())
    assert r["grid"] == "(64, 64, 1)" and r["block"] == "(16, 16, 1)"
    assert r["threads_per_block"] == 256
    assert r["shared_mem_per_block"] == 4096
    assert r["fp32_flop"] == 2_000_030
    assert r["tensor_flop"] == 0
    assert r["achieved_flops"] == pytest.approx(2_000_030 / 1e-3, rel=1e-12)
    assert r["dram_bytes"] == 4000
    assert r["l2_bytes"] == 320  # no lts__t_bytes: 10 sectors of 32 bytes
    assert r["shared_bank_conflicts"] == 12
    assert r["peak_fp32_flops"] == 2 * 256 * 1e9
    assert r["peak_dram_bytes_per_s"] == 100 * 2e9
    assert r["peak_l2_bytes_per_s"] == 400 * 1.5e9
    assert r["peak_l1_bytes_per_s"] == 256 * 1e9
    assert r["peak_shared_bytes_per_s"] == 2 * 128 * 1e9
    assert r["peak_tensor_fp16_flops"] == 8192 * 1e9
    assert r["fp32_peak_pct"] == pytest.approx(100 * 2_000_030e3 / 512e9)
    assert r["occupancy_limiter"] == "registers, warps"
    assert r["top_stall"] == "long_scoreboard"


def test_fp32_flop_from_rates_when_counts_missing():
    # --set full alone: per-cycle rates times SMSP cycles give the counts back (rounded).
    r = derive(synthetic(ffma_thread_inst=np.nan, fadd_thread_inst=np.nan, fmul_thread_inst=np.nan,
                         ffma_thread_inst_per_cycle=122.00975, fadd_thread_inst_per_cycle=0.0,
                         fmul_thread_inst_per_cycle=0.2383, smsp_cycles=1_100_057.393939))
    assert r["fp32_flop"] == 2 * round(122.00975 * 1_100_057.393939) + round(0.2383 * 1_100_057.393939)


def test_missing_metrics_give_nan_not_errors():
    frame = synthetic()
    for column in frame.columns:
        frame[column] = np.nan
    r = derive(frame)
    for d in mt.DERIVED:
        value = r[d.column]
        assert value is None or (isinstance(value, float) and math.isnan(value)), (d.column, value)


def test_tensor_flop_sums_present_parts():
    r = derive(synthetic(tensor_fp16_flop=1000.0, tensor_fp8_flop=np.nan, tensor_fp64_flop=np.nan))
    assert r["tensor_flop"] == 1000
    assert r["achieved_flops"] == pytest.approx((2_000_030 + 1000) / 1e-3)


def test_peak_falls_back_to_mma_and_l2_sectors():
    r = derive(synthetic(tensor_fp16_per_cycle_peak=np.nan, tensor_fp16_mma_per_cycle_peak=4096.0,
                         l2_bytes_per_cycle_peak=np.nan, l2_sectors_per_cycle_peak_per_slice=3.0, l2_slices=2))
    assert r["peak_tensor_fp16_flops"] == 4096 * 1e9
    assert r["peak_l2_bytes_per_s"] == 3 * 2 * 32 * 1.5e9


@pytest.mark.parametrize(
    "limits, expected",
    [
        ({"registers": 2, "shared memory": 8, "warps": 2, "blocks": 32}, "registers, warps"),
        ({"registers": 4, "shared memory": 1, "warps": 2, "blocks": 32}, "shared memory"),
        ({"registers": 4, "shared memory": np.nan, "warps": 2, "blocks": 32}, "warps"),
        ({"registers": np.nan, "warps": np.nan}, None),
        ({}, None),
    ],
)
def test_choose_limiter(limits, expected):
    assert mt.choose_limiter(limits) == expected


# ---------------------------------------------------------------------------------------------
# Units


def test_a_double_precision_launch_is_measured_against_the_fp64_peak():
    # 1,000 cycles at 1 GHz (1 us): 100 DFMA + 10 DADD per cycle -> 210,000 FP64 FLOPs, next to a few FFMAs.
    r = derive(synthetic(smsp_cycles=1000.0, duration_ns=1000.0, ffma_thread_inst=5.0, fadd_thread_inst=0.0,
                         fmul_thread_inst=0.0, dfma_thread_inst_per_cycle=100.0, dadd_thread_inst_per_cycle=10.0,
                         dmul_thread_inst_per_cycle=0.0, dfma_per_cycle_peak=64.0, sm_clock_hz=1e9))
    assert r["fp64_flop"] == 210_000
    assert r["math_pipe"] == "fp64"
    assert r["achieved_flops"] == pytest.approx((210_000 + 10) / 1e-6)
    assert r["peak_fp64_flops"] == 2 * 64 * 1e9
    assert r["peak_pct"] == pytest.approx(100 * (210_010 / 1e-6) / (2 * 64 * 1e9))


def test_register_zeroing_hfma2_is_not_counted_as_math():
    # cuBLAS's FP32 kernel zeroes registers with HFMA2.MMA: a few FP16 "FLOPs" beside the FFMAs.
    r = derive(synthetic(smsp_cycles=1000.0, hfma_thread_inst_per_cycle=0.5, hadd_thread_inst_per_cycle=0.0,
                         hmul_thread_inst_per_cycle=0.0))
    assert r["fp16_flop"] == 2000 and r["math_pipe"] == "fp32"
    assert r["achieved_flops"] == pytest.approx(r["fp32_flop"] / (r["duration_ns"] * 1e-9))


@pytest.mark.parametrize("waves, cost", [(1.0076, 100 * (2 - 1.0076) / 2), (124.5, 100 * 0.5 / 125), (3.0, 0.0)])
def test_tail_cost_is_the_idle_share_of_the_last_wave(waves, cost):
    assert derive(synthetic(waves_per_sm=waves))["tail_cost_pct"] == pytest.approx(cost)
    assert math.isnan(derive(synthetic(waves_per_sm=0.25))["tail_cost_pct"])  # a small grid is another problem


@pytest.mark.parametrize("cluster, held, waves", [(0, 0, 0.97), (2, 66, 0.97), (4, 30, 32 / 30), (4, 0, 0.97)])
def test_waves_count_the_clusters_the_gpu_holds(cluster, held, waves):
    """128 blocks on 132 SMs: 0.97 of ncu's waves; in 32 clusters of four where the GPU holds 30
    at once (H200, 197 KB a block), two waves, the last 6.7% full; clusters of two that all fit, or
    a count of clusters held that is unknown (0), leave ncu's count."""
    r = derive(synthetic(grid_x=32, grid_y=1, grid_z=4, waves_per_sm=0.97, cluster_size=cluster,
                         cluster_max_active=held))
    assert r["launch_waves"] == pytest.approx(waves)
    assert r["tail_cost_pct"] == pytest.approx(100 * (2 - waves) / 2) if waves > 1 else math.isnan(r["tail_cost_pct"])


def test_tf32_launches_are_held_to_the_tf32_tensor_peak():
    """1 ms, 3 GFLOP of TF32 tensor math on a toy GPU whose TF32 rate (warpgroup 4096, mma.sync 2730
    FLOP/cycle) is half its FP16 one (8192): % of peak is of the TF32 peak, 3e12 / 4.096e12."""
    r = derive(synthetic(tensor_tf32_flop=3e9, tensor_tf32_per_cycle_peak=4096.0, tensor_tf32_mma_per_cycle_peak=2730.0))
    assert r["peak_tensor_tf32_flops"] == 4096 * 1e9 and r["peak_tensor_fp16_flops"] == 8192 * 1e9
    assert r["math_pipe"] == "tensor" and r["peak_tensor_flops"] == 4096 * 1e9
    assert r["peak_pct"] == pytest.approx(100 * (3e9 + 2_000_030) / 1e-3 / 4.096e12)
    fp16 = derive(synthetic(tensor_fp16_flop=3e9, tensor_tf32_per_cycle_peak=4096.0))
    assert fp16["peak_tensor_flops"] == 8192 * 1e9  # FP16 launches as before
    mma_only = derive(synthetic(tensor_tf32_flop=3e9, tensor_tf32_mma_per_cycle_peak=2730.0))
    assert mma_only["peak_tensor_tf32_flops"] == 2730 * 1e9  # a GPU without warpgroup MMA


def launch(**stall_values) -> pd.DataFrame:
    row = {"report": "r", "launch": 0, **{f"stall_{r}": 0.0 for r in STALL_REASONS}}
    row.update({f"stall_{k}": v for k, v in stall_values.items()})
    return pd.DataFrame([row])


def test_top_stall_column_is_never_a_reason_that_is_no_cost():
    from profiler.metrics import top_stall
    frame = launch(selected=5.0, not_selected=9.0, wait=0.5)
    assert top_stall(frame) == ["wait"]


def test_the_metric_table_is_read_without_numpy_and_the_derived_columns_bring_it():
    """`gemmprof profile` reads ncu's --metrics from this table just before ncu starts: numpy is
    imported only when a derived column is computed, and is then the module's own `np`."""
    import subprocess
    import sys

    probe = ("import sys\nfrom profiler import metrics as mt\nassert mt.ncu_extra_metrics()\n"
             "print('numpy' in sys.modules)\n"
             "print(mt.tail_cost_pct({'waves_per_sm': [1.5]})[0], mt.np is sys.modules['numpy'])")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["False", "25.0", "True"], out.stderr[-2000:]
