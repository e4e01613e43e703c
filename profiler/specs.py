"""Hardware peaks, in one place.

The roofline and the reports take their peaks from the ncu report's own peak metrics at the clock
the report saw (see `profiler.extract`). The benchmark has no report, so it derives the peak of its
tier the same way ncu does: work per SM per clock x SMs x the SM clock it actually saw.
"""

from __future__ import annotations

# FP32 lanes per SM by compute capability (CUDA Programming Guide, "Arithmetic Instructions":
# 32-bit floating-point add, multiply, multiply-add per clock per multiprocessor).
FP32_LANES_PER_SM = {
    (7, 0): 64, (7, 5): 64,
    (8, 0): 64, (8, 6): 128, (8, 7): 128, (8, 9): 128,
    (9, 0): 128,
    (10, 0): 128, (12, 0): 128,
}


def fp32_lanes_per_sm(cc: tuple[int, int]) -> int:
    return FP32_LANES_PER_SM.get(cc, 128)


def peak_fp32_flops(cc: tuple[int, int], sm_count: int, sm_clock_hz: float) -> float:
    """FP32 FMA peak in FLOP/s at the given SM clock (an FMA counts as 2 FLOP)."""
    return fp32_lanes_per_sm(cc) * sm_count * 2 * sm_clock_hz


# Dense tensor-core FLOPs per SM per clock, FP32 accumulate, by input type. FP16 on sm_80: A100's
# 312 TFLOP/s = 108 SMs x 1.41 GHz x 2048; on sm_90: 4096, the value ncu 2025.3 reports on the H200
# (sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum.peak_sustained). TF32 is half that:
# A100's 156 TFLOP/s; on sm_90, 2048 for warpgroup MMA (..._hgmma_src_tf32_dst_fp32_...) and 1365
# for mma.sync (..._hmma_src_tf32_dst_fp32_...), the same report. Others: unknown here.
TENSOR_FP16_FLOP_PER_SM_CLOCK = {(8, 0): 2048, (9, 0): 4096}
TENSOR_TF32_FLOP_PER_SM_CLOCK = {(8, 0): 1024, (9, 0): 2048}

# A tier's peak key (tiers.Tier.peak) -> work per SM per clock for a compute capability (None: unknown).
PEAKS = {
    "fp32": lambda cc: 2 * fp32_lanes_per_sm(cc),
    "tensor_fp16": lambda cc: TENSOR_FP16_FLOP_PER_SM_CLOCK.get(tuple(cc)),
    "tensor_tf32": lambda cc: TENSOR_TF32_FLOP_PER_SM_CLOCK.get(tuple(cc)),
}


def peak_flops(tier: str, cc: tuple[int, int], sm_count: int, sm_clock_hz: float) -> float:
    """The peak a kernel of `tier` is measured against (its `Tier.peak`): FP32 FMA for "fp32",
    the dense FP16 tensor-core rate for "fp16", the dense TF32 one for "fp32-tc" (NaN where this
    GPU's rate is not known)."""
    from .tiers import tier as tier_record

    per_clock = PEAKS[tier_record(tier).peak](cc)
    return float("nan") if per_clock is None else per_clock * sm_count * sm_clock_hz


# What cuBLAS attains on the tensor cores or the FMA pipe, in % of the peak at the clock it ran (ncu,
# --clock-control none), by the math a launch does: the yardstick "at the roof" is held to when a
# run has no cuBLAS launch of the same math at the same shape. Measured on an H200 (the foreign
# corpus, tests/data/foreign-h200/torch: FP16 at 8192^3, TF32 and strict FP32 at 4096^3); an H100
# read 93.5 / 88.1 / 77.2 the same way.
ATTAINABLE_PCT = {"FP16": 93.4, "TF32": 88.2, "FP32": 76.6}
ATTAINABLE_SOURCE = "cuBLAS on an H200, FP16 at 8192^3, TF32 and FP32 at 4096^3"
# A launch within this share of what is attainable for its math is at the roof: what is left is
# noise of clocks and shapes, not a cause.
ROOF_SHARE = 0.9
