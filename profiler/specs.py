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


# Dense FP16-input tensor-core FLOPs per SM per clock, FP32 accumulate. sm_80: A100's 312 TFLOP/s
# = 108 SMs x 1.41 GHz x 2048. sm_90: 4096, the value ncu 2025.3 reports on the H200
# (sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum.peak_sustained). Others: unknown here.
TENSOR_FP16_FLOP_PER_SM_CLOCK = {(8, 0): 2048, (9, 0): 4096}


def peak_flops(tier: str, cc: tuple[int, int], sm_count: int, sm_clock_hz: float) -> float:
    """The peak a kernel of `tier` is measured against: FP32 FMA for "fp32", the dense FP16
    tensor-core rate for "fp16" (NaN where this GPU's rate is not known)."""
    if tier == "fp16":
        per_clock = TENSOR_FP16_FLOP_PER_SM_CLOCK.get(tuple(cc))
        return float("nan") if per_clock is None else per_clock * sm_count * sm_clock_hz
    return peak_fp32_flops(cc, sm_count, sm_clock_hz)
