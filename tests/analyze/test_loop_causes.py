"""Causes read off where the samples go and what the launch can reach
(profiler.analyze.loop_causes), each on a made-up launch on both sides of its threshold; ties
within noise named together (verdict's ranking)."""

from __future__ import annotations

import numpy as np

from helpers.cause_signals import signals

from profiler.analyze import loop_causes as lc
from profiler.analyze.timeline import DramStream
from profiler.analyze.verdict import _costliest

BELOW = {"pct": 93.0, "roof": 84.0, "source": "the table", "kind": "FP16"}  # what the math could reach
TENSOR = {"tensor": 40.0, "tensor_input": "FP16", "fp32": 0.0, "dram": 10.0, "l2": 20.0}


def shares(samples: float = 10_000, **pct) -> dict:
    return {"samples": samples, **{f"{k}_pct": v for k, v in pct.items()}}


def loop(attribution: dict, techniques: dict | None = None, util: dict | None = None, origin: str = "cuda",
         stall_cycles: dict | None = None, **launch):
    return signals(launch=launch, util={**TENSOR, **(util or {})}, attribution=attribution,
                   techniques=techniques or {}, attainable=BELOW, origin=origin, stall_cycles=stall_cycles)


def test_a_launch_of_a_few_microseconds_with_nothing_busy_is_too_small():
    v = lc.too_small(signals(launch={"duration_ns": 4_200.0}, util={"sm": 10.0, "memory": 6.0},
                             attribution=shares(samples=287)))
    assert v.cause == "too_small" and "4.2 us" in v.problem and "287 PC samples" in v.evidence[0]
    assert "Batch" in v.cure
    assert lc.too_small(signals(launch={"duration_ns": 12_000.0})) is None
    assert lc.too_small(signals(launch={"duration_ns": 4_000.0}, util={"memory": 70.0})) is None  # a unit is busy


def gemm(dram_bytes: float, dram_pct: float, l2_bytes: float, M: int = 4096, N: int = 32768, K: int = 4096,
         seconds: float = 2e-3) -> dict:
    return {"M": M, "N": N, "K": K, "tensor_fp16_flop": 1.0, "duration_ns": seconds * 1e9,
            "achieved_flops": 2.0 * M * N * K / seconds, "dram_bytes": dram_bytes, "l2_bytes": l2_bytes,
            "peak_tensor_flops": 800e12, "peak_dram_bytes_per_s": 4.8e12}, dram_pct


def test_a_gemm_whose_tile_order_refetches_from_dram():
    launch, dram = gemm(dram_bytes=8.8e9, dram_pct=88.0, l2_bytes=16.6e9)  # 16x the least, tiles ~132 wide
    v = lc.memory_roof(signals(launch=launch, util={**TENSOR, "dram": dram}))
    assert v.cause == "tile_order" and "15.4x the least traffic" in v.problem
    assert "group the tile grid" in v.cure
    launch, _ = gemm(dram_bytes=8.8e9, dram_pct=88.0, l2_bytes=70e9)  # the same traffic from tiles ~31 wide
    assert lc.memory_roof(signals(launch=launch, util={**TENSOR, "dram": 88.0})) is None  # small tiles say it
    launch, _ = gemm(dram_bytes=1.6e9, dram_pct=20.0, l2_bytes=9e9)  # 700 FLOPs a byte: above the ridge
    assert lc.memory_roof(signals(launch=launch, util={**TENSOR, "dram": 20.0})) is None


def test_a_decode_step_is_memory_bound_by_nature():
    launch, dram = gemm(dram_bytes=137e6, dram_pct=81.0, l2_bytes=2e8, M=16, N=8192, K=8192, seconds=35e-6)
    s = signals(launch=launch, util={**TENSOR, "dram": dram})
    v = lc.memory_roof(s)
    assert v.cause == "dram" and v.problem.startswith("memory-bound by nature") and "Fuse" in v.cure
    assert lc.leads_memory_roof(s, v)
    idle = signals(launch=launch, util={**TENSOR, "dram": 50.0})  # DRAM mostly idle: the code holds it back
    assert not lc.leads_memory_roof(idle, lc.memory_roof(idle))
    assert "more bytes in flight" in lc.memory_roof(idle).cure


