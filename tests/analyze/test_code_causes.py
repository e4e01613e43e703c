"""The cause checks for pathologies in a kernel's code (profiler.analyze.code_causes), each on a
made-up launch on both sides of its threshold; cures that never prescribe what the kernel does."""

from __future__ import annotations

import pandas as pd
import pytest
from helpers.cause_signals import signals

from profiler.analyze import code_causes
from profiler.analyze.code_causes import bank_conflicts, barrier, fp64


def test_math_mostly_in_double_is_the_cause():
    # 0.9 GFLOP in double in 1 ms: 900 GFLOP/s of the FP64 pipe's 1,000
    v = fp64(signals(launch={"fp64_flop": 0.9e9, "fp32_flop": 0.1e9, "peak_fp64_flops": 1e12,
                             "peak_fp32_flops": 60e12}))
    assert v.cause == "fp64" and v.bound == "fp64"
    assert v.summary == ("90% of the FLOPs are FP64: 900 GFLOP/s against an FP64 peak of 1,000 GFLOP/s, where FP32 "
                         "would have 60,000.")
    assert "1.0f" in v.cure


@pytest.mark.parametrize("flop64, flop32", [(0.0, 1e9), (4e9, 6e9), (float("nan"), 1e9)])
def test_some_double_math_is_not(flop64, flop32):
    assert fp64(signals(launch={"fp64_flop": flop64, "fp32_flop": flop32})) is None


def conflicts(excess_pct: float, kind: str = "load", status: str = "conflicts") -> pd.DataFrame:
    return pd.DataFrame([{"kind": kind, "status": status, "excess_pct": excess_pct, "n_way": 3.0,
                          "wavefronts": 3e6, "ideal": 1e6}])


def test_conflicts_on_most_shared_loads_are_the_cause():
    v = bank_conflicts(signals(conflicts=conflicts(66.7)))
    assert v.cause == "bank_conflicts" and v.bound == "shared"
    assert v.problem == "3-way bank conflicts on shared loads"
    assert "pad each row" in v.cure


@pytest.mark.parametrize("table", [
    conflicts(code_causes.CONFLICT_CAUSE_PCT - 1),  # replays, but on fewer than half the wavefronts
    conflicts(80.0, kind="store"),                  # stores: not this check's
    conflicts(80.0, status="unexplained"),          # the addresses do not show them
    conflicts(80.0).iloc[:0],
    None,
])
def test_few_or_other_conflicts_are_not(table):
    assert bank_conflicts(signals(conflicts=table)) is None


def test_conflicts_too_few_to_cost_time_are_not_the_cause():
    """2e6 replay wavefronts: 20% of the 10^7 a shared pipe of 128 GB/s passes in 10 ms is the cause;
    of 10^9 in 1 s (0.2%, an epilogue's loads under a long main loop: wgmma_tmastore's 56%
    replays) it is not."""
    costly = {"duration_ns": 1e7, "peak_shared_bytes_per_s": 128e9}
    cheap = {"duration_ns": 1e9, "peak_shared_bytes_per_s": 128e9}
    assert bank_conflicts(signals(launch=costly, conflicts=conflicts(66.7))).cause == "bank_conflicts"
    assert bank_conflicts(signals(launch=cheap, conflicts=conflicts(66.7))) is None


def test_barrier_waits_are_the_cause_and_the_cure_knows_double_buffering():
    waiting = {"barrier": 4.0, "long_scoreboard": 2.0, "selected": 1.0}  # 4 of 7 cycles: 57%
    single = barrier(signals(stall_cycles=waiting))
    assert single.cause == "barrier" and "57% of their cycles" in single.summary
    assert single.cure.startswith("Fewer barriers per unit of work: double-buffer")
    double = barrier(signals(stall_cycles=waiting, techniques={"double_buffer": True}))
    assert double.cure.startswith("The tile is already double-buffered")
    assert "double-buffer the shared tiles" not in double.cure


def test_few_barrier_waits_are_not():
    assert barrier(signals(stall_cycles={"barrier": 1.0, "long_scoreboard": 2.0, "selected": 1.0})) is None
    assert barrier(signals()) is None


