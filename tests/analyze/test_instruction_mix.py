"""instruction_mix.py: the opcode and operands of a SASS line, instructions per math instruction."""

from __future__ import annotations

import pandas as pd
import pytest
from helpers.memory_frames import sass_rows
from helpers.paths import SAMPLE_RUN

from profiler.analyze import instruction_mix

SAMPLE = SAMPLE_RUN
need_sample = pytest.mark.skipif(not (SAMPLE / "sass.parquet").is_file(), reason="sample run not present")


def test_opcode():
    assert instruction_mix.opcode("@!P0 LDS.U.128 R4, [R2+0x10]") == "LDS"
    assert instruction_mix.opcode("FFMA R1, R2, R3, R1") == "FFMA"
    assert instruction_mix.opcode("@UP1 LDGSTS.E.LTC128B [R1], [R2.64]") == "LDGSTS"
    assert instruction_mix.opcode("") == ""


def test_operands_follow_the_opcode_and_its_modifiers():
    assert instruction_mix.operands("@P0 FFMA.FTZ R5, R132, -R137, R5") == ["R5", "R132", "-R137", "R5"]
    assert instruction_mix.operands("FFMA R1, RZ, 0.5, R8") == ["R1", "RZ", "0.5", "R8"]
    assert instruction_mix.operands("@!UP1 LDS.U.128 R4, [R2+0x10]") == ["R4", "[R2+0x10]"]
    assert instruction_mix.operands("EXIT") == [] and instruction_mix.operands("") == []


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

@need_sample
def test_mix_on_the_sample_run():
    kernels = pd.read_parquet(SAMPLE / "kernels.parquet")
    sass = pd.read_parquet(SAMPLE / "sass.parquet")
    mix = instruction_mix.instruction_mix(sass).merge(kernels[["report", "launch", "kernel_key"]], on=["report", "launch"])
    per = mix.set_index("kernel_key")
    assert per.loc["naive", "global_load_per_math"] == pytest.approx(2.0, rel=1e-3)  # A and B from global, every FMA
    assert per.loc["smem", "shared_load_per_math"] == pytest.approx(1.25, rel=1e-3)
    assert per.loc["blocktile1d", "shared_load_per_math"] == pytest.approx(0.375, rel=1e-3)
    assert per.loc["blocktile2d", "shared_load_per_math"] == pytest.approx(1 / 16, rel=1e-3)
