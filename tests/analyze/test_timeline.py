"""A launch's timeline (profiler.analyze.timeline) on made-up intervals with hand-checkable
shapes: a tail wave, epilogue gaps, a slow start."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from profiler.analyze.timeline import dram_stream, read_timeline

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


def test_short_dips_are_named_with_when_they_happen_and_single_intervals_are_noise():
    math = [80.0] * 40 + [50.0] * 5 + [80.0] * 40 + [30.0] + [80.0] * 14
    l2 = [20.0] * 40 + [55.0] * 5 + [20.0] * 55
    r = rows(math)
    r["l2_pct"] = l2
    tl = read_timeline(r, LAUNCH)
    assert tl.dips == ((40.0, 5.0, 55.0),) and tl.gap_pct == pytest.approx(100 / 100)  # the lone 40% interval
    (finding,) = tl.findings()
    assert finding.startswith("The tensor pipe dips below three quarters of its plateau while the SMs stay busy at 40 us "
                              "(5 us, L2 at 55%)")


@pytest.mark.ncu
def test_three_kernels_whose_structure_is_known_read_off_their_timelines():
    """tests/data/timelines-h200 (`profile --timeline` on an H200): stream-K's fix-ups as short
    dips in which warps wait on loads and L2 rises; the tail-wave probe's second wave as a tail
    with one SM in 132 busy; the epilogue probe as gaps where busy SMs leave the tensor pipe idle."""
    from helpers.ncu_fixtures import opened_copy
    from helpers.paths import DATA

    from profiler.catalogue.kernel_paths import PROBES_MANIFEST
    from profiler.catalogue.manifest import load_manifest

    run = opened_copy(DATA / "timelines-h200").diagnose(manifest=load_manifest() + load_manifest(PROBES_MANIFEST))
    tl = {d.name: d.timeline for d in run.kernels}
    streamk = tl["streamk128x256x8"]
    assert streamk.tail_pct < 5 and streamk.gap_pct < 5 and len(streamk.dips) >= 2
    assert all(stall is not None and stall[0] == "long_scoreboard" for stall in streamk.dip_stalls)
    assert max(l2 for _, _, l2 in streamk.dips) > 2 * float(np.median(streamk.l2))
    tail = tl["probe-tail"]
    assert 45 < tail.tail_pct < 55 and tail.tail_sm_active < 5
    epilogue = tl["probe-epilogue"]
    assert epilogue.gap_pct > 50 and any(f.startswith("The timeline has gaps") for f in epilogue.findings())


def dram_rows(dram: list[float], step_ns: float = 1500.0) -> pd.DataFrame:
    return pd.DataFrame({"launch": 0, "t_ns": np.arange(len(dram)) * step_ns, "dram_pct": dram})


# skinny at 8x5120x5120 on an H200 (gemmprof profile, PM sampling every 1.5 us): its DRAM rises at
# 3 us, reads at the peak to 15 us, and the launch ends at 20.4 us.
SKINNY_DRAM = [0.0, 0.7, 59.0, 100.0, 100.0, 100.0, 95.0, 95.0, 95.0, 92.0, 17.0, 1.0, 2.0, 0.0]


def test_a_dram_stream_starts_and_ends_where_its_plateau_does():
    st = dram_stream(dram_rows(SKINNY_DRAM), {"duration_ns": 20_400.0})
    assert st.plateau == pytest.approx(100.0)
    assert (st.start_us, st.end_us, st.duration_us) == pytest.approx((4.5, 15.0, 20.4))


def test_a_dram_stream_needs_enough_intervals_and_traffic():
    assert dram_stream(dram_rows(SKINNY_DRAM[:7]), {"duration_ns": 10_000.0}) is None  # 7 intervals
    assert dram_stream(dram_rows([0.0] * 14), {"duration_ns": 20_400.0}) is None
    assert dram_stream(dram_rows(SKINNY_DRAM), {}) is None  # no duration
    assert dram_stream(None, {"duration_ns": 20_400.0}) is None
    # intervals past the launch's end are not part of it
    assert dram_stream(dram_rows(SKINNY_DRAM + [100.0] * 5), {"duration_ns": 20_400.0}).end_us == pytest.approx(15.0)
