"""A real kernel whose tiles reach past N (tests/data/wasted-math-h100: splitk128x256x8rs, 128x256
tiles over 16384x128x4096 on the H100) beside the same tile turned to fit (splitk256x128x8rs):
the diagnosis names the math on the padding as the cause, and rates both by the GEMM's 2MNK over
the time, so the ladder shows the 1.96x the fix bought instead of the same executed FLOP/s."""

from __future__ import annotations

import pytest

from helpers.ncu_fixtures import opened_copy
from helpers.paths import DATA

RUN = DATA / "wasted-math-h100"


@pytest.fixture(scope="module")
def run():
    return opened_copy(RUN).diagnose()


@pytest.mark.ncu
def test_tiles_past_n_are_the_verdict(run):
    d = run.kernel("splitk128x256x8rs")
    assert d.verdict.cause == "wasted_math" and d.verdict.bound == "waste"
    assert d.executed_per_gemm_flop == pytest.approx(2.0, rel=0.01)
    assert d.verdict.problem == "50% of its math is past the matrix's edges"
    assert d.verdict.cure.startswith("Tiles that fit C: N = 128 is its short side")


@pytest.mark.ncu
def test_the_fitted_tiles_waste_nothing_and_show_the_gain(run):
    wide, tall, small = (run.kernel(n) for n in ("splitk128x256x8rs", "splitk256x128x8rs", "splitk64x64x8rs"))
    for d in (tall, small):
        assert d.verdict.cause != "wasted_math" and d.executed_per_gemm_flop == pytest.approx(1.0, abs=0.01)
        assert not any("2MNK" in n for n in d.verdict.notes)
    # executed FLOP/s read the same; the GEMM's rate is what the user waits for
    assert tall.executed_gflops == pytest.approx(wide.executed_gflops, rel=0.05)
    assert tall.gflops == pytest.approx(1.96 * wide.gflops, rel=0.02)
    change = tall.changes.set_index("quantity").loc["gflops"]
    assert change["predecessor"] == "splitk128x256x8rs" and change["after"] / change["before"] == pytest.approx(1.96, rel=0.02)


@pytest.mark.ncu
def test_a_copies_wavefronts_per_line_are_not_called_bank_conflicts(run):
    """The 128x256 tile's A copies: a warp's 4-byte copies read 4 rows (4 lines), 4 wavefronts where
    ncu's ideal is 1, into 32 different banks: a note about lines, no bank-conflict note."""
    d = run.kernel("splitk128x256x8rs")
    cp_async = d.conflicts.set_index("kind").loc["cp.async"]
    assert cp_async["status"] == "lines" and cp_async["excess_pct"] > 50  # ncu: 64% "conflicts"
    assert not any(n.startswith("Bank conflicts on cp.async") for n in d.verdict.notes)
    assert any(n.startswith("cp.async copies fill shared memory one wavefront per 128-byte global line")
               for n in d.verdict.notes)
    assert d.conflict_lines.empty  # no source line is listed as causing bank conflicts