def decode_step(dram_pct: float, blocks: int, stream: DramStream | None, techniques: dict | None = None):
    """8x5120x5120 in FP16 on an H200 as profiled (52.8 MB the least), DRAM below the peak."""
    launch, _ = gemm(dram_bytes=55.1e6, dram_pct=dram_pct, l2_bytes=9e7, M=8, N=5120, K=5120, seconds=20.4e-6)
    return signals(launch=launch, util={**TENSOR, "dram": dram_pct, "blocks": blocks, "sm_fill": 100.0 * min(blocks, 132) / 132},
                   stream=stream, techniques=techniques or {})


def test_a_stream_at_the_peak_with_a_long_end_is_told_to_end_sooner():
    # skinny: 56% on average, 97% from 4.5 to 15 us of 20.4
    v = lc.memory_roof(decode_step(56.0, 240, DramStream(97.0, 4.5, 15.0, 20.4), {"cp_async_pipeline": True}))
    assert v.cause == "dram" and v.cure.startswith("At the DRAM peak while it streams (4.5 to 15.0 us): the 5.4 us after")
    assert "even shares of the work" in v.cure and "deeper ring" not in v.cure
    assert "DRAM timeline (PM sampling): 97% of the peak from 4.5 to 15.0 us of the launch's 20.4." in v.evidence
    # cuBLAS there: the same stream, ending 1.6 us before the launch does
    v = lc.memory_roof(decode_step(69.0, 80, DramStream(98.0, 4.5, 15.0, 16.6)))
    assert "its end is short (1.6 us)" in v.cure and "split K" not in v.cure


def test_the_end_of_a_stream_names_c_read_between_stores_first():
    # wgmma_splitk128 at 79x11008x4096 (H200): 84% from 4.5 to 28.5 us of 41.4, 21% of the samples
    # on loads of C issued right after a store; read ahead of the stores, it ran 82 -> 95% of cuBLAS
    launch, _ = gemm(dram_bytes=97.0e6, dram_pct=49.0, l2_bytes=2.4e8, M=79, N=11008, K=4096, seconds=41.4e-6)

    def step(serial: float):
        return signals(launch=launch, util={**TENSOR, "dram": 49.0, "blocks": 86, "sm_fill": 65.2},
                       stream=DramStream(84.0, 4.5, 28.5, 41.4), techniques={"tma": True, "wgmma": True},
                       regions={"epilogue_serial_load_wait_pct": serial})
    v = lc.memory_roof(step(20.9))
    assert v.cure.startswith("At 84% of the DRAM peak while it streams (4.5 to 28.5 us): the 12.9 us after the stream")
    assert "First the epilogue: 21% of the warps' samples wait there for loads of C issued right after a store" in v.cure
    assert "Then have the blocks end together" in v.cure and v.covers == ("serial_epilogue",)
    v = lc.memory_roof(step(5.0))  # below the note's share: the end alone
    assert "First the epilogue" not in v.cure and ": have the blocks end together" in v.cure and v.covers == ()


def test_the_end_of_a_stream_split_along_z_is_told_to_share_the_sum():
    # wgmma_swap160 at 143x4096x14336 (H200): 93% from 4.5 to 33.0 us of 59.0, 128 CTAs in one wave,
    # K split 4 ways along z, SMs busy 65%: the last arrival summed each tile. A slice each: 89% busy
    launch, _ = gemm(dram_bytes=126.5e6, dram_pct=45.0, l2_bytes=3.4e8, M=143, N=4096, K=14336, seconds=59.0e-6)

    def ends(grid_z: int, busy: float, cluster: int = 1):
        return lc.memory_roof(signals(launch={**launch, "grid_z": grid_z, "sm_busy_pct": busy, "cluster_size": cluster},
                                      util={**TENSOR, "dram": 45.0, "blocks": 128, "sm_fill": 97.0, "waves": 0.97},
                                      stream=DramStream(93.0, 4.5, 33.0, 59.0), techniques={"tma": True, "wgmma": True}))
    v = ends(4, 65.0)
    assert "the 26.0 us after the stream" in v.cure and "let every split of a tile sum a slice of it" in v.cure
    assert "reduce-scatter" in v.cure and "stream-K" in v.cure
    for other in (ends(1, 65.0), ends(4, 89.0), ends(2, 65.0, cluster=2)):  # unsplit; ending together; a cluster's sum
        assert "reduce-scatter" not in other.cure and "even shares of the work (stream-K)" in other.cure


