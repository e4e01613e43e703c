"""A launch's timeline (profiler.analyze.timeline) on made-up intervals with hand-checkable
shapes: a tail wave, epilogue gaps, a slow start."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from profiler.analyze.timeline import read_timeline

STEP_NS = 1000.0
CLOCK = 2e9  # 2,000 cycles an interval


def rows(math: list[float], active: list[float] | None = None, tensor: bool = True) -> pd.DataFrame:
    n = len(math)
    active = active if active is not None else [100.0] * n
    return pd.DataFrame({"launch": 0, "t_ns": np.arange(n) * STEP_NS, "tensor_pct": math if tensor else np.nan,
                         "fma_pct": math if not tensor else np.nan, "issue_pct": 10.0, "dram_pct": 20.0,
                         "l2_pct": 30.0, "l1_pct": 40.0, "sm_active_cycles": [a / 100 * 2000 for a in active]})


LAUNCH = {"duration_ns": 1e9, "sm_clock_hz": CLOCK, "tensor_flop": 1.0}


def test_a_tail_wave():
    tl = read_timeline(rows([80.0] * 50 + [0.6] * 50, [100.0] * 50 + [1.0] * 50), LAUNCH)
    assert tl.plateau == pytest.approx(80.0) and tl.tail_pct == pytest.approx(50.0) and tl.gap_pct == 0
    assert tl.tail_level == pytest.approx(0.6) and tl.tail_sm_active == pytest.approx(1.0)
    (finding,) = tl.findings()
    assert finding.startswith("The timeline ends in a tail: for the last 50% of the launch the tensor pipe runs at 0.6%")
    assert "a partial last wave" in finding


def test_epilogue_gaps_between_busy_stretches():
    math = ([80.0] * 8 + [5.0] * 2) * 10
    tl = read_timeline(rows(math), LAUNCH)
    assert tl.gap_pct == pytest.approx(100 * 18 / 98)  # 98 intervals from the first busy to the last; the last gap is the tail
    assert any(f.startswith("The timeline has gaps") for f in tl.findings())


def test_a_slow_start_on_the_fma_pipe():
    tl = read_timeline(rows([2.0] * 15 + [60.0] * 85, tensor=False), {**LAUNCH, "tensor_flop": 0.0})
    assert tl.math_name == "FMA pipe" and tl.start_pct == pytest.approx(15.0)
    assert any("starts slowly" in f for f in tl.findings())


def test_intervals_after_the_launch_are_left_out_and_too_few_say_nothing():
    tl = read_timeline(rows([80.0] * 40 + [0.0] * 60), {**LAUNCH, "duration_ns": 39 * STEP_NS})
    assert len(tl.t_us) == 40 and tl.findings() == []
    assert read_timeline(rows([80.0] * 5), LAUNCH) is None
    assert read_timeline(pd.DataFrame(), LAUNCH) is None
