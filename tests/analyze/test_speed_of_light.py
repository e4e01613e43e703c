"""The Speed Of Light stages (profiler.analyze.speed_of_light) on made-up launches."""

from __future__ import annotations

from helpers.cause_signals import signals

from profiler.analyze import speed_of_light as sol

ROOF = {"pct": 93.0, "roof": 84.0, "source": "the table"}
QUIET = {"fp32": 10.0, "tensor": 0.0, "dram": 10.0, "l2": 10.0, "shared": 5.0, "issue": 30.0, "ffma_share": 50.0}


def test_the_fp32_pipe_at_its_roof():
    s = signals(launch={"achieved_flops": 51e12, "peak_fp32_flops": 67e12, "sm_clock_hz": 1.97e9},
                util={**QUIET, "fp32": 77.0}, attainable={"pct": 77.0, "roof": 69.3})
    v = sol.math_roof(s)
    assert v.cause == "fp32_roof" and "at 1.97 GHz" in v.summary


def test_tensor_cores_below_what_cublas_attains_are_not_at_the_roof():
    busy = {**QUIET, "tensor": 80.0, "tensor_input": "FP16"}
    assert sol.math_roof(signals(util=busy, attainable=ROOF, attribution={"issue_pct": 60.0})).cause == "tensor_gap"
    assert sol.math_roof(signals(util=QUIET, attainable=ROOF)) is None


def test_the_busy_memory_unit():
    def unit(**util):
        return sol.memory_unit(signals(launch={"l1_throughput_pct": 40.0}, util={**QUIET, "memory": 90.0, "sm": 50.0, **util}))

    assert unit(dram=85.0).cause == "dram"
    assert unit(shared=80.0).bound == "shared"
    assert unit(l2=88.0).cause == "l2_bandwidth"
    assert unit().bound == "global" and unit().confidence != "low"
    unmeasured = unit(shared=float("nan"))
    assert unmeasured.bound == "global" and unmeasured.confidence == "low" and "not measured" in unmeasured.evidence[-1]
    assert sol.memory_unit(signals(util={**QUIET, "memory": 40.0})) is None


def test_an_l2_busy_beyond_its_bytes_names_rows_that_start_inside_a_sector():
    """wgmma_tmastore at 5000^3 FP16 (H200): ncu's L2 throughput 77%, its bytes 48% of the peak;
    at 5120^3, 58% and 52%. The L2 is the busy unit by ncu's count, and rows of 10000 bytes start
    inside sectors."""
    def unit(launch, l2):
        return sol.memory_unit(signals(launch={"l1_throughput_pct": 36.0, "tensor_fp16_flop": 1.0, **launch},
                                       util={**QUIET, "memory": 77.0, "sm": 47.0, "l2": l2}))

    odd = unit({"l2_throughput_pct": 76.6, "M": 5000, "N": 5000, "K": 5000}, 48.0)
    assert odd.cause == "l2_bandwidth" and odd.problem == "rows that start inside a 32-byte sector"
    assert "A (K = 5000: rows of 10000 bytes) and B (N = 5000" in odd.summary and odd.cure.startswith("Read whole sectors")
    whole = unit({"l2_throughput_pct": 76.6, "M": 5120, "N": 5120, "K": 5120}, 48.0)
    assert whole.problem == "more L2 sector work than bytes" and "sectors a row" not in whole.summary
    bytes_busy = unit({"l2_throughput_pct": 70.0, "M": 5000, "N": 5000, "K": 5000}, 65.0)  # its bytes make it busy
    assert bytes_busy.problem == "L2 bandwidth" and "many times over" in bytes_busy.summary
    assert sol.memory_unit(signals(launch={"l1_throughput_pct": 36.0, "l2_throughput_pct": 58.0},
                                   util={**QUIET, "memory": 58.0, "sm": 73.0, "l2": 52.0})) is None  # 5120^3: not busy


def test_issue_and_latency():
    assert sol.issue(signals(util={**QUIET, "sm": 85.0, "issue": 90.0})).cause == "issue"
    assert sol.issue(signals(util=QUIET)) is None
    latency = signals(util=QUIET, occupancy={"achieved_pct": 40.0, "theoretical_pct": 50.0, "warps_per_scheduler": 4.0})
    assert sol.latency(latency).bound == "latency"


def test_a_tiled_kernel_bound_by_global_access_is_not_told_to_stage_tiles():
    busy = {**QUIET, "memory": 90.0, "sm": 50.0}
    plain = sol.memory_unit(signals(launch={"l1_throughput_pct": 90.0}, util=busy))
    tiled = sol.memory_unit(signals(launch={"l1_throughput_pct": 90.0}, util=busy, techniques={"shared_tiling": True}))
    assert plain.cure.startswith("Stage tiles of A and B in shared memory")
    assert tiled.cure.startswith("Its tiles are already staged in shared memory") and "Stage tiles" not in tiled.cure


def _banks(mio: float, dispatch: float, on_conflicts: float = 75.0):
    """A latency-bound launch (128-bit shared loads, 2 warps per scheduler) whose FFMAs conflict on
    94% of their executions, with MIO throttle and dispatch stalls in cycles per instruction."""
    return signals(util={**QUIET, "issue": 70.0, "sm": 70.0, "memory": 32.0},
                   occupancy={"warps_per_scheduler": 2.0, "achieved_pct": 12.0, "theoretical_pct": 12.0},
                   stall_cycles={"mio_throttle": mio, "dispatch_stall": dispatch, "long_scoreboard": 0.1,
                                 "selected": 1.0},
                   banks={"ffma_bank_conflict_pct": 94.0, "dispatch_on_conflicts_pct": on_conflicts},
                   techniques={"vector_shared_loads": True})


def test_register_banks_lead_where_their_dispatch_stalls_tie_with_the_top_stall():
    """Dispatch stalls at conflicting FFMAs within noise of the top stall: the banks lead (an issue
    slot lost outright), the top stall's own verdict ranked beside them."""
    v = sol.register_banks(_banks(mio=0.26, dispatch=0.25))
    assert v.cause == "register_banks" and v.ranked == ("latency_queue",) and "rotated" in v.cure
    assert "within noise of the top stall (MIO throttle" in v.summary


def test_register_banks_are_no_verdict_where_the_top_stall_leads_by_more_than_noise():
    # the same conflicts, but the MIO throttle four times the dispatch stalls at them
    assert sol.register_banks(_banks(mio=0.8, dispatch=0.25)) is None
    # conflicts on few of the dispatch-stall samples: below the note's own bar
    assert sol.register_banks(_banks(mio=0.1, dispatch=0.25, on_conflicts=20.0)) is None


def test_register_banks_as_the_top_stall_rank_nothing_beside():
    v = sol.register_banks(_banks(mio=0.1, dispatch=0.4))
    assert v.cause == "register_banks" and v.ranked == ()
    assert v.summary.endswith("at dispatch.")
