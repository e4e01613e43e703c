"""shared_memory.py: bank conflicts as n-way, from the counters and from the addresses; the lines
with most conflicts; the shared bytes a wgmma reads."""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest
from helpers.memory_frames import kernels_row, sass_rows
from helpers.paths import SAMPLE_RUN

from profiler.analyze import shared_memory

SAMPLE = SAMPLE_RUN
need_sample = pytest.mark.skipif(not (SAMPLE / "sass.parquet").is_file(), reason="sample run not present")


def test_n_way():
    assert shared_memory.n_way(100, 0) == 1.0
    assert shared_memory.n_way(100, 50) == 2.0  # every request takes twice its passes
    assert shared_memory.n_way(300, 200) == 3.0
    assert math.isnan(shared_memory.n_way(0, 0))

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

def test_cp_async_wavefronts_one_per_global_line_are_not_conflicts():
    """A warp of 4-byte copies from 4 rows takes 4 wavefronts (ideal 1) and 4 global sectors: the
    lines, not the banks (the H100 probe: benchmarks/results/2026-11-23-h100/ldgsts-probe.log).
    32 wavefronts from the same 4 sectors are 8 for each the lines need: 8-way bank conflicts."""
    k = kernels_row(shared_ldgsts_wavefronts=4096.0, shared_ldgsts_bank_conflicts=3072.0)
    rows4 = {"sass": "LDGSTS.E [R1], desc[UR4][R2.64]", "shared_wavefronts": 4096.0, "shared_wavefronts_ideal": 1024.0,
             "shared_excess_wavefronts": 3072.0, "l2_global_sectors": 4096.0}
    c = shared_memory.bank_conflicts(k, sass_rows([rows4])).iloc[0]
    assert c["kind"] == "cp.async" and c["status"] == "lines"
    assert c["line_excess"] == 3072 and c["n_way"] == 1.0
    k = kernels_row(shared_ldgsts_wavefronts=32768.0, shared_ldgsts_bank_conflicts=31744.0)
    banks = rows4 | {"shared_wavefronts": 32768.0, "shared_excess_wavefronts": 31744.0}
    c = shared_memory.bank_conflicts(k, sass_rows([banks])).iloc[0]
    assert c["status"] == "conflicts" and c["line_excess"] == 3072 and c["n_way"] == 8.0


def test_conflict_lines_leave_out_cp_async_wavefronts_per_line():
    """A source line of 4-byte copies from 4 rows has 3 excess wavefronts an instruction, all its
    lines': not listed; a line of shared loads with real conflicts stays."""
    source = pd.DataFrame([
        {"report": "r", "launch": 0, "file": "k.cu", "line": 10, "code": "cp_async_4", "shared_wavefronts": 4096.0,
         "shared_wavefronts_ideal": 1024.0, "shared_excess_wavefronts": 3072.0},
        {"report": "r", "launch": 0, "file": "k.cu", "line": 20, "code": "lds", "shared_wavefronts": 2048.0,
         "shared_wavefronts_ideal": 1024.0, "shared_excess_wavefronts": 1024.0},
    ])
    sass = sass_rows([
        {"sass": "LDGSTS.E [R1], desc[UR4][R2.64]", "file": "k.cu", "line": 10, "shared_wavefronts": 4096.0,
         "shared_wavefronts_ideal": 1024.0, "shared_excess_wavefronts": 3072.0, "l2_global_sectors": 4096.0},
        {"sass": "LDS R4, [R2]", "file": "k.cu", "line": 20, "shared_wavefronts": 2048.0,
         "shared_wavefronts_ideal": 1024.0, "shared_excess_wavefronts": 1024.0},
    ])
    assert list(shared_memory.conflict_lines(source)["line"]) == [10, 20]  # without the sass: both
    lines = shared_memory.conflict_lines(source, sass=sass)
    assert list(lines["line"]) == [20] and list(lines["n_way"]) == [2.0]
    # a SASS table without source correlation (file NaN: a float column) leaves every line in
    unknown = sass.assign(file=float("nan"), line=float("nan"))
    assert list(shared_memory.conflict_lines(source, sass=unknown)["line"]) == [10, 20]


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