def test_a_gemm_within_noise_of_the_ridge_has_no_roof_by_nature():
    # skinny at 256x4096x4096 (H200): 195 FLOPs a byte at the least traffic against a ridge of 204,
    # DRAM at 24% and the tensor pipe at 23%; here the ridge is 166.7 (800 TFLOP/s over 4.8 TB/s)
    def near(M: int) -> bool:
        launch, _ = gemm(dram_bytes=4e7, dram_pct=24.0, l2_bytes=1.5e8, M=M, N=4096, K=4096, seconds=37e-6)
        s = signals(launch=launch, util={**TENSOR, "dram": 24.0})
        v = lc.memory_roof(s)
        assert v.cause == "dram" and v.problem.startswith("memory-bound by nature")
        return lc.near_ridge(s, v)
    assert near(178)  # 163.8 FLOPs a byte: 1.8% below the ridge
    assert not near(170)  # 157.0: 6% below
    assert not near(16)  # a decode step: far below


def test_a_slow_stream_from_too_few_sms_is_told_to_stream_from_all():
    # wgmma_decode_fullk: 80 blocks, 64% from 4.5 to 22.5 us of 24.5: 6.5 us short of the peak, 2 us after
    s = decode_step(47.0, 80, DramStream(64.0, 4.5, 22.5, 24.5), {"tma": True})
    v = lc.memory_roof(s)
    assert "read by too few SMs: split K across blocks" in v.cure and "a deeper ring" in v.cure
    assert "16-byte loads" not in v.cure  # its copies are TMA's
    assert any(e.startswith("80 of 132 SMs run a block, each reading 38.4 GB/s from DRAM while it streams; the peak "
                            "needs 60.0 GB/s from each of them") for e in v.evidence)
    # every SM with a block, plain loads, no timeline: the loads themselves
    v = lc.memory_roof(decode_step(47.0, 264, None))
    assert v.cure.startswith("Memory-bound but at 47% of the DRAM peak: 16-byte loads")
    assert not any("SMs run a block" in e for e in v.evidence)


def test_which_loss_leads_weighs_the_end_against_the_stream_shortfall():
    assert lc._ends_lead(DramStream(97.0, 4.5, 15.0, 20.4))  # 0.3 us short, 5.4 after
    assert lc._ends_lead(DramStream(86.0, 3.0, 10.5, 16.0))  # 1.05 us short, 5.5 after
    assert not lc._ends_lead(DramStream(64.0, 4.5, 22.5, 24.5))  # 6.5 us short, 2 after
    assert lc._ends_lead(DramStream(98.0, 4.5, 15.0, 16.6))  # at the peak: a short end is named as such
    assert not lc._ends_lead(DramStream(85.0, 4.5, 15.0, 16.6))  # 1.6 us short, 1.6 after: not notable


def test_a_stream_leads_with_its_memory_roof_at_any_dram_share():
    s = signals(launch={"duration_ns": 7e5, "achieved_flops": 0.38e12, "dram_bytes": 2.1e9, "peak_fp32_flops": 67e12,
                        "peak_dram_bytes_per_s": 4.8e12}, util={"tensor": 0.0, "fp32": 0.6, "dram": 55.0})
    v = lc.memory_roof(s)
    assert v.problem == "memory-bound (DRAM stream)" and lc.leads_memory_roof(s, v)


