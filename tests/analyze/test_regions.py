"""regions.py: the main loop read off the SASS control flow (the innermost backward branch around
the math), the count-based span when there is none; tf32x3wg's real report, whose k loop holds
the split pass of the next tile in an inner loop run more often than its wgmmas."""

from __future__ import annotations

import pandas as pd
import pytest
from helpers.ncu_fixtures import tf32_diagnosis, tf32_run

from profiler.analyze.regions import branch_targets, time_regions

BASE = 0x7F00_0000_0000


def sass(rows: list[tuple[str, float, float]], with_pc: bool = True) -> pd.DataFrame:
    """One launch's SASS, 16 bytes per instruction: (text, inst_executed, samples); a branch's
    target is written as `BRA -><row>` and becomes the absolute address as ncu prints it."""
    out = []
    for i, (text, executed, samples) in enumerate(rows):
        if "->" in text:
            head, row = text.split("->", 1)
            text = f"{head}{hex(BASE + 16 * int(row))}"
        out.append({"report": "r", "launch": 0, "offset": 16 * i, "pc": BASE + 16 * i if with_pc else pd.NA,
                    "sass": text, "inst_executed": executed, "samples": samples, "line": i})
    frame = pd.DataFrame(out)
    frame["pc"] = frame["pc"].astype("Int64")
    return frame


# A k loop (rows 1-9) whose MMAs are followed by an inner loop run 4x as often (rows 5-7, the
# split of the next tile), then a store epilogue (rows 10-11).
SPLIT_LOOP = [
    ("MOV R1, R2", 1, 1),                      # 0 prologue
    ("HMMA.16816.F32 R4, R8, R12, R4", 100, 10),  # 1 loop top
    ("HMMA.16816.F32 R4, R8, R12, R4", 100, 10),  # 2
    ("IADD3 R1, R1, 1, RZ", 100, 1),           # 3
    ("@!P2 MOV R9, R10", 30, 0),               # 4 run on some k steps only: ends the count-based span
    ("LDS R20, [R3]", 400, 30),                # 5 inner loop: split pass
    ("STS [R3], R21", 400, 30),                # 6
    ("@P1 BRA ->5", 400, 2),                   # 7 inner back-edge
    ("BAR.SYNC 0x0", 100, 5),                  # 8
    ("@P0 BRA ->1", 100, 1),                   # 9 k loop's back-edge
    ("STG.E [R6], R4", 1, 8),                  # 10 epilogue
    ("EXIT", 1, 2),                            # 11
]


def test_branch_targets_are_offsets():
    t = branch_targets(sass(SPLIT_LOOP))
    assert t[7] == 80 and t[9] == 16 and (t[[0, 1, 10, 11]] == -1).all()


def test_the_k_loop_holds_its_inner_split_pass():
    r = time_regions(sass(SPLIT_LOOP)).iloc[0]
    total = sum(s for *_, s in SPLIT_LOOP)
    assert r["prologue_pct"] == pytest.approx(100 * 1 / total)
    assert r["loop_pct"] == pytest.approx(100 * 89 / total)
    assert r["epilogue_pct"] == pytest.approx(100 * 10 / total)
    assert r["epilogue_line"] == 10


def test_the_innermost_enclosing_branch_wins_over_an_outer_tile_loop():
    # a persistent kernel: an outer tile loop (back-edge row 11 -> 0) around the k loop
    rows = [*SPLIT_LOOP[:11], ("@P2 BRA ->0", 1, 1), ("EXIT", 1, 2)]
    r = time_regions(sass(rows)).iloc[0]
    assert r["epilogue_line"] == 10 and r["prologue_pct"] > 0


