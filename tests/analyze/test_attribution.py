"""Where a launch's samples go (profiler.analyze.attribution): each sample in one bucket by its
instruction, stall reason and region; waits for every wgmma group; copies narrower than 16 bytes."""

from __future__ import annotations

import pandas as pd
import pytest

from profiler.analyze.attribution import BUCKETS, attribute, bucket_of, copy_bytes


def code(rows: list[tuple]) -> pd.DataFrame:
    """One launch's SASS from (offset, sass, executed, {reason: samples}); pc = offset (base 0)."""
    out = []
    for offset, text, executed, samples in rows:
        row = {"report": "r", "launch": 0, "pc": offset, "offset": offset, "sass": text, "inst_executed": executed,
               "samples": float(sum(samples.values()))}
        row.update({f"samples_{k}": float(v) for k, v in samples.items()})
        out.append(row)
    frame = pd.DataFrame(out)
    return frame.fillna({c: 0.0 for c in frame.columns if c.startswith("samples")})


@pytest.mark.parametrize("cls, op, reason, bucket", [
    ("other", "WARPGROUP", "barrier", "mma_wait"),       # wgmma.wait_group: ncu files it as a barrier
    ("mma", "HGMMA", "gmma", "mma_wait"),
    ("mbarrier", "SYNCS", "long_scoreboard", "mbarrier"),
    ("other", "NANOSLEEP", "selected", "mbarrier"),
    ("shared_store", "STS", "long_scoreboard", "global_wait"),  # storing data a load has not brought yet
    ("global_load", "LDG", "lg_throttle", "copy_queue"),
    ("shared_load", "LDS", "mio_throttle", "shared_pipe"),
    ("barrier", "BAR", "barrier", "barrier"),
    ("ffma", "FFMA", "not_selected", "math"),
    ("mma", "HGMMA", "warpgroup_arrive", "math"),
    ("ffma", "FFMA", "short_scoreboard", "shared_pipe"),  # an FMA waiting for a shared load's data
    ("other", "IMAD", "dispatch_stall", "issue"),
])
def test_each_sample_lands_in_one_bucket(cls, op, reason, bucket):
    assert bucket_of(cls, op, reason) == bucket


def loop_with(body: list[tuple]) -> pd.DataFrame:
    """A prologue instruction, the body, a backward branch to the body's start, an epilogue store."""
    rows = [(0, "MOV R1, R2", 1, {"selected": 10})]
    rows += [(16 * (i + 1), text, 100, samples) for i, (text, samples) in enumerate(body)]
    end = 16 * (len(body) + 1)
    rows += [(end, "@P0 BRA 0x10", 100, {"branch_resolving": 0}), (end + 16, "STG.E [R2], R4", 1, {"long_scoreboard": 10})]
    return code(rows)


def test_shares_of_a_synchronous_wgmma_loop_add_up_to_all_samples():
    a = attribute(loop_with([
        ("LDGSTS.E.BYPASS.128 [R1], desc[UR4][R2.64]", {"lg_throttle": 10}),
        ("HGMMA.64x128x16.F32 R24, gdesc[UR8], R24", {"warpgroup_arrive": 20}),
        ("WARPGROUP.DEPBAR.LE gsb0, 0x0", {"barrier": 40}),
        ("IMAD.MOV.U32 R5, RZ, RZ, R6", {"long_scoreboard": 10}),
    ])).iloc[0]
    # 100 samples: prologue 10, epilogue 10, copies 10, math 20, MMA waits 40, loads 10
    assert a["samples"] == 100
    assert (a["prologue_pct"], a["epilogue_pct"], a["copy_queue_pct"], a["math_pct"], a["mma_wait_pct"],
            a["global_wait_pct"]) == (10, 10, 10, 20, 40, 10)
    assert sum(a[f"{b}_pct"] for b in BUCKETS) == pytest.approx(100.0)
    assert a["mma_wait_all_pct"] == 40 and bool(a["waits_all_mma"])
    assert a["narrow_copy_pct"] == 0  # 16-byte copies


def test_a_loop_that_keeps_a_group_in_flight_does_not_wait_for_all():
    a = attribute(loop_with([
        ("HGMMA.64x128x16.F32 R24, gdesc[UR8], R24", {"warpgroup_arrive": 20}),
        ("WARPGROUP.DEPBAR.LE gsb0, 0x1", {"barrier": 40}),
    ])).iloc[0]
    assert a["mma_wait_pct"] == pytest.approx(50.0) and a["mma_wait_all_pct"] == 0 and not a["waits_all_mma"]


def test_four_byte_copies_into_shared_memory_are_narrow():
    a = attribute(loop_with([
        ("LDGSTS.E [R1+0x4020], desc[UR4][R2.64]", {"lg_throttle": 30, "selected": 5}),
        ("@!P0 LDGSTS.E.BYPASS.128 [R1], desc[UR4][R2.64]", {"lg_throttle": 5}),
        ("HGMMA.64x128x8.F32.TF32 R24, gdesc[UR8], R24", {"warpgroup_arrive": 40}),
    ])).iloc[0]
    assert a["narrow_copy_pct"] == pytest.approx(35.0) and a["narrow_copy_bytes"] == 4


@pytest.mark.parametrize("text, size", [("LDG.E R4, desc[UR4][R2.64]", 4), ("LDG.E.64 R4, [R2]", 8),
                                        ("LDG.E.128 R4, [R2]", 16), ("@!P0 LDGSTS.E.BYPASS.128 [R1], [R2]", 16),
                                        ("LDGSTS.E [R1], [R2]", 4)])
def test_copy_width(text, size):
    assert copy_bytes(text) == size


def test_no_samples_no_shares():
    assert attribute(None).empty
    a = attribute(code([(0, "FFMA R1, R2, R3, R1", 10, {})])).iloc[0]
    assert a["samples"] == 0