def serial(share: float, ratio: float = 1.0, **techniques) -> object:
    return signals(regions={"epilogue_serial_load_wait_pct": share, "epilogue_pct": 39.0, "loop_pct": 59.0,
                            "epilogue_long_scoreboard_pct": share + 1, "epilogue_line": 228,
                            "epilogue_code": "@!P4 FMUL R0, R0, R25"},
                   coalescing={"load_ratio": ratio, "store_ratio": ratio}, techniques=techniques)


def test_loads_of_c_by_turns_are_the_cause_and_the_cure_reads_c_ahead():
    v = code_causes.serial_epilogue(serial(31.2))
    assert v.cause == "serial_epilogue" and v.bound == "latency"
    assert v.summary.startswith("31% of the warps' samples wait in the epilogue (line 228) for global loads issued right after")
    assert v.cure.startswith("Read all of the thread's C into registers before its first store of C")
    tma = code_causes.serial_epilogue(serial(28.0, wgmma=True, l2_prefetch=True))
    assert "by TMA into shared memory" in tma.cure and "already prefetches into L2" in tma.cure


@pytest.mark.parametrize("share, ratio", [
    (code_causes.SERIAL_EPILOGUE_MIN_PCT - 1, 1.0),  # the waits are not the time
    (94.0, code_causes.SCATTERED_RATIO_MIN),          # C scattered too: coalescing comes first
    (float("nan"), 1.0),                              # no stall columns
])
def test_few_waits_or_scattered_c_are_not(share, ratio):
    assert code_causes.serial_epilogue(serial(share, ratio)) is None


def test_the_serial_epilogue_is_a_late_check_a_saturated_unit_wins():
    """It decides only where the Speed Of Light finds no unit saturated (a latency-bound launch)."""
    from profiler.analyze import causes

    assert code_causes.serial_epilogue in [c.find for c in causes.LATENCY] and code_causes.serial_epilogue not in [c.find for c in causes.CODE]


def lone(share: float) -> object:
    return signals(regions={"lone_load_wait_pct": share, "epilogue_pct": 78.0, "loop_pct": 15.0,
                            "epilogue_long_scoreboard_pct": share + 1, "epilogue_line": 284,
                            "epilogue_code": "@!P1 FFMA R68, R60, UR6, R68", "lone_load_at": "lone_loads.cu:54"})


def test_loads_waited_for_one_or_two_at_a_time_are_the_cause_and_the_cure_issues_them_together():
    v = code_causes.lone_loads(lone(61.0))
    assert v.cause == "lone_loads" and v.bound == "latency"
    assert v.summary.startswith("61% of the warps' samples wait outside the main loop at the first use of global loads")
    assert "one or two at a time (most at lone_loads.cu:54):" in v.summary
    assert v.cure.startswith("Issue the loads together, then use them") and "predicated" in v.cure
    assert code_causes.lone_loads(lone(code_causes.LONE_LOADS_MIN_PCT - 1)) is None
    assert code_causes.lone_loads(lone(float("nan"))) is None


def test_an_epilogue_of_lone_loads_is_named_for_them_not_for_its_share():
    """The probe reading C a row at a time: 78% of its samples after the main loop, 61% of them
    waiting on loads two at a time. The epilogue check hands the verdict to the loads' order."""
    assert code_causes.epilogue(signals(regions={**lone(61.0).regions, "epilogue_line_pct": 62.0})).cause == "lone_loads"


def test_a_few_lone_load_waits_are_a_note():
    """streamk128x256x8 at 4096^3 before its fix-up was batched: 1.5% of its samples waited on its fix-up's
    partial sums loaded one at a time (issued together: +1.3% of cuBLAS there, +3.5% at 3072^3)."""
    from profiler.analyze.sentences import notes

    def said(share):
        return [n for n in notes("compute", "fp32", lone(share)) if "one or two at a time" in n]

    (note,) = said(1.5)
    assert note.startswith("1.5% of the warps' samples wait outside the main loop") and "Issue the loads together" in note
    assert "a memory latency each (most at lone_loads.cu:54). Issue" in note
    assert said(code_causes.LONE_LOADS_NOTE_PCT / 2) == [] and said(float("nan")) == []
    assert said(61.0) and not [n for n in notes("latency", "lone_loads", lone(61.0)) if "one or two at a time" in n]
