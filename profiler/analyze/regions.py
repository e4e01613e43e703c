"""Where a launch's time goes in its code: the share of PC samples before, in and after the main
loop, and the line that holds most of a region's samples.

The main loop is read off the control flow: the innermost backward branch (a BRA whose target
precedes it) whose span [target, branch] holds all the hot math instructions (MMA, else FFMA or
DFMA, executed at least `HOT_SHARE` as often as the busiest: an epilogue's alpha * acc FFMAs stay out). A loop body may hold more than the math: a warp-specialised kernel splits or converts the
next tile inside the k loop, often in an inner loop of its own run more often than the MMAs, and
that work is the loop's. Without such a branch (no PCs, a fully unrolled k), the main loop is the
span of the math executed at least `HOT_SHARE` as often as the busiest of it, widened to
neighbours executed as often (the loop body runs once per k step, prologue and epilogue once per
tile; an epilogue may loop too, so the span is set by the math). PC samples are
taken at a fixed interval, so a region's share of them is its share of the warps' time. A kernel
whose epilogue holds a large share (the C load and store of a short-K GEMM, a slow store pattern)
is told so, with the line, instead of being told to speed up a loop that is not the problem.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .instruction_mix import OPCODE_CLASSES, SLEEP_OPCODE, opcodes, operands
from .techniques import HOT_SHARE
from .values import file_name, per_launch

REGIONS = ("prologue", "loop", "epilogue")
# Global loads in flight together at most this many: "lone" (`waits_on_lone_loads`). One or two
# loads a latency is a chain (an epilogue reading a row's two float4s of C behind an edge check);
# a pipelined epilogue or sum keeps 8-16 in flight.
LONE_LOADS = 2
# Instruction classes whose share of the samples a verdict may quote (`<class>_samples_pct`).
SAMPLED_CLASSES = ("atomic", "mbarrier", "barrier", "global_store", "local_load", "local_store", "fp64")
_COLUMNS = ["report", "launch", *[f"{r}_pct" for r in REGIONS], "epilogue_parked_pct", "epilogue_line", "epilogue_line_pct",
            "epilogue_code", "epilogue_top_reason", *[f"{c}_samples_pct" for c in SAMPLED_CLASSES],
            "barrier_stall_at_wgmma_wait_pct", "epilogue_long_scoreboard_pct", "epilogue_serial_load_wait_pct",
            "lone_load_wait_pct", "lone_load_at"]


def time_regions(sass: pd.DataFrame) -> pd.DataFrame:
    """Per launch: prologue_pct, loop_pct, epilogue_pct (shares of all PC samples), and of the
    epilogue's the share parked at sleeps (`epilogue_parked_pct`); the epilogue's hottest source
    line (sleeps left out) with its share of all samples, its SASS and its top stall reason; and the
    share of samples at atomics, mbarrier waits, barriers, global stores, local memory and FP64 math;
    the epilogue's long-scoreboard samples, those of them at loads issued between stores
    (`waits_on_loads_after_store`) and, outside the main loop, those at the first use of loads
    issued one or two at a time (`waits_on_lone_loads`), as shares of all samples, with the source
    line that holds most of the latter (`lone_load_at`)."""
    return per_launch(sass, _split, _COLUMNS, need="samples")


def waits_on_loads_after_store(classes: np.ndarray, waits: np.ndarray) -> float:
    """The long-scoreboard samples (`waits`, per instruction in program order) inside the windows
    "a global load issued right after a global store, up to the next store": C read, used and
    written by turns, one load at a time (a split's partials, loaded back to back after its own
    was stored, and waits past the last store, e.g. a producer warp's spin, are not). The
    compiler keeps a load behind a store it cannot prove writes elsewhere (C's rows, through one
    pointer), so each such load waits a full memory latency where loads issued together would
    wait one."""
    serial = window = 0.0
    stored = open_ = False
    for cls, w in zip(classes, waits):
        if cls == "global_store":
            serial += window if open_ else 0.0  # the window closes at a store: its waits count
            stored, open_, window = True, False, 0.0
        elif cls == "global_load":
            open_, stored, window = stored, False, 0.0  # another load first: not one at a time
        else:
            window += w
    return serial


_REGISTER = re.compile(r"\bR(\d+)(\.64)?\b")


def _registers(operand_texts: list[str]) -> set[int]:
    """The general registers the operands name ('[R16.64+0x8]' names R16 and R17)."""
    out = set()
    for text in operand_texts:
        for m in _REGISTER.finditer(text):
            out.update((int(m.group(1)), int(m.group(1)) + 1) if m.group(2) else (int(m.group(1)),))
    return out


_LDG_MODIFIERS = re.compile(r"\bLDG(\S*)")


def _loaded(text: str, ops: list[str]) -> set[int]:
    """The registers a global load (LDG) writes: its first operand, 4 wide for .128, 2 for .64."""
    m = re.match(r"R(\d+)$", ops[0]) if ops else None
    if m is None:
        return set()
    modifiers = (found := _LDG_MODIFIERS.search(text)) and found.group(1) or ""
    width = 4 if ".128" in modifiers else 2 if ".64" in modifiers else 1
    return set(range(int(m.group(1)), int(m.group(1)) + width))


def waits_on_lone_loads(texts: list[str], classes: np.ndarray, waits: np.ndarray) -> np.ndarray:
    """Per instruction (program order), the long-scoreboard samples (`waits`) it holds as the first
    use of global loads issued at most `LONE_LOADS` at a time (zero elsewhere): the loads issued
    since the last use of a loaded register form a group, which the first instruction reading any
    of their registers ends, waiting for them. A group costs a whole memory latency, whatever its size, so a chain of
    groups of one or two loads waits a latency each where loads issued together would wait one in
    all. A loop of run-time length does that to the loads it holds (a few partial sums added in
    turn: streamk128x256x8's fix-up once waited 16 L2 latencies a pass so), as does a branch
    between two loads (an edge check). Groups opened right after a global store are left to
    `waits_on_loads_after_store`, whose cure differs."""
    counted = np.zeros(len(texts))
    pending: set[int] = set()  # registers of the open group's loads
    size, after_store, behind_store = 0, False, False
    for i, (text, cls) in enumerate(zip(texts, classes)):
        ops = operands(text)
        if size and _registers(ops if cls == "global_store" else ops[1:]) & pending:
            counted[i] = waits[i] if size <= LONE_LOADS and not behind_store else 0.0
            pending, size = set(), 0
        if cls == "global_store":
            after_store = True
        elif cls == "global_load" and (mine := _loaded(text, ops)):
            if not size:
                behind_store = after_store
            pending |= mine
            size, after_store = size + 1, False
    return counted


def _source_at(row: pd.Series) -> str | None:
    """'reduce_scatter.cuh:87' for an instruction with source information (the file's name, not
    its path), 'line 87' without a file, None without either."""
    line = row.get("line")
    if line is None or pd.isna(line):
        return None
    file = file_name(row.get("file"))
    return f"{file}:{int(line)}" if file else f"line {int(line)}"


def _math_mask(classes: np.ndarray, executed: np.ndarray) -> np.ndarray:
    """The launch's math instructions, as `instruction_mix.instruction_mix` picks its math op: MMAs when it ran
    any (the FFMAs are then the epilogue's), FP64 when those outnumber the FFMAs, else the FFMAs."""
    ran = executed > 0
    for cls in ("mma",):
        if (mask := (classes == cls) & ran).any():
            return mask
    fp64, ffma = (classes == "fp64") & ran, (classes == "ffma") & ran
    return fp64 if executed[fp64].sum() > executed[ffma].sum() else ffma


_BRANCH_TARGET = re.compile(r"\bBRA\b[^;]*?\b0x([0-9a-fA-F]+)")


def branch_targets(g: pd.DataFrame) -> np.ndarray:
    """Per row of one launch's SASS (sorted by offset): the offset a BRA jumps to, else -1. The
    SASS text names the target as an absolute address (`@!P0 BRA 0x7f4d2d7aeb60`), the function's
    base plus the offset, so the base is read off the pc and offset columns."""
    targets = np.full(len(g), -1, dtype="int64")
    if "pc" not in g.columns or g["pc"].isna().all() or g["offset"].isna().any():
        return targets
    known = g["pc"].notna().to_numpy()
    base = int(g["pc"].to_numpy()[known][0]) - int(g["offset"].to_numpy()[known][0])
    for i, text in enumerate(g["sass"].astype(str)):
        if (m := _BRANCH_TARGET.search(text)) is not None:
            address = int(m.group(1), 16)
            targets[i] = address - base if address >= base else address
    return targets


def _loop_by_branch(g: pd.DataFrame, math: np.ndarray, targets: np.ndarray) -> tuple[int, int] | None:
    """Row indices (first, last) of the innermost backward branch's span that holds every math
    instruction, or None when no backward branch does (or the launch ran no math). `targets`:
    `branch_targets(g)`."""
    if not math.any():
        return None
    offsets = g["offset"].to_numpy(dtype="int64")
    lo, hi = offsets[math].min(), offsets[math].max()
    spans = [(int(targets[i]), int(offsets[i])) for i in np.flatnonzero(targets >= 0)
             if targets[i] <= lo and offsets[i] >= hi]
    if not spans:
        return None
    start, end = min(spans, key=lambda s: s[1] - s[0])
    return int(np.searchsorted(offsets, start)), int(np.searchsorted(offsets, end))


def _loop_copies(g: pd.DataFrame, math: np.ndarray, executed: np.ndarray, targets: np.ndarray, first: int,
                 last: int) -> list[tuple[int, int]]:
    """Row spans (first, last) of the other copies of the main loop rows first..last: innermost
    backward branches outside it, run, whose bodies hold at least half its math instructions. A
    kernel may inline its k loop more than once and run two copies in one launch
    (tailsk128x256x8: whole tiles, and a stream-K row whose copy takes a quarter of the samples);
    their time is main-loop time, not prologue or epilogue. `targets`: `branch_targets(g)`."""
    offsets = g["offset"].to_numpy(dtype="int64")
    need = 0.5 * math[first:last + 1].sum()
    spans = sorted((int(np.searchsorted(offsets, targets[i])), int(i)) for i in np.flatnonzero(targets >= 0)
                   if 0 <= targets[i] < offsets[i])
    copies = []
    for lo, hi in spans:
        inner = any(lo <= a and b <= hi and (a, b) != (lo, hi) for a, b in spans)
        outside = hi < first or lo > last
        if outside and not inner and math[lo:hi + 1].sum() >= need > 0 and executed[lo:hi + 1].max() > 0:
            copies.append((lo, hi))
    return copies


def _loop_by_counts(executed: np.ndarray, math: np.ndarray) -> tuple[int, int]:
    """Row indices (first, last) of the hot math's span widened to neighbours run as often: the
    waits before the first MMA, the arrives and branch after the last."""
    basis = executed[math] if math.any() else executed
    threshold = HOT_SHARE * basis.max()
    hot = np.flatnonzero((executed >= threshold) & (math if math.any() else True))
    first, last = hot.min(), hot.max()
    while first > 0 and executed[first - 1] >= threshold:
        first -= 1
    while last < len(executed) - 1 and executed[last + 1] >= threshold:
        last += 1
    return first, last


def _at_wgmma_wait(g: pd.DataFrame, ops: pd.Series) -> float:
    """Share of the barrier-stall samples that sit at WARPGROUP instructions (`ops`: g's opcodes) (wgmma.wait_group's
    DEPBAR, wgmma.fence's ARRIVE): ncu counts a warp waiting for its own wgmmas to retire as a
    barrier stall, which is the tensor pipe at work, not a __syncthreads. NaN without those samples."""
    if "samples_barrier" not in g.columns:
        return np.nan
    barrier = g["samples_barrier"].fillna(0).to_numpy(dtype="float64")
    if barrier.sum() <= 0:
        return np.nan
    return 100.0 * barrier[(ops == "WARPGROUP").to_numpy()].sum() / barrier.sum()


def label_regions(group: pd.DataFrame) -> tuple[pd.DataFrame, pd.Series, np.ndarray, np.ndarray] | None:
    """One launch's SASS in program order with, per instruction, its opcode, its class
    (`instruction_mix.OPCODE_CLASSES`) and its region (0 prologue, 1 main loop, 2 epilogue); None
    for a launch with no samples or nothing executed."""
    g = group.sort_values("offset", kind="stable")
    executed = g["inst_executed"].fillna(0).to_numpy(dtype="float64")
    if g["samples"].fillna(0).sum() <= 0 or executed.max() <= 0:
        return None
    ops = opcodes(g)
    classes = np.array([OPCODE_CLASSES.get(o, "other") for o in ops])
    math = _math_mask(classes, executed)
    hot_math = math & (executed >= HOT_SHARE * executed[math].max()) if math.any() else math
    targets = branch_targets(g)  # read once for the main loop and its copies
    first, last = _loop_by_branch(g, hot_math, targets) or _loop_by_counts(executed, math)
    region = np.where(np.arange(len(g)) < first, 0, np.where(np.arange(len(g)) > last, 2, 1))
    for lo, hi in _loop_copies(g, math, executed, targets, first, last):
        region[lo:hi + 1] = 1
    return g, ops, classes, region


def _split(group: pd.DataFrame) -> dict:
    empty = {f"{r}_pct": np.nan for r in REGIONS} | {f"{c}_samples_pct": np.nan for c in SAMPLED_CLASSES} | {"epilogue_parked_pct": np.nan, "epilogue_line": None, "epilogue_line_pct": np.nan,
                                                      "epilogue_code": None, "epilogue_top_reason": None,
                                                      "epilogue_long_scoreboard_pct": np.nan, "epilogue_serial_load_wait_pct": np.nan,
                                                      "lone_load_wait_pct": np.nan, "lone_load_at": None}
    labelled = label_regions(group)
    if labelled is None:
        return empty
    g, ops, classes, region = labelled
    samples = g["samples"].fillna(0).to_numpy(dtype="float64")
    total = samples.sum()
    out = {f"{name}_pct": 100.0 * samples[region == i].sum() / total for i, name in enumerate(REGIONS)}
    out |= {f"{c}_samples_pct": 100.0 * samples[classes == c].sum() / total for c in SAMPLED_CLASSES}
    out["barrier_stall_at_wgmma_wait_pct"] = _at_wgmma_wait(g, ops)
    if "samples_long_scoreboard" in g.columns:
        after, waits = region == 2, g["samples_long_scoreboard"].fillna(0).to_numpy(dtype="float64")
        out["epilogue_long_scoreboard_pct"] = 100.0 * waits[after].sum() / total
        out["epilogue_serial_load_wait_pct"] = 100.0 * waits_on_loads_after_store(classes[after], waits[after]) / total
        outside = np.flatnonzero(region != 1)
        lone = waits_on_lone_loads(list(g["sass"].astype(str).to_numpy()[outside]), classes[outside], waits[outside])
        out["lone_load_wait_pct"] = 100.0 * lone.sum() / total
        out["lone_load_at"] = _source_at(g.iloc[outside[lone.argmax()]]) if lone.any() and lone.max() > 0 else None
    # A warp asleep (NANOSLEEP: the back-off of an mbarrier wait) issues nothing and holds no unit:
    # parked there, a warp-specialised role with nothing left to do waits for the others (cuBLAS's
    # nvjet kernel at 64x4096x4096: 44% of its samples at one sleep after the loop), so the
    # epilogue's working share and its hottest line leave the sleeps out.
    asleep = np.asarray(ops == SLEEP_OPCODE)
    out["epilogue_parked_pct"] = 100.0 * samples[(region == 2) & asleep].sum() / total
    tail = g[(region == 2) & ~asleep]
    tail = tail[tail["samples"].fillna(0) > 0]
    if tail.empty:
        return empty | out
    if "line" in tail.columns and tail["line"].notna().any():
        by_line = tail.groupby("line")["samples"].sum()
        line = by_line.idxmax()
        mine = tail[tail["line"] == line]
        out |= {"epilogue_line": int(line), "epilogue_line_pct": 100.0 * by_line.max() / total}
    else:
        mine = tail.loc[[tail["samples"].idxmax()]]
        out |= {"epilogue_line": None, "epilogue_line_pct": 100.0 * mine["samples"].sum() / total}
    top = mine.loc[mine["samples"].idxmax()]
    out["epilogue_code"] = str(top["sass"])
    reasons = {c[len("samples_"):]: mine[c].fillna(0).sum() for c in mine.columns
               if c.startswith("samples_") and c not in ("samples_selected", "samples_not_selected")}
    out["epilogue_top_reason"] = max(reasons, key=reasons.get) if reasons and max(reasons.values()) > 0 else None
    return out
