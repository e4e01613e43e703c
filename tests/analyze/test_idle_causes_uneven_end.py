"""A real launch of one uneven wave (tests/data/uneven-h200: splitk64x64x8t4 at 1362x925x247 on an
H200, beside cuBLAS): 330 blocks of eight warps, at most four an SM, so 66 SMs run three and 66
two, and the SMs are busy 70% of the launch. The diagnosis names the SMs left idle as the cause,
not the scattered stores of C that the counters also show (4.5x the sectors, but 0.7% of the
samples); cuBLAS at the same shape, 645 blocks busy 89%, is not said to end unevenly."""

from __future__ import annotations

import pytest

from helpers.ncu_fixtures import opened_copy
from helpers.paths import DATA

RUN = DATA / "uneven-h200"


@pytest.fixture(scope="module")
def run():
    return opened_copy(RUN).diagnose()


@pytest.mark.ncu
def test_one_wave_of_three_and_two_blocks_an_sm_is_the_verdict(run):
    v = run.kernel("splitk64x64x8t4").verdict
    assert v.cause == "uneven_end" and v.bound == "launch"
    assert v.problem == "blocks that end unevenly (the SMs idle 30% of the launch)"
    assert "66 SMs run 3 blocks, the other 66 2" in v.evidence[0]
    assert "smaller blocks" in v.cure
    assert not any("end unevenly" in n for n in v.notes)  # said once, as the verdict


@pytest.mark.ncu
def test_cublas_at_the_same_shape_does_not_end_unevenly(run):
    v = run.kernel("cublas").verdict
    assert v.cause != "uneven_end"
