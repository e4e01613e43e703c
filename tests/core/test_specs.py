"""The GPU's peak rates (profiler.specs) from its lanes, SMs and clock."""

import math

import pytest

from profiler.specs import peak_flops, peak_fp32_flops


def test_peak_fp32_is_lanes_times_sms_times_two_times_clock():
    assert peak_fp32_flops((9, 0), 132, 1.98e9) == pytest.approx(66.9e12, rel=1e-3)


def test_peaks_per_tier():
    clock = 1.98e9
    assert peak_flops("fp32", (9, 0), 132, clock) == peak_fp32_flops((9, 0), 132, clock) == 256 * 132 * clock
    assert peak_flops("fp16", (9, 0), 132, clock) == 4096 * 132 * clock
    assert peak_flops("fp32-tc", (9, 0), 132, clock) == 2048 * 132 * clock  # 535 TFLOP/s: dense TF32, H100/H200
    assert peak_flops("fp32-tc", (8, 0), 108, 1.41e9) == pytest.approx(156e12, rel=0.01)  # A100's datasheet TF32
    assert math.isnan(peak_flops("fp32-tc", (8, 6), 84, clock))  # not known here: NaN, not a guess
