"""Where a launch's sampled time goes: its PC samples attributed to what they wait for (pure).

PC samples are taken at a fixed interval, so a share of them is a share of the warps' time. Each
sample sits at one instruction with one stall reason; together they say what the time is spent
on. The main loop's samples (`regions.label_regions`) are split by what they wait for, the
prologue's and epilogue's are counted whole:

- math:        at an MMA, FFMA or DFMA that issues or waits for its pipe (the math at work);
- mma_wait:    at wgmma's waits and fences (WARPGROUP.*): waiting for MMAs to retire;
  mma_wait_all: of those, at waits for every group in flight (`wgmma.wait_group 0`), which leave
               no MMA issued while they wait;
- global_wait: waiting for data from global memory (long scoreboard): loads not hidden;
- copy_queue:  held back by a full load/store queue (LG throttle): too many memory instructions;
- shared_pipe: waiting for the shared-memory pipe or its data (MIO throttle, short scoreboard);
- barrier:     waiting at __syncthreads;
- mbarrier:    waiting on mbarriers or backing off (NANOSLEEP) for an async pipeline's stage;
- issue:       everything else the loop issues: address arithmetic, loop control, conversions;
- prologue, epilogue: everything before and after the main loop.

The buckets cover every sample once (shares in % add up to 100). Causes (`cause_table`) claim
the buckets they explain; the largest claimed cost leads the verdict.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .instruction_mix import SLEEP_OPCODE
from .regions import label_regions
from .values import per_launch

BUCKETS = ("math", "mma_wait", "global_wait", "copy_queue", "shared_pipe", "barrier", "mbarrier", "issue",
           "prologue", "epilogue")
# Stall reasons of a math instruction that mean its pipe is at work (issuing, or busy with the
# ones before it), not waiting for data.
_PIPE_REASONS = {"selected", "not_selected", "dispatch_stall", "math_pipe_throttle", "warpgroup_arrive", "wait"}
_MATH_CLASSES = {"mma", "ffma", "fp64"}
_WAIT_ALL = re.compile(r"WARPGROUP\.DEPBAR\.LE\s+gsb0\s*,\s*0x0\b")
# A global copy or load narrower than this (bytes) moves a tile in more instructions than it needs.
WIDE_COPY_BYTES = 16
_WIDTH = re.compile(r"\.(128|64)\b")
COLUMNS = ["report", "launch", "samples", *[f"{b}_pct" for b in BUCKETS], "mma_wait_all_pct", "waits_all_mma",
           "narrow_copy_pct", "narrow_copy_bytes"]


def attribute(sass: pd.DataFrame | None) -> pd.DataFrame:
    """One row per launch: its sample count, the share (%) of its samples in each bucket, the
    share at waits for every wgmma group (mma_wait_all_pct), whether every wgmma wait in its
    main loop is such a wait (waits_all_mma: no MMA is left in flight while the loop goes on), and
    the share at main-loop copies into shared memory (LDGSTS) narrower than 16 bytes with the
    width of the busiest of them (narrow_copy_pct, narrow_copy_bytes)."""
    return per_launch(sass, _shares, COLUMNS, need="samples")


def bucket_of(cls: str, op: str, reason: str) -> str:
    """The bucket of one main-loop sample: an instruction of class `cls` and base opcode `op`
    (`instruction_mix`), stalled for `reason` (a stall-table reason)."""
    if op == "WARPGROUP" or reason == "gmma":
        return "mma_wait"
    if cls == "mbarrier" or op == SLEEP_OPCODE or reason == "sleeping":
        return "mbarrier"
    if reason == "long_scoreboard":
        return "global_wait"
    if reason == "lg_throttle":
        return "copy_queue"
    if reason in ("mio_throttle", "short_scoreboard"):
        return "shared_pipe"
    if cls == "barrier" or reason == "barrier":
        return "barrier"
    if cls in _MATH_CLASSES and reason in _PIPE_REASONS:
        return "math"
    return "issue"


def _shares(group: pd.DataFrame) -> dict:
    out = {"samples": 0.0, **{f"{b}_pct": np.nan for b in BUCKETS}, "mma_wait_all_pct": np.nan, "waits_all_mma": False,
           "narrow_copy_pct": np.nan, "narrow_copy_bytes": np.nan}
    labelled = label_regions(group)
    if labelled is None:
        return out
    g, ops, classes, region = labelled
    reasons = [c for c in g.columns if c.startswith("samples_")]
    total = g["samples"].fillna(0).to_numpy(dtype="float64").sum()
    sums = dict.fromkeys(BUCKETS, 0.0)
    texts = g["sass"].astype(str).to_numpy()
    wait_all = np.array([bool(_WAIT_ALL.search(t)) for t in texts])
    in_loop = region == 1
    for name, where in (("prologue", region == 0), ("epilogue", region == 2)):
        sums[name] = g["samples"].fillna(0).to_numpy(dtype="float64")[where].sum()
    loop_ops, loop_classes = ops.to_numpy()[in_loop], classes[in_loop]
    all_waits = 0.0
    for column in reasons:
        counts = g[column].fillna(0).to_numpy(dtype="float64")[in_loop]
        reason = column[len("samples_"):]
        for i in np.flatnonzero(counts > 0):
            sums[bucket_of(loop_classes[i], loop_ops[i], reason)] += counts[i]
        all_waits += counts[wait_all[in_loop]].sum()
    attributed = sum(sums.values())
    sums["issue"] += max(total - attributed, 0.0)  # samples without a reason column: issued work
    out.update({f"{b}_pct": 100.0 * v / total for b, v in sums.items()})
    out["samples"] = total
    out["mma_wait_all_pct"] = 100.0 * all_waits / total
    depbars = [t for t, op, r in zip(texts, ops, region) if op == "WARPGROUP" and "DEPBAR" in t and r == 1]
    out["waits_all_mma"] = bool(depbars) and all(_WAIT_ALL.search(t) for t in depbars)
    samples = g["samples"].fillna(0).to_numpy(dtype="float64")
    widths = np.array([copy_bytes(t) for t in texts])
    narrow = in_loop & (classes == "async_copy") & (widths < WIDE_COPY_BYTES)
    out["narrow_copy_pct"] = 100.0 * samples[narrow].sum() / total
    if narrow.any():
        out["narrow_copy_bytes"] = float(widths[narrow][samples[narrow].argmax()])
    return out


def copy_bytes(sass: str) -> int:
    """Bytes one thread moves with a global load or copy (`LDG.E.128`: 16; `LDGSTS.E`: 4)."""
    found = _WIDTH.search(sass.split()[0] if sass.split() else "")
    if found is None and sass.lstrip().startswith("@"):
        parts = sass.split()
        found = _WIDTH.search(parts[1]) if len(parts) > 1 else None
    return int(found.group(1)) // 8 if found else 4
