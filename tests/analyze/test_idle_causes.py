"""The cause checks for idle SMs and schedulers (profiler.analyze.idle_causes), each on a made-up
launch just past and just short of its threshold."""

from __future__ import annotations

import math

import pytest
from helpers.cause_signals import signals

from profiler.analyze import idle_causes
from profiler.analyze.idle_causes import occupancy_capped, small_grid, tail, uneven_end


def test_a_grid_for_a_fifth_of_the_sms_is_the_cause():
    v = small_grid(signals(util={"sm_fill": 20.0, "blocks": 26, "waves": 0.2}))
    assert v.cause == "small_grid" and v.bound == "launch"
    assert v.problem == "grid too small: 26 of 132 SMs busy"
    assert "80% of the GPU idle" in v.summary and "split K" in v.cure


@pytest.mark.parametrize("fill", [idle_causes.LAUNCH_FILL_MIN_PCT, 100.0, math.nan])
def test_a_grid_that_fills_half_the_sms_is_not(fill):
    assert small_grid(signals(util={"sm_fill": fill})) is None


def test_a_costly_last_wave_is_the_cause_and_a_cheap_one_is_not():
    v = tail(signals(launch={"tail_cost_pct": 30.0}, util={"waves": 1.25}))
    assert v.cause == "tail" and v.problem == "tail wave: the last of 2 waves is 25% full"
    assert "about 66 blocks run in it" in v.summary  # 0.25 x 2 blocks per SM x 132 SMs
    assert tail(signals(launch={"tail_cost_pct": idle_causes.TAIL_CAUSE_PCT - 0.1}, util={"waves": 1.25})) is None
    assert tail(signals()) is None  # no tail cost measured


def test_a_tail_of_clusters_counts_the_clusters_the_gpu_holds():
    """32 clusters of four where the GPU holds 30 at once: ncu counts 0.97 waves of blocks, the
    launch takes two of clusters, the second holding two."""
    v = tail(signals(launch={"tail_cost_pct": 46.7, "cluster_size": 4, "cluster_max_active": 30, "waves_per_sm": 0.97},
                     util={"waves": 32 / 30, "blocks": 128}))
    assert v.problem == "tail wave: the last of 2 waves is 6.7% full"
    assert "waves of clusters" in v.summary and "about 2 clusters run in it" in v.summary
    assert "the GPU holds 30 at once (120 blocks" in v.evidence[0] and "ncu's waves per SM (0.970)" in v.evidence[0]
    assert "waves of clusters" in v.cure


def uneven(busy, waves=0.625, blocks=330, grid_z=1):
    """splitk64x64x8t4 at 1362x925x247 (H200): 330 blocks, up to 4 an SM, one wave."""
    return signals(launch={"sm_busy_pct": busy, "grid_z": grid_z}, util={"sm_fill": 100.0, "waves": waves, "blocks": blocks},
                   occupancy={"blocks_per_sm": 4})


def test_one_wave_whose_sms_idle_a_quarter_of_the_launch_ends_unevenly():
    v = uneven_end(uneven(70.0))
    assert v.cause == "uneven_end" and v.bound == "launch"
    assert v.problem == "blocks that end unevenly (the SMs idle 30% of the launch)"
    assert v.evidence[0] == "One wave of 330 blocks over 132 SMs (up to 4 an SM): 66 SMs run 3 blocks, the other 66 2."
    assert "the SMs given more blocks end last" in v.summary and "smaller blocks" in v.cure
    split = uneven_end(uneven(60.0, waves=0.95, blocks=504, grid_z=14))
    assert "split 14 ways" in split.summary and "reduce-scatter" in split.cure
    assert "108 SMs run 4 blocks, the other 24 3" in split.evidence[0]


@pytest.mark.parametrize("busy,waves", [(100.0 - idle_causes.UNEVEN_CAUSE_PCT + 0.1, 0.625),  # idle just short of it
                                        (60.0, 1.6),  # several waves: the tail's case
                                        (math.nan, 0.625)])
def test_blocks_that_end_nearly_together_or_in_several_waves_are_not(busy, waves):
    assert uneven_end(uneven(busy, waves=waves)) is None


def capped(**occupancy):
    return signals(occupancy={"limiter": "shared memory", "warps_per_scheduler": 1.0, "theoretical_pct": 12.5,
                              "blocks_per_sm": 1, "shared_mem_per_block": 100 * 1024, **occupancy})


def test_occupancy_capped_by_shared_memory_says_what_to_request():
    v = occupancy_capped(capped())
    assert v.cause == "occupancy_shared" and v.bound == "latency"
    assert v.problem == "occupancy capped by shared memory: 1 block per SM"
    assert "102.4 kB" in v.cure and "2 blocks per SM" in v.cure


@pytest.mark.parametrize("change", [
    {"limiter": ""},                            # nothing caps it
    {"limiter": "registers"},                   # a register tile is a choice
    {"warps_per_scheduler": 3.0},               # enough warps to hide latency
    {"theoretical_pct": 50.0},
])
def test_occupancy_is_no_cause_when_latency_can_hide(change):
    assert occupancy_capped(capped(**change)) is None


def test_async_pipelines_hide_latency_with_stages():
    s = capped()
    s.techniques = {"wgmma": True}
    assert occupancy_capped(s) is None


@pytest.mark.parametrize("in_flight,hidden", [(idle_causes.DEEP_PIPELINE_GROUPS, True), (4, True), (1, False), (0, False)])
def test_a_deep_cp_async_pipeline_hides_latency_and_a_double_buffer_does_not(in_flight, hidden):
    """cp.async groups left in flight while a thread computes: three stages or more (skinny's five,
    four in flight, at 8x5120x5120 read DRAM at its peak with 1.8 warps a scheduler) keep bytes in
    flight without warps; a double buffer (one in flight) still needs them."""
    s = capped()
    s.techniques = {"cp_async": True, "cp_async_pipeline": in_flight >= 1, "async_groups_in_flight": in_flight}
    assert (occupancy_capped(s) is None) == hidden


def test_a_cheaper_tail_of_clusters_is_a_note_in_clusters():
    """Below the cause's threshold the tail is a note, its waves counted as the cause counts them:
    in clusters where those the GPU holds bind, in blocks otherwise."""
    from profiler.analyze.sentences import notes

    clustered = signals(launch={"tail_cost_pct": 10.0, "cluster_size": 4, "cluster_max_active": 30,
                                "waves_per_sm": 0.97}, util={"waves": 32 / 30, "blocks": 128})
    plain = signals(launch={"tail_cost_pct": 10.0, "waves_per_sm": 1.1}, util={"waves": 1.1})
    assert any("1.07 waves of clusters" in n for n in notes("compute", "fp32", clustered))
    assert any(n.startswith("1.10 waves of blocks") for n in notes("compute", "fp32", plain))
