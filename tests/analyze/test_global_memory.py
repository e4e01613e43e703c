"""global_memory.py: the GEMM's minimum traffic (FP32 or narrower inputs), traffic at each level
against it, coalescing."""

from __future__ import annotations

import pandas as pd
import pytest
from helpers.memory_frames import kernels_row
from helpers.paths import SAMPLE_RUN

from profiler.analyze import global_memory

SAMPLE = SAMPLE_RUN
need_sample = pytest.mark.skipif(not (SAMPLE / "sass.parquet").is_file(), reason="sample run not present")


def test_gemm_minimum():
    # A 2x4, B 4x3, C 2x3: read 8 + 12 + 6 floats, write 6 floats.
    assert global_memory.gemm_min_bytes(2, 3, 4) == {"read": 104, "write": 24, "total": 128}
    assert global_memory.gemm_min_bytes(2, 3, 4, reads_c=False)["total"] == 4 * (8 + 12 + 6)
    assert global_memory.gemm_min_bytes(2048, 2048, 2048)["total"] == 4 * (3 * 2048**2 + 2048**2)

def test_gemm_minimum_with_half_precision_inputs():
    # FP16 A and B (2 bytes), FP32 C: read 2 * (8 + 12) + 4 * 6, write 4 * 6.
    assert global_memory.gemm_min_bytes(2, 3, 4, input_bytes=2) == {"read": 64, "write": 24, "total": 88}

def test_input_bytes_of_a_launch():
    assert global_memory.input_bytes({"kernel_key": "wgmma"}) == 2  # the fp16 tier, from the manifest
    assert global_memory.input_bytes({"kernel_key": "cublas-fp16"}) == 2
    assert global_memory.input_bytes({"kernel_key": "naive", "tensor_fp16_flop": 0.0}) == 4
    assert global_memory.input_bytes({"kernel_key": None, "tensor_fp16_flop": 1e9}) == 2  # another program's
    assert global_memory.input_bytes({"kernel_key": None, "tensor_fp8_flop": 1e9}) == 1
    assert global_memory.input_bytes({"kernel_key": None, "tensor_tf32_flop": 1e9}) == 4
    assert global_memory.input_bytes({}) == 4

@need_sample
def test_fp16_kernels_are_held_to_the_fp16_minimum():
    kernels = pd.read_parquet(SAMPLE / "kernels.parquet")
    traffic = global_memory.traffic(kernels[kernels["kernel_key"].isin(["wgmma", "naive"])])
    minimum = traffic[traffic["level"] == "DRAM read"].set_index("report")["minimum"]
    by_key = kernels.set_index("report")["kernel_key"]
    n = 2048**2
    assert {by_key[i]: m for i, m in minimum.items()} == {"wgmma": 2 * 2 * n + 4 * n, "naive": 4 * 3 * n}

def test_traffic_against_the_minimum():
    # gemmprof's own kernel (2x3x4, FP32): A 32 + B 48 + C read 24 bytes, C written 24
    k = kernels_row(kernel_key="naive", dram_read_bytes=104.0, dram_write_bytes=12.0, dram_bytes=116.0,
                    l2_bytes=1280.0, l1_bytes=12800.0)
    t = global_memory.traffic(k).set_index("level")["times"]
    assert t["DRAM read"] == 1.0 and t["DRAM write"] == 0.5 and t["L2"] == 10.0 and t["L1"] == 100.0


def test_another_programs_product_is_held_to_c_equals_a_b_in_its_own_type():
    # a framework's FP16 matmul, 2x3x4: reads A 16 + B 24 bytes, writes C 12, never reads C
    assert global_memory.launch_min_bytes({"M": 2, "N": 3, "K": 4, "tensor_fp16_flop": 1.0}) == {
        "read": 40, "write": 12, "total": 52}
    # a batch of 8 such products moves 8 times that
    assert global_memory.launch_min_bytes({"M": 2, "N": 3, "K": 4, "batch": 8, "tensor_fp16_flop": 1.0})["total"] == 416

def test_coalescing():
    source = pd.DataFrame([{"report": "r", "launch": 0, "l2_global_sectors": 80.0, "l2_global_sectors_ideal": 20.0,
                            "l2_global_excess_sectors": 60.0},
                           {"report": "r", "launch": 0, "l2_global_sectors": 20.0, "l2_global_sectors_ideal": 20.0,
                            "l2_global_excess_sectors": 0.0}])
    c = global_memory.coalescing(source).iloc[0]
    assert c["sectors"] == 100 and c["excess_pct"] == 60

@need_sample
def test_traffic_on_the_sample_run():
    kernels = pd.read_parquet(SAMPLE / "kernels.parquet")
    t = global_memory.traffic(kernels).merge(kernels[["report", "launch", "kernel_key"]], on=["report", "launch"])
    naive_l1 = t[(t["kernel_key"] == "naive") & (t["level"] == "L1")].iloc[0]
    assert naive_l1["minimum"] == 4 * (4 * 2048**2) and naive_l1["times"] == pytest.approx(4228.0)
