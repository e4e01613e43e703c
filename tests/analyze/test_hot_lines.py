"""hot_lines.py (and the verdict it feeds) on real reports: which problem a latency-bound TMA/wgmma kernel is given depends on
where its long-scoreboard samples sit (the tf32x3raw profile of the 2026-11-23 H100 run `tf32-bits`:
66% of them in hopper.cuh's mbarrier wait; wgmma_persist's in `fp16-tma` at its epilogue's loads of C, read by turns)."""

from __future__ import annotations

import pytest

from helpers.ncu_fixtures import opened_copy
from helpers.paths import DATA

RUNS = DATA / "ladder-runs-h100"  # H100 profiles of the TF32 and FP16 rungs (README there)


def diagnosed(run: str):
    return {d.name: d for d in opened_copy(RUNS / run).diagnose().kernels}


@pytest.mark.ncu
def test_long_scoreboard_in_the_mbarrier_wait_is_a_stage_not_ready_not_global_latency():
    d = diagnosed("tf32-bits")["tf32x3raw"]
    assert d.verdict.cause == "latency_pipeline" and d.verdict.problem.startswith("pipeline stages not ready in time")
    assert "mbarrier wait" in d.verdict.cure and "more producer warps" in d.verdict.cure
    assert any("mbar_try_wait" in line for line in d.verdict.evidence)


@pytest.mark.ncu
def test_long_scoreboard_at_the_epilogues_loads_of_c_read_by_turns_is_the_serial_epilogue():
    """wgmma_persist's long-scoreboard samples sit at its epilogue's loads of C, each issued right after
    the store before it. It prefetches C into L2 already: the cure loads C ahead by TMA (what
    wgmma_tmastore went on to do) and says that the L2 prefetch keeps the waits in a row."""
    d = diagnosed("fp16-tma")["wgmma_persist"]
    assert d.verdict.cause == "serial_epilogue" and d.verdict.problem.startswith("the epilogue's loads of C wait")
    assert "by TMA into shared memory" in d.verdict.cure and "already prefetches into L2" in d.verdict.cure


def test_the_hot_line_is_the_one_most_samples_of_the_reason_fall_on():
    import pandas as pd

    from profiler.analyze.hot_lines import hot_line, waits_at_mbarrier, where
    from profiler.analyze.signals import Signals

    lines = pd.DataFrame({"line": [10, 51, 80], "code": ["acc += a * b;", "if (mbar_try_wait(bar, p)) return;  // spin", None],
                          "samples_long_scoreboard": [10, 60, 30]})
    s = Signals.__new__(Signals)
    s.lines = lines
    assert hot_line(s, "long_scoreboard") == (60.0, 51, "if (mbar_try_wait(bar, p)) return;")
    assert where(s, "long_scoreboard").startswith("60% of the long scoreboard samples are at line 51: `if (mbar_try_wait")
    assert waits_at_mbarrier(s)
    s.lines = lines.assign(samples_long_scoreboard=[50, 30, 20])  # most samples on the math, not the wait
    assert not waits_at_mbarrier(s) and hot_line(s, "barrier") is None
