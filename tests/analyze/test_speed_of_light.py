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
