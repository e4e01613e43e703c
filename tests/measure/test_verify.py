"""The verification's tolerances (profiler.measure.verify): a wrong tile fails, rounding passes."""

import pytest

from profiler.measure.verify import bound_threshold, fp32_tolerance


def test_fp32_tolerance_catches_one_wrong_tile_but_not_rounding():
    assert fp32_tolerance(4096) == pytest.approx(4 * 2**-24 * 64)
    assert 1e-5 < fp32_tolerance(4096) < 2e-5
    # measured on the H200: a sequential-sum kernel against cuBLAS, K=512, 4.5e-7
    assert fp32_tolerance(512) > 5 * 4.5e-7
    assert bound_threshold(4096) == pytest.approx(2 * 4100 * 2**-24)