def test_loads_waited_for_in_the_same_k_step_are_no_pipelining():
    tiled = {"shared_tiling": True}
    f = lc.no_pipelining(loop(shares(global_wait=40.0, barrier=10.0), tiled, origin="triton"))
    assert f.cost == 50.0 and f.verdict.cause == "no_pipelining" and "num_stages=3" in f.verdict.cure
    assert "cp.async into two or three" in lc.no_pipelining(loop(shares(global_wait=40.0), tiled)).verdict.cure
    for ahead in ("cp_async_pipeline", "register_prefetch", "tma"):  # the loads already run ahead
        assert lc.no_pipelining(loop(shares(global_wait=40.0), {**tiled, ahead: True})) is None
    assert lc.no_pipelining(loop(shares(global_wait=15.0), tiled)) is None  # too little to name
    assert lc.no_pipelining(loop(shares(samples=300, global_wait=40.0), tiled)) is None  # too few samples
    assert lc.no_pipelining(loop(shares(global_wait=40.0), {})) is None  # no tiles staged yet
    assert lc.no_pipelining(loop(shares(global_wait=40.0), tiled, util={"tensor": 90.0})) is None  # at the roof


def test_every_wgmma_waited_for_at_once_is_synchronous():
    f = lc.sync_wgmma(loop({**shares(), "mma_wait_all_pct": 40.0, "waits_all_mma": True}, origin="triton"))
    assert f.cost == 40.0 and f.verdict.cause == "sync_wgmma" and "tl.dot" in f.verdict.cure
    assert lc.sync_wgmma(loop({**shares(), "mma_wait_all_pct": 40.0, "waits_all_mma": False})) is None
    assert lc.sync_wgmma(loop({**shares(), "mma_wait_all_pct": 40.0, "waits_all_mma": True},
                              util={"tensor": 88.0})) is None


def test_tensor_core_tiles_too_small():
    # 4096^3 FP16 with 7.4 GB through L2: tiles about 37 wide
    f = lc.small_tiles(loop(shares(global_wait=59.0, barrier=15.0), {"cp_async": True}, M=4096, N=4096, K=4096,
                            l2_bytes=7.44e9, tensor_fp16_flop=1.0))
    assert f.verdict.cause == "small_tiles" and "about 37 wide" in f.verdict.problem and f.cost == 74.0
    assert lc.small_tiles(loop(shares(global_wait=59.0), {"cp_async": True}, M=4096, N=4096, K=4096,
                               l2_bytes=1.1e9, tensor_fp16_flop=1.0)) is None  # 250 wide
    assert lc.small_tiles(loop(shares(global_wait=59.0), {}, M=4096, N=4096, K=4096, l2_bytes=7.44e9,
                               tensor_fp16_flop=1.0)) is None  # nothing staged: stage tiles first


def test_tiles_as_large_as_a_narrow_side_allows_are_not_too_small():
    # 64x4096x4096 FP16, a decode step: 72.4 MB through L2 is a tile about 59 wide (skinny's 64x128
    # on an H200), half of the 126 that reading each operand once gives: the 64 rows are the limit
    decode = dict(M=64, N=4096, K=4096, tensor_fp16_flop=1.0)
    assert lc.small_tiles(loop(shares(global_wait=40.0, shared_pipe=23.0), {"cp_async": True}, **decode,
                               l2_bytes=72.4e6)) is None
    f = lc.small_tiles(loop(shares(global_wait=40.0, shared_pipe=23.0), {"cp_async": True}, **decode,
                            l2_bytes=300e6))  # about 14 wide: 16x16 tiles would read that much
    assert f.verdict.cause == "small_tiles" and "about 14 wide" in f.verdict.problem
    assert lc.shape_reuse({"M": 64, "N": 4096}) == 2 * 64 * 4096 / 4160 and np.isnan(lc.shape_reuse({"M": 64}))


def test_operand_reuse_reads_the_sms_own_l2_traffic():
    """The tile width comes from the bytes the SMs asked the L2 for, not from all of the L2's
    traffic (its partitions' exchanges and DRAM's side change with placement and hit rate, not
    with the tiles): wgmma_swap64 at 64x4096x4096 moved 102.4 MB at the L2, 67.2 MB of it asked by
    the SMs (H200, 2026-11-29-h200): 42 wide by the first (a third of the 126 the shape allows:
    'tiles too small'), 64 by the second. Without the SMs' count the total stands in."""
    decode = dict(M=64, N=4096, K=4096, tensor_fp16_flop=1.0)
    with_sm = loop(shares(global_wait=49.0), {"tma": True}, **decode, l2_bytes=102.4e6, l2_sm_bytes=67.2e6)
    assert round(lc.effective_tile(with_sm)) == 64 and lc.small_tiles(with_sm) is None
    total_only = loop(shares(global_wait=49.0), {"tma": True}, **decode, l2_bytes=102.4e6)
    assert round(lc.effective_tile(total_only)) == 42 and lc.small_tiles(total_only).verdict.cause == "small_tiles"


