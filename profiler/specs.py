"""Hardware peaks, in one place.

The roofline and the reports take their peaks from the ncu report's own peak metrics at the clock
the report saw (see `profiler.extract`). The benchmark has no report, so it derives the FP32 peak
the same way ncu does: lanes per SM x SMs x 2 FLOP per FMA x the SM clock it actually saw.
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