# tailsk128x256x8's shape: the whole tiles' k loop (rows 1-5), the stream-K row's copy of it run
# a third as often (rows 8-12, after a fix-up), an epilogue loop of one FFMA (rows 14-15: a third
# of a copy's math, not a copy), the store.
TWO_COPIES = [
    ("MOV R1, R2", 1, 1),                          # 0 prologue
    ("FFMA R4, R8, R12, R4", 300, 30),             # 1 whole tiles' loop
    ("FFMA R5, R9, R13, R5", 300, 30),             # 2
    ("FFMA R6, R10, R14, R6", 300, 0),             # 3
    ("LDS.128 R8, [R3]", 300, 6),                  # 4
    ("@P0 BRA ->1", 300, 3),                       # 5
    ("STG.E.128 [R6], R4", 1, 2),                  # 6 its store
    ("EXIT", 1, 1),                                # 7
    ("FFMA R4, R8, R12, R4", 100, 12),             # 8 the stream-K copy
    ("FFMA R5, R9, R13, R5", 100, 12),             # 9
    ("FFMA R6, R10, R14, R6", 100, 0),             # 10
    ("LDS.128 R8, [R3]", 100, 4),                  # 11
    ("@P1 BRA ->8", 100, 1),                       # 12
    ("ATOMG.E.ADD [R6], R1", 1, 5),                # 13 fix-up
    ("FFMA R4, R4, 2, R20", 8, 2),                 # 14 epilogue loop
    ("@P2 BRA ->14", 8, 1),                        # 15
    ("STG.E.128 [R6], R4", 1, 3),                  # 16
]


def test_a_second_copy_of_the_main_loop_is_loop_time():
    """Two copies of the k loop in one launch: both are the main loop; code between and after them
    (the fix-up, an epilogue loop with less math than the k loop) is not."""
    r = time_regions(sass(TWO_COPIES)).iloc[0]
    total = sum(s for *_, s in TWO_COPIES)
    assert r["loop_pct"] == pytest.approx(100 * (69 + 29) / total)
    assert r["epilogue_pct"] == pytest.approx(100 * (2 + 1 + 5 + 2 + 1 + 3) / total)
    assert r["prologue_pct"] == pytest.approx(100 * 1 / total)


def test_without_pcs_the_span_of_the_hot_math_decides():
    # the count rule: the span of the MMAs widened to neighbours run as often (rows 1-3), so the
    # inner loop run more often stays out of it: the fallback, not the answer when pcs exist
    r = time_regions(sass(SPLIT_LOOP, with_pc=False)).iloc[0]
    total = sum(s for *_, s in SPLIT_LOOP)
    assert r["loop_pct"] == pytest.approx(100 * 21 / total)


def test_a_branch_that_does_not_enclose_the_math_is_not_the_loop():
    # a retry loop after the MMAs (rows 5-7) alone is not the main loop: fall back to the counts
    rows = [row for row in SPLIT_LOOP if "->1" not in row[0]]
    r = time_regions(sass(rows)).iloc[0]
    assert r["loop_pct"] < 50


@pytest.mark.ncu
def test_tf32x3wg_main_loop_holds_most_samples():
    run = tf32_run()
    regions = time_regions(run.sass).set_index("report")
    wg = regions.loc[[r for r in regions.index if "tf32x3wg" in r][0]]
    assert wg["loop_pct"] > 80 and wg["epilogue_pct"] < 20
    for name in ("tf32x1", "tf32x3"):  # mma.sync rungs: one k loop, as before
        row = regions.loc[[r for r in regions.index if f"/{name}_" in r][0]]
        assert row["loop_pct"] > 90


@pytest.mark.ncu
def test_tf32x3wg_verdict_is_not_epilogue():
    from profiler.analyze.diagnosis_record import diagnosis_records

    records = {r["kernel"]: r for r in diagnosis_records(tf32_diagnosis())}
    assert records["tf32x3wg"]["cause"] != "epilogue", records["tf32x3wg"]["problem"]


def test_barrier_stalls_at_wgmma_waits_are_told_apart():
    """ncu files a warp waiting in wgmma.wait_group (WARPGROUP.DEPBAR) under barrier stalls; the
    share of them there is what keeps the barrier cause from calling it a __syncthreads."""
    frame = sass([("HGMMA.64x128x16.F32 R24, gdesc[UR4], R24", 100, 10), ("WARPGROUP.DEPBAR.LE gsb0, 0x0", 100, 30),
                  ("BAR.SYNC.DEFER_BLOCKING 0x0", 10, 10), ("@P0 BRA ->0", 100, 1), ("EXIT", 1, 0)])
    frame["samples_barrier"] = [0.0, 30.0, 10.0, 0.0, 0.0]
    (row,) = time_regions(frame).to_dict("records")
    assert row["barrier_stall_at_wgmma_wait_pct"] == pytest.approx(75.0)
    assert pd.isna(time_regions(frame.drop(columns="samples_barrier")).iloc[0]["barrier_stall_at_wgmma_wait_pct"])


