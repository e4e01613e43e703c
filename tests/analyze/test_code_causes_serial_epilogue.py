"""A real kernel's epilogue before and after the cure the serial_epilogue verdict prescribes
(tests/data/serial-epilogue-h100: splitk64x64x8 at 1023^3 on the H100): the diagnosis names the
cause before, and neither names it nor notes it after, when the kernel runs 1.4x as fast."""

from __future__ import annotations

import pytest

from helpers.ncu_fixtures import opened_copy
from helpers.paths import DATA

RUNS = DATA / "serial-epilogue-h100"


def diagnosed(which: str):
    (d,) = opened_copy(RUNS / which).diagnose().kernels
    return d


@pytest.mark.ncu
def test_before_the_loads_of_c_by_turns_are_the_verdict():
    d = diagnosed("before")
    assert d.verdict.cause == "serial_epilogue"
    assert d.verdict.summary.startswith("31% of the warps' samples wait in the epilogue (line 228)")
    assert d.verdict.cure.startswith("Read all of the thread's C into registers before its first store")


@pytest.mark.ncu
def test_after_reading_c_ahead_neither_verdict_nor_note():
    before, after = diagnosed("before"), diagnosed("after")
    assert after.verdict.cause != "serial_epilogue"
    assert not any("by turns" in n for n in after.verdict.notes)
    assert after.gflops > 1.35 * before.gflops
