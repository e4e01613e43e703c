"""A real kernel before and after its copies lost their address arithmetic
(tests/data/lean-copies-h100: splitk64x64x8 at 1023^3 on the H100, 1.56 -> 1.28 warp instructions
per FFMA): the report notes the overhead where it caps the FP32 pipe, not after the fix, and the
ladder's comparison names the instructions per FFMA beside the time."""

from __future__ import annotations

import dataclasses

import pytest

from helpers.ncu_fixtures import opened_copy
from helpers.paths import DATA

RUN = DATA / "lean-copies-h100"


@pytest.fixture(scope="module")
def run():
    from profiler.catalogue.manifest import load_manifest

    specs = list(load_manifest())
    rung = next(s for s in specs if s.name == "splitk64x64x8")
    old = dataclasses.replace(rung, name="splitk64x64x8_old", index=len(specs) + 1)
    lean = dataclasses.replace(rung, name="splitk64x64x8_lean", predecessor="splitk64x64x8_old", index=len(specs) + 2)
    return opened_copy(RUN).diagnose(manifest=specs + [old, lean])


def _overhead_notes(d):
    return [n for n in d.verdict.notes if "of the issued instructions are FFMA" in n]


@pytest.mark.ncu
def test_the_overhead_is_noted_before_the_fix_only(run):
    old, lean = run.kernel("splitk64x64x8_old"), run.kernel("splitk64x64x8_lean")
    assert old.mix["all_per_math"] == pytest.approx(1.56, abs=0.01)
    assert lean.mix["all_per_math"] == pytest.approx(1.28, abs=0.01)
    (note,) = _overhead_notes(old)
    assert note.startswith("Only 64% of the issued instructions are FFMA")
    assert not _overhead_notes(lean)


@pytest.mark.ncu
def test_the_ladder_shows_fewer_instructions_per_ffma_and_the_time_they_cost(run):
    changes = run.kernel("splitk64x64x8_lean").changes.set_index("quantity")
    per = changes.loc["all_per_math"]
    assert per["predecessor"] == "splitk64x64x8_old"
    assert (per["before"], per["after"]) == (pytest.approx(1.56, abs=0.01), pytest.approx(1.28, abs=0.01))
    assert changes.loc["time_ms", "after"] / changes.loc["time_ms", "before"] == pytest.approx(0.85, abs=0.02)