def test_waits_count_only_inside_load_after_store_windows():
    """C read, used and written by turns: the waits between a load issued right after a store and
    the next store count; the first load (no store before it), loads issued back to back (a split's
    partials) and waits after the last store (a producer's spin) do not."""
    import numpy as np

    from profiler.analyze.regions import waits_on_loads_after_store

    L, S, X = "global_load", "global_store", "other"
    classes = np.array([L, X, S, L, X, S, L, X, S, L, L, X, S, X])
    waits = np.array([0, 7, 0, 0, 5, 0, 0, 3, 0, 0, 0, 11, 0, 13], dtype=float)
    assert waits_on_loads_after_store(classes, waits) == 5 + 3  # not 7 (first load), 11 (two loads), 13 (after)
    assert waits_on_loads_after_store(np.array([S, L, X]), np.array([0, 0, 9.0])) == 0  # no store closes it


def test_the_epilogue_share_of_serial_waits_is_of_all_samples():
    rows = [("MOV R1, R2", 1, 2), ("FFMA R4, R8, R12, R4", 100, 40), ("@P0 BRA ->1", 100, 2),
            ("LDG.E R5, [R6]", 1, 0), ("STG.E [R6], R5", 1, 0), ("LDG.E R7, [R8]", 1, 0), ("FMUL R7, R7, R9", 1, 20),
            ("STG.E [R8], R7", 1, 0), ("EXIT", 1, 0)]
    frame = sass(rows).assign(samples_long_scoreboard=[0, 0, 0, 0, 0, 0, 16, 0, 0])
    r = time_regions(frame).iloc[0]
    assert r["epilogue_long_scoreboard_pct"] == pytest.approx(100 * 16 / 64)
    assert r["epilogue_serial_load_wait_pct"] == pytest.approx(100 * 16 / 64)
    r = time_regions(sass(rows)).iloc[0]  # no stall columns: not known
    assert pd.isna(r["epilogue_serial_load_wait_pct"])


def test_warps_asleep_after_the_loop_are_parked_not_the_epilogue_at_work():
    """A warp-specialised kernel's idle role sleeps on an mbarrier after the loop (cuBLAS's nvjet
    kernel at 64x4096x4096: 44% of its samples at one NANOSLEEP): the sleep is counted apart and
    the epilogue's hottest line is the hottest one at work; the epilogue verdict reads the share
    at work."""
    from helpers.cause_signals import signals

    from profiler.analyze.code_causes import epilogue

    rows = [("MOV R1, R2", 1, 2), ("HGMMA.64x64x16.F32 R24, gdesc[UR4], R24", 100, 30), ("@P0 BRA ->1", 100, 2),
            ("UTMASTG.2D [UR8], [UR6]", 1, 10),
            ("SYNCS.PHASECHK.TRANS64.TRYWAIT P3, [UR22+0x10], R5", 90, 0),
            ("@!P3 NANOSLEEP.SYNCS 0xc350", 90, 50), ("@!P3 BRA ->4", 90, 1), ("EXIT", 1, 5)]
    r = time_regions(sass(rows)).iloc[0]
    assert r["epilogue_pct"] == pytest.approx(100 * 66 / 100) and r["epilogue_parked_pct"] == pytest.approx(50.0)
    assert r["epilogue_line"] == 3 and r["epilogue_line_pct"] == pytest.approx(10.0)
    assert epilogue(signals(regions=r.to_dict())) is None  # 16% at work after the loop
    awake = time_regions(sass([(t, e, 0 if "NANOSLEEP" in t else n) for t, e, n in rows[:5]]
                              + [("STG.E [R6], R4", 90, 50)] + rows[6:])).iloc[0]
    assert awake["epilogue_parked_pct"] == 0.0 and awake["epilogue_line"] == 5
    assert epilogue(signals(regions=awake.to_dict())).cause == "epilogue"


