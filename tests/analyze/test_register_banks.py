"""Register-bank conflicts of the FFMAs from the SASS: the counting on lines written out here, and
on the committed H200 run the pair that differs in nothing but the cause, cutlass128x256x8 (each
accumulator quad stored by one STS.128, so in the B fragments' banks) and regbank128x256x8 (the
quads stored rotated): the note is on the first and its 128x128 sibling, not on the fix, the
faster rungs or cuBLAS."""

from __future__ import annotations

import pandas as pd
import pytest

from helpers.paths import SAMPLE_RUN
from profiler.analyze.register_banks import ffma_conflicts, register_bank_conflicts


def test_fresh_operands_in_one_bank_are_counted_and_a_repeated_register_is_taken_from_the_reuse_cache():
    lines = [
        "FFMA R5, R132, R137, R5",      # banks 0, 1, 1: one conflict
        "FFMA R6, R132, R138, R6",      # R132 again in its slot (reuse cache): 2, 2 collide
        "FFMA R7, R133, R136, R7",      # 1, 0, 3: none (cuBLAS's pattern)
        "LDS.128 R8, [R2+0x10]",        # not an FFMA; the reuse model starts again
        "FFMA R9, R133, R140, R10",     # R133 fresh again: 1, 0, 2: none
        "@!P0 FFMA R12, R16, R20, R24",  # predicated; all three in bank 0: two repeats
        "FFMA R1, RZ, R4, R8",          # RZ is no register: 0, 0
        "FFMA R1, R2, 0.5, -R6",        # an immediate and a negated register: 2, 2
    ]
    assert ffma_conflicts(lines) == [1, 1, 0, None, 0, 2, 1, 1]


def test_shares_are_weighted_by_executions_and_dispatch_samples():
    sass = pd.DataFrame({
        "report": "r", "launch": 0, "offset": [0, 16, 32],
        "sass": ["FFMA R5, R132, R137, R5", "FFMA R7, R133, R136, R7", "BAR.SYNC 0x0"],
        "inst_executed": [30.0, 10.0, 5.0], "samples_dispatch_stall": [6.0, 2.0, 2.0],
    })
    row = register_bank_conflicts(sass).iloc[0]
    assert row["ffma_executed"] == 40.0
    assert row["ffma_bank_conflict_pct"] == pytest.approx(75.0)
    assert row["dispatch_on_conflicts_pct"] == pytest.approx(60.0)
    assert register_bank_conflicts(sass[sass["sass"].str.startswith("BAR")]).empty


@pytest.fixture(scope="module")
def sample():
    from profiler.run import open_run

    run = open_run(SAMPLE_RUN)
    names = run.sass[["report", "launch", "kernel"]].drop_duplicates()
    banks = register_bank_conflicts(run.sass).merge(names, on=["report", "launch"])
    return banks.set_index("kernel"), {d.name: d for d in run.diagnose().kernels}


def _bank_notes(d) -> list[str]:
    return [n for n in d.verdict.notes if "register bank" in n]


def test_the_accumulators_in_the_fragments_banks_lead_where_they_tie_with_the_top_stall(sample):
    """cutlass128x256x8: the dispatch stalls at conflicting FFMAs (6.7% of the cycles) are within
    noise of its MIO throttle (9.4%), whose cure bought x1.01 after the banks' x1.16: the banks
    lead, the queue is ranked beside, and the note is not said twice."""
    banks, kernels = sample
    assert banks.loc["sgemm_cutlass128x256x8", "ffma_bank_conflict_pct"] > 90
    verdict = kernels["cutlass128x256x8"].verdict
    assert verdict.cause == "register_banks" and verdict.ranked == ("latency_queue",)
    assert "rotated" in verdict.cure and "of the dispatch-stall samples" in " ".join(verdict.evidence)
    assert _bank_notes(kernels["cutlass128x256x8"]) == []


def test_the_banks_are_a_note_where_another_stall_leads_by_more_than_noise(sample):
    """cutlass128x128x8: the same conflicts, but its barrier waits (12%) lead the dispatch stalls at
    conflicting FFMAs (4.5%) by more than noise: barriers lead, the banks are a note."""
    banks, kernels = sample
    assert banks.loc["sgemm_cutlass128x128x8", "ffma_bank_conflict_pct"] > 90
    assert kernels["cutlass128x128x8"].verdict.cause == "barrier"
    notes = _bank_notes(kernels["cutlass128x128x8"])
    assert len(notes) == 1 and "rotated" in notes[0] and "of the dispatch-stall samples" in notes[0]


@pytest.mark.parametrize("name", ["regbank128x256x8", "spread128x256x8", "texld128x128x8", "cublas", "naive"])
def test_no_note_where_the_banks_do_not_hold_the_kernel_back(sample, name):
    """The fix and the rungs after it conflict on a tenth of their FFMAs or fewer (cuBLAS 15%,
    texld 28%); naive collides on half, but it waits on memory, not at dispatch."""
    banks, kernels = sample
    assert _bank_notes(kernels[name]) == []
    if name in ("regbank128x256x8", "spread128x256x8"):
        assert banks.loc[f"sgemm_{name}", "ffma_bank_conflict_pct"] < 15


def test_the_ladder_says_what_the_fix_changed(sample):
    """regbank128x256x8 over cutlass128x256x8: the one row that names its cause, beside its speed."""
    _, kernels = sample
    changes = kernels["regbank128x256x8"].changes.set_index("quantity")
    assert changes.at["ffma_bank_conflict_pct", "change"] == "94% -> 9.7%"
    assert changes.at["gflops", "change"].startswith("x1.16")


def test_tensor_core_kernels_get_no_bank_row(sample):
    """Beside MMAs the FFMAs are the epilogue's alpha and beta: their banks say nothing of the math,
    so wgmma's ladder and cuBLAS rows leave the quantity out (it read '0%' against cuBLAS FP16's 31%)."""
    _, kernels = sample
    for name in ("wgmma", "wmma_smem"):
        d = kernels[name]
        assert "ffma_bank_conflict_pct" not in set(d.changes.get("quantity", [])) | set(d.versus.get("quantity", []))