def test_copies_of_four_bytes_into_shared_memory_are_narrow():
    f = lc.narrow_copies(loop({**shares(copy_queue=32.0), "narrow_copy_pct": 30.0, "narrow_copy_bytes": 4.0},
                              util={"tensor_input": "TF32"}))
    assert f.cost == 32.0 and f.verdict.problem == "operands copied 4 bytes at a time" and "K-major" in f.verdict.cure
    scattered = loop({**shares(), "narrow_copy_pct": 30.0})
    scattered.coalescing = {"load_ratio": 8.0}  # uncoalesced: their own verdict
    assert lc.narrow_copies(scattered) is None
    assert lc.narrow_copies(loop({**shares(), "narrow_copy_pct": 10.0})) is None


def test_the_shared_pipe_is_a_throughput_cause_only_where_it_is_busy_queued_or_conflicted():
    """Samples at shared loads name shared memory the bound only where its pipe is busy or its
    queue full (skinny at 64x4096x4096: 23% of the samples there, shared memory 32% busy, the warps
    waiting for the loads' data: short scoreboard, not MIO throttle)."""
    waiting = {"short_scoreboard": 1.96, "mio_throttle": 0.16, "long_scoreboard": 1.0}
    queued = {"short_scoreboard": 0.36, "mio_throttle": 21.9, "long_scoreboard": 1.0}
    at_loads = shares(shared_pipe=23.0, global_wait=12.0)
    assert lc.shared_pipe(loop(at_loads, util={"shared": 32.0}, stall_cycles=waiting)) is None
    busy = lc.shared_pipe(loop(at_loads, util={"shared": 88.0}, stall_cycles=waiting))
    assert busy.verdict.bound == "shared" and busy.cost == 23.0
    assert lc.shared_pipe(loop(at_loads, util={"shared": 32.0}, stall_cycles=queued)).verdict.bound == "shared"
    assert lc.shared_pipe(loop(shares(shared_pipe=19.0), util={"shared": 88.0}, stall_cycles=queued)) is None  # too few


def test_costs_within_noise_are_named_together_largest_first():
    s = loop({**shares(global_wait=30.0, barrier=10.0), "mma_wait_all_pct": 38.0, "waits_all_mma": True},
             {"shared_tiling": True})
    v = _costliest(s)  # no pipelining 40 + 38 of MMA waits, sync wgmma 38
    assert v.cause == "no_pipelining" and v.ranked == ()
    s = loop({**shares(global_wait=30.0, barrier=6.0), "mma_wait_all_pct": 38.0, "waits_all_mma": False},
             {"shared_tiling": True, "wgmma": True})
    assert _costliest(s).cause == "no_pipelining"
    close = loop({**shares(global_wait=22.0), "mma_wait_all_pct": 25.0, "waits_all_mma": True}, {"tma": True})
    assert _costliest(close).cause == "sync_wgmma"


def test_below_what_cublas_attains_the_gap_and_what_is_left():
    s = loop(shares(issue=64.0, barrier=15.0), origin="triton", sm_clock_hz=1.58e9, pipe_tensor_active_pct=83.0)
    s.util["tensor"] = 80.0
    v = lc.tensor_gap(s)
    assert v.cause == "tensor_gap" and v.problem == "tensor cores at 80% of peak, 13 points below what cuBLAS attains"
    assert "at 1.58 GHz" in v.summary and "93% cuBLAS attains" in v.summary and "other instructions 64%" in v.summary
    assert v.cure.startswith("Fewer instructions beside the MMAs") and "tensor descriptors" in v.cure