def test_the_ladder_tells_the_time_after_the_main_loop():
    """The committed H200 run: wgmma's tensor-core loop leaves its C epilogue most of the time
    (the stalls at its C load that issue 13 quotes), and the ladder row says so against wmma_smem;
    regbank128x256x8 changes only its register banks, and its row says the same."""
    from helpers.paths import SAMPLE_RUN

    from profiler.run import open_run

    kernels = {d.name: d for d in open_run(SAMPLE_RUN).diagnose().kernels}
    wgmma = kernels["wgmma"].changes.set_index("quantity").loc["epilogue_pct"]
    assert wgmma["change"] == "18% -> 63%" and wgmma["better"] is False
    regbank = kernels["regbank128x256x8"].changes.set_index("quantity").loc["epilogue_pct"]
    assert not regbank["changed"] and regbank["change"] == "4.8% (same)"


def test_lone_loads_are_the_ones_used_before_a_third_goes_out():
    """A group is the loads issued since the last use of a loaded register; the first instruction
    that reads one of them waits for the group. Groups of one or two wait a latency each (a loop of
    run-time length, an edge check between loads); a group of four is loads issued together; a
    group opened right after a store is the serial epilogue's, counted there."""
    import numpy as np

    from profiler.analyze.instruction_mix import OPCODE_CLASSES, opcode
    from profiler.analyze.regions import waits_on_lone_loads

    code = [("LDG.E.128 R16, desc[UR6][R2.64]", 0), ("FADD R40, R40, R17", 7),     # one load, used: 7
            ("LDG.E.64 R20, desc[UR6][R2.64+0x10]", 0), ("LDG.E R24, desc[UR6][R4.64]", 0),
            ("FFMA R41, R21, R9, R41", 5),                                              # two, then a use: 5
            ("FADD R42, R42, R24", 3),                                                  # same group: no second wait
            *[(f"LDG.E R{30 + i}, desc[UR6][R{4 + 2 * i}.64]", 0) for i in range(4)],
            ("FADD R43, R30, R33", 11),                                                 # four together: not lone
            ("STG.E desc[UR6][R2.64], R43", 0), ("LDG.E R50, desc[UR6][R6.64]", 0),
            ("FMUL R51, R50, R9", 13),                                                  # behind a store: not here
            ("LDG.E R52, desc[UR6][R8.64]", 0), ("STG.E desc[UR6][R8.64], R52", 17)]   # a store that reads it: 17
    texts = [t for t, _ in code]
    classes = np.array([OPCODE_CLASSES.get(opcode(t), "other") for t in texts])
    waits = np.array([w for _, w in code], dtype=float)
    counted = waits_on_lone_loads(texts, classes, waits)
    assert counted.sum() == 7 + 5 + 17 and counted[1] == 7 and counted[-1] == 17


def test_the_share_of_lone_load_waits_is_of_all_samples_outside_the_main_loop():
    rows = [("LDG.E R3, desc[UR4][R2.64]", 1, 4), ("IMAD R5, R3, 0x4, RZ", 1, 6),   # prologue: a lone load
            ("FFMA R4, R8, R12, R4", 100, 40), ("@P0 BRA ->2", 100, 2),
            ("LDG.E R7, desc[UR4][R8.64]", 1, 0), ("FMUL R7, R7, R9", 1, 12), ("EXIT", 1, 0)]
    frame = sass(rows).assign(samples_long_scoreboard=[0, 6, 0, 0, 0, 12, 0])
    r = time_regions(frame).iloc[0]
    assert r["lone_load_wait_pct"] == pytest.approx(100 * 18 / 64)
    assert r["lone_load_at"] == "line 5"  # the FMUL's 12 outweigh the IMAD's 6
    assert time_regions(frame.assign(file="/src/kernels/fix.cuh")).iloc[0]["lone_load_at"] == "fix.cuh:5"
    assert pd.isna(time_regions(sass(rows)).iloc[0]["lone_load_wait_pct"])  # no stall columns: not known
