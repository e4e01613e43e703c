"""shared_memory.py (bank conflicts as n-way), global_memory.py (traffic against the GEMM
minimum), instruction_mix.py."""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest
from helpers.paths import SAMPLE_RUN

from profiler.analyze import global_memory, instruction_mix, shared_memory

SAMPLE = SAMPLE_RUN
need_sample = pytest.mark.skipif(not (SAMPLE / "sass.parquet").is_file(), reason="sample run not present")


def test_n_way():
    assert shared_memory.n_way(100, 0) == 1.0
    assert shared_memory.n_way(100, 50) == 2.0  # every request takes twice its passes
    assert shared_memory.n_way(300, 200) == 3.0
    assert math.isnan(shared_memory.n_way(0, 0))


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


def test_opcode():
    assert instruction_mix.opcode("@!P0 LDS.U.128 R4, [R2+0x10]") == "LDS"
    assert instruction_mix.opcode("FFMA R1, R2, R3, R1") == "FFMA"
    assert instruction_mix.opcode("@UP1 LDGSTS.E.LTC128B [R1], [R2.64]") == "LDGSTS"
    assert instruction_mix.opcode("") == ""


def kernels_row(**values) -> pd.DataFrame:
    row = {"report": "r", "launch": 0, "M": 2, "N": 3, "K": 4,
           "shared_load_wavefronts": 0.0, "shared_load_bank_conflicts": 0.0,
           "shared_store_wavefronts": 0.0, "shared_store_bank_conflicts": 0.0,
           "shared_ldgsts_wavefronts": 0.0, "shared_ldgsts_bank_conflicts": 0.0}
    row.update(values)
    return pd.DataFrame([row])


def sass_rows(rows) -> pd.DataFrame:
    base = {"report": "r", "launch": 0, "shared_wavefronts": 0.0, "shared_wavefronts_ideal": 0.0,
            "shared_excess_wavefronts": 0.0, "inst_executed": 0.0}
    return pd.DataFrame([{**base, **r} for r in rows])


def test_bank_conflicts_from_counters_and_addresses():
    k = kernels_row(shared_load_wavefronts=100.0, shared_load_bank_conflicts=40.0,
                    shared_store_wavefronts=50.0, shared_store_bank_conflicts=10.0)
    sass = sass_rows([
        {"sass": "LDS.128 R4, [R2]", "shared_wavefronts": 40.0, "shared_wavefronts_ideal": 20.0, "shared_excess_wavefronts": 20.0},
        {"sass": "LDS.128 R8, [R3]", "shared_wavefronts": 40.0, "shared_wavefronts_ideal": 40.0},
        {"sass": "STS [R1], R2", "shared_wavefronts": 40.0, "shared_wavefronts_ideal": 40.0},
    ])
    c = shared_memory.bank_conflicts(k, sass).set_index("kind")
    assert list(c.index) == ["load", "store"]  # no cp.async wavefronts: no row
    load = c.loc["load"]
    assert load["ideal"] == 60 and load["n_way_avg"] == pytest.approx(100 / 60) and load["excess_pct"] == 40
    assert load["worst_n_way"] == 2.0 and load["n_way"] == 2.0 and load["addr_excess"] == 20
    assert load["status"] == "conflicts"
    store = c.loc["store"]  # 20% replays by the counter, none by the addresses
    assert store["status"] == "unexplained" and store["n_way"] == 1.0
    without_sass = shared_memory.bank_conflicts(k).set_index("kind")
    assert without_sass.loc["load", "n_way"] == pytest.approx(100 / 60)
    assert without_sass.loc["store", "status"] == "conflicts"


def test_negligible_conflicts_are_none():
    k = kernels_row(shared_load_wavefronts=1000.0, shared_load_bank_conflicts=5.0)
    assert shared_memory.bank_conflicts(k).iloc[0]["status"] == "none"


def test_conflict_lines_worst_first():
    source = pd.DataFrame([
        {"report": "r", "launch": 0, "file": "k.cu", "line": 10, "code": "a", "shared_wavefronts": 8.0,
         "shared_wavefronts_ideal": 4.0, "shared_excess_wavefronts": 4.0},
        {"report": "r", "launch": 0, "file": "k.cu", "line": 20, "code": "b", "shared_wavefronts": 48.0,
         "shared_wavefronts_ideal": 16.0, "shared_excess_wavefronts": 32.0},
        {"report": "r", "launch": 0, "file": "k.cu", "line": 30, "code": "c", "shared_wavefronts": 8.0,
         "shared_wavefronts_ideal": 8.0, "shared_excess_wavefronts": 0.0},
    ])
    lines = shared_memory.conflict_lines(source)
    assert list(lines["line"]) == [20, 10]
    assert list(lines["n_way"]) == [3.0, 2.0]
    assert list(lines["share_pct"]) == pytest.approx([100 * 32 / 36, 100 * 4 / 36])


def test_traffic_against_the_minimum():
    k = kernels_row(dram_read_bytes=104.0, dram_write_bytes=12.0, dram_bytes=116.0, l2_bytes=1280.0, l1_bytes=12800.0)
    t = global_memory.traffic(k).set_index("level")["times"]
    assert t["DRAM read"] == 1.0 and t["DRAM write"] == 0.5 and t["L2"] == 10.0 and t["L1"] == 100.0


