"""Sentences built from signals (profiler.analyze.signals): a stall row as evidence, first letter
capitalised."""

from __future__ import annotations

from profiler.analyze.signals import stall_sentence, upper


def test_upper_capitalises_only_the_first_letter():
    assert upper("long scoreboard: x") == "Long scoreboard: x" and upper("") == "" and upper("FP32") == "FP32"


def test_a_stall_row_reads_as_one_sentence_of_evidence():
    text = stall_sentence({"reason": "long_scoreboard", "cycles_per_inst": 3.14159, "share_pct": 42.0})
    assert text.startswith("Long scoreboard: 3.1") and "stall cycles per issued instruction" in text
    assert "42" in text and text.endswith("of all cycles between issues).")


def test_barrier_stalls_leave_out_the_waits_for_the_warps_own_wgmmas():
    """ncu files wgmma.wait_group under barrier stalls; 75% of them at WARPGROUP instructions leave
    a quarter that is a __syncthreads. Other reasons are as ncu gives them."""
    import pytest
    from helpers.cause_signals import signals

    waiting = {"barrier": 4.0, "long_scoreboard": 2.0, "selected": 1.0}  # barrier 4 of 7 cycles
    plain = signals(stall_cycles=waiting)
    wgmma = signals(stall_cycles=waiting, regions={"barrier_stall_at_wgmma_wait_pct": 75.0})
    assert wgmma.stall("barrier") == pytest.approx((plain.stall("barrier")[0] / 4, plain.stall("barrier")[1] / 4))
    assert wgmma.stall("long_scoreboard") == plain.stall("long_scoreboard")