def test_instruction_mix_per_math():
    sass = sass_rows([
        {"sass": "FFMA R1, R2, R3, R1", "inst_executed": 10.0},
        {"sass": "FFMA R4, R2, R3, R4", "inst_executed": 10.0},
        {"sass": "LDG.E R2, [R6.64]", "inst_executed": 5.0},
        {"sass": "@P0 LDS.128 R8, [R9]", "inst_executed": 10.0},
        {"sass": "IADD3 R1, R1, 0x1, RZ", "inst_executed": 3.0},
    ])
    mix = instruction_mix.instruction_mix(sass).iloc[0]
    assert mix["ffma"] == 20 and mix["other"] == 3 and mix["total"] == 38
    assert mix["global_load_per_math"] == 0.25 and mix["shared_load_per_math"] == 0.5


def test_coalescing():
    source = pd.DataFrame([{"report": "r", "launch": 0, "l2_global_sectors": 80.0, "l2_global_sectors_ideal": 20.0,
                            "l2_global_excess_sectors": 60.0},
                           {"report": "r", "launch": 0, "l2_global_sectors": 20.0, "l2_global_sectors_ideal": 20.0,
                            "l2_global_excess_sectors": 0.0}])
    c = global_memory.coalescing(source).iloc[0]
    assert c["sectors"] == 100 and c["excess_pct"] == 60


@need_sample
def test_bank_conflicts_on_the_sample_run_agree_with_ncu():
    kernels = pd.read_parquet(SAMPLE / "kernels.parquet")
    sass = pd.read_parquet(SAMPLE / "sass.parquet")
    rules = pd.read_parquet(SAMPLE / "rules.parquet")
    c = shared_memory.bank_conflicts(kernels, sass).merge(kernels[["report", "launch", "kernel_key"]], on=["report", "launch"])
    by = {(r["kernel_key"], r["kind"]): r for r in c.to_dict("records")}
    b2d = by[("blocktile2d", "load")]
    assert b2d["status"] == "conflicts" and b2d["n_way"] == 2.0  # the B fragment loads: 2-way
    assert b2d["n_way_avg"] == pytest.approx(5 / 3, rel=1e-3)
    # ncu: "... which represent 40.00% of the overall 83888689 wavefronts for shared loads"
    message = rules[(rules["report"] == b2d["report"]) & (rules["title"] == "Shared Load Bank Conflicts")]["message"].iloc[0]
    pct, total = re.search(r"represent ([\d.]+)% of the overall (\d+) wavefronts", message).groups()
    assert b2d["excess_pct"] == pytest.approx(float(pct), abs=0.005) and b2d["wavefronts"] == int(total)
    assert by[("warptile", "load")]["status"] == "none" and by[("warptile", "store")]["status"] == "none"
    assert by[("vectorized", "load")]["status"] == "none"
    assert by[("vectorized", "store")]["status"] == "unexplained"  # counter says 13%, addresses say 0
    assert by[("cublas", "cp.async")]["status"] == "conflicts"


@need_sample
def test_traffic_and_mix_on_the_sample_run():
    kernels = pd.read_parquet(SAMPLE / "kernels.parquet")
    sass = pd.read_parquet(SAMPLE / "sass.parquet")
    t = global_memory.traffic(kernels).merge(kernels[["report", "launch", "kernel_key"]], on=["report", "launch"])
    naive_l1 = t[(t["kernel_key"] == "naive") & (t["level"] == "L1")].iloc[0]
    assert naive_l1["minimum"] == 4 * (4 * 2048**2) and naive_l1["times"] == pytest.approx(4228.0)
    mix = instruction_mix.instruction_mix(sass).merge(kernels[["report", "launch", "kernel_key"]], on=["report", "launch"])
    per = mix.set_index("kernel_key")
    assert per.loc["naive", "global_load_per_math"] == pytest.approx(2.0, rel=1e-3)  # A and B from global, every FMA
    assert per.loc["smem", "shared_load_per_math"] == pytest.approx(1.25, rel=1e-3)
    assert per.loc["blocktile1d", "shared_load_per_math"] == pytest.approx(0.375, rel=1e-3)
    assert per.loc["blocktile2d", "shared_load_per_math"] == pytest.approx(1 / 16, rel=1e-3)


def test_wgmma_shared_bytes_by_hand():
    # per warpgroup (4 warps): B is N x K; A too when read through a descriptor; TF32 4 bytes, FP16 2
    sass = pd.DataFrame({"report": "r", "launch": 0, "inst_executed": [8.0, 4.0, 4.0, 100.0], "sass": [
        "HGMMA.64x128x8.F32.TF32 R24, gdesc[UR12], RZ, !UPT",  # 2 warpgroup MMAs x (64 + 128) x 8 x 4 bytes
        "HGMMA.64x256x16.F32 R24, gdesc[UR4], R24",             # 1 x (64 + 256) x 16 x 2
        "HGMMA.64x128x16.F32 R24, R120, gdesc[UR8], R24",       # 1 x 128 x 16 x 2: A from registers
        "FFMA R1, R2, R3, R1"]})
    got = shared_memory.wgmma_shared_bytes(sass)
    assert got["wgmma_shared_bytes"].iloc[0] == 2 * 192 * 8 * 4 + 320 * 16 * 2 + 128 * 16 * 2
    assert shared_memory.wgmma_shared_bytes(sass.iloc[3:])["wgmma_shared_bytes"].iloc[0] == 0
