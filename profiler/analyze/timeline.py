"""What a launch's timeline shows (pure): its math pipe, memory and active SMs over its duration,
read off ncu's PM sampling (the `timeline` table), and the shapes in it that name a cause.

PC samples say where the warps' time goes summed over the launch; the timeline says when. Three
shapes are read off it, each as a share of the launch's time:

- a slow start: the math pipe takes long to reach its plateau (prologue and pipeline fill, not
  overlapped with anything);
- a tail: the math pipe ends far below its plateau for the last part of the launch while few
  SMs still hold blocks (a partial last wave, a fix-up that runs alone);
- gaps: inside the launch, intervals where the SMs are busy but the math pipe idles (epilogues or
  fix-ups that do not overlap the next tile's math); a few short ones are named one by one, with
  when they happen and the L2 traffic in them (a stream-K fix-up reads its partial tiles there).

The plateau is the pipe's 90th percentile over the launch; "idle" is under half of it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..numbers import fmt_num, fmt_pct
from .values import number

PLATEAU_QUANTILE = 0.9
# Under this share of its plateau the pipe counts as idle; under DIP_SHARE, a dip.
IDLE_SHARE = 0.5
DIP_SHARE = 0.75
# A shape costing at least this share of the launch's time is worth naming.
NOTABLE_PCT = 10.0
# A tail with SMs active under this share of their time is a few blocks running alone.
FEW_SMS_PCT = 25.0
# A dip lasts at least this many intervals (one is a sample's noise).
MIN_DIP_INTERVALS = 3
# A stall rising this many times its median in a dip is named with it.
RISE_TIMES = 3.0
# Dips named one by one, at most.
MAX_DIPS_NAMED = 3
# Fewer intervals than this say nothing about shapes inside the launch.
MIN_INTERVALS = 20
# A DRAM stream's start and end are read off this many intervals or more (a 20 us launch has 13).
MIN_STREAM_INTERVALS = 8
# The stream runs from the first to the last interval at this share of DRAM's plateau or more.
STREAM_SHARE = 0.8


@dataclass(frozen=True)
class Timeline:
    """One launch's timeline, trimmed to its duration, and the shapes read off it."""

    t_us: np.ndarray
    math: np.ndarray  # the math pipe, % of its peak (tensor or FMA)
    math_name: str
    dram: np.ndarray
    l2: np.ndarray
    sm_active: np.ndarray  # % of the interval the average SM held a block
    plateau: float
    start_pct: float  # share of the launch before the pipe first reaches half its plateau
    tail_pct: float  # share of the launch after it last does
    tail_level: float  # the pipe in the tail, % of peak
    tail_sm_active: float  # SMs active in the tail, %
    gap_pct: float  # share of the intervals between, pipe idle while SMs are busy
    # each run of intervals between, pipe under DIP_SHARE of its plateau while SMs are busy: start and
    # length (us), the most L2 in it (%)
    dips: tuple[tuple[float, float, float], ...] = ()
    # the stall that rises most in each dip against its median over the launch, and by how much
    # (from the warp-state sampling of `profile --timeline`; empty without it)
    dip_stalls: tuple[tuple[str, float] | None, ...] = ()

    def findings(self) -> list[str]:
        """The shapes worth naming, as sentences."""
        out = []
        if self.tail_pct >= NOTABLE_PCT:
            why = ("a partial last wave, or work a few blocks do alone" if not self.tail_sm_active >= FEW_SMS_PCT else
                   "the SMs still hold blocks, so their last tiles' epilogues or fix-ups run without math")
            out.append(f"The timeline ends in a tail: for the last {fmt_pct(self.tail_pct)} of the launch the {self.math_name} "
                       f"runs at {fmt_pct(self.tail_level)} of peak (its plateau is {fmt_pct(self.plateau)}) with "
                       f"{fmt_pct(self.tail_sm_active)} of the SMs' time active: {why}.")
        if self.start_pct >= NOTABLE_PCT:
            out.append(f"The timeline starts slowly: the {self.math_name} takes {fmt_pct(self.start_pct)} of the launch to "
                       f"reach half its plateau (prologue and pipeline fill not overlapped).")
        if self.gap_pct >= NOTABLE_PCT:
            out.append(f"The timeline has gaps: in {fmt_pct(self.gap_pct)} of the intervals between start and tail the SMs "
                       f"are busy but the {self.math_name} idles (epilogues or fix-ups not overlapped with the next "
                       f"tile's math).")
        elif self.dips:
            stalls = self.dip_stalls or (None,) * len(self.dips)
            shown = ", ".join(f"{fmt_num(start, 3)} us ({fmt_num(length, 2)} us, L2 at {fmt_pct(l2)}"
                              + (f"; warps stalled on {stall[0].replace('_', ' ')} {fmt_num(stall[1], 2)}x their median"
                                 if stall else "") + ")"
                              for (start, length, l2), stall in zip(self.dips[:MAX_DIPS_NAMED], stalls))
            more = f" and {len(self.dips) - MAX_DIPS_NAMED} more" if len(self.dips) > MAX_DIPS_NAMED else ""
            out.append(f"The {self.math_name} dips below three quarters of its plateau while the SMs stay busy at "
                       f"{shown}{more}. Moments when every SM ends its tiles together "
                       f"(a wave's epilogues, a stream-K fix-up reading partial tiles: L2 rises in them) and the math "
                       f"waits.")
        return out


def read_timeline(rows: pd.DataFrame, launch: dict) -> Timeline | None:
    """The timeline of one launch from its rows of the `timeline` table and its kernels-table row
    (duration, SM clock, whether tensor cores did the math); None without enough intervals."""
    if rows is None or rows.empty:
        return None
    rows = _in_launch(rows, launch)
    if len(rows) < MIN_INTERVALS:
        return None
    t = rows["t_ns"].to_numpy(dtype="float64")
    tensor = number(launch.get("tensor_flop")) > 0
    math = rows["tensor_pct" if tensor else "fma_pct"].to_numpy(dtype="float64")
    if np.isnan(math).all():
        return None
    math = np.nan_to_num(math)
    step = float(np.median(np.diff(t))) if len(t) > 1 else np.nan
    clock = number(launch.get("sm_clock_hz"))
    cycles = rows["sm_active_cycles"].to_numpy(dtype="float64")
    sm_active = np.clip(100.0 * cycles / (step * 1e-9 * clock), 0, 100) if step > 0 and clock > 0 else np.full(len(t), np.nan)
    plateau = float(np.quantile(math, PLATEAU_QUANTILE))
    if not plateau > 0:
        return None
    busy = math >= IDLE_SHARE * plateau
    first, last = int(np.argmax(busy)), len(busy) - 1 - int(np.argmax(busy[::-1]))
    n = len(t)
    middle = slice(first, last + 1)
    gaps = (~busy[middle]) & (np.nan_to_num(sm_active[middle]) >= 50.0)
    tail = slice(last + 1, n)
    l2 = rows["l2_pct"].to_numpy(dtype="float64")
    dipping = (math[middle] < DIP_SHARE * plateau) & (np.nan_to_num(sm_active[middle]) >= 50.0)
    runs = [(a, b) for a, b in _runs(dipping) if b - a + 1 >= MIN_DIP_INTERVALS]
    dips = tuple((float(t[first + a] / 1e3), float((t[first + b] - t[first + a]) / 1e3 + step / 1e3),
                  float(np.nanmax(l2[first + a:first + b + 1]))) for a, b in runs)
    stalled = {c[len("stalled_"):]: rows[c].to_numpy(dtype="float64") for c in rows.columns
               if c.startswith("stalled_") and rows[c].notna().any()}
    dip_stalls = tuple(_rising(stalled, first + a, first + b) for a, b in runs) if stalled else ()
    return Timeline(
        t_us=t / 1e3, math=math, math_name="tensor pipe" if tensor else "FMA pipe",
        dram=rows["dram_pct"].to_numpy(dtype="float64"), l2=rows["l2_pct"].to_numpy(dtype="float64"),
        sm_active=sm_active, plateau=plateau,
        start_pct=100.0 * first / n, tail_pct=100.0 * (n - 1 - last) / n,
        tail_level=float(np.mean(math[tail])) if last + 1 < n else np.nan,
        tail_sm_active=float(np.nanmean(sm_active[tail])) if last + 1 < n else np.nan,
        gap_pct=100.0 * gaps.sum() / max(len(gaps), 1), dips=dips, dip_stalls=dip_stalls,
    )


@dataclass(frozen=True)
class DramStream:
    """When a launch reads DRAM at its plateau: the plateau (% of the DRAM peak, the intervals'
    90th percentile) and the stream's start and end (us from the launch's start), against the
    launch's duration. A memory-bound launch at the peak while it streams loses the rest of its
    time before and after: its start (setup, the first loads' latency) and its end (the last blocks
    finishing)."""

    plateau: float
    start_us: float
    end_us: float
    duration_us: float


def dram_stream(rows: pd.DataFrame | None, launch: dict) -> DramStream | None:
    """The DRAM stream of one launch from its rows of the `timeline` table; None without enough
    intervals or DRAM traffic."""
    if rows is None or rows.empty or "dram_pct" not in rows.columns:
        return None
    duration = number(launch.get("duration_ns"))
    if not duration > 0:
        return None
    rows = _in_launch(rows, launch)
    if len(rows) < MIN_STREAM_INTERVALS:
        return None
    t = rows["t_ns"].to_numpy(dtype="float64")
    dram = np.nan_to_num(rows["dram_pct"].to_numpy(dtype="float64"))
    plateau = float(np.quantile(dram, PLATEAU_QUANTILE))
    if not plateau > 0:
        return None
    at = np.flatnonzero(dram >= STREAM_SHARE * plateau)
    step = float(np.median(np.diff(t)))
    return DramStream(plateau=plateau, start_us=float(t[at[0]]) / 1e3, end_us=min(float(t[at[-1]]) + step, duration) / 1e3,
                      duration_us=duration / 1e3)


def _in_launch(rows: pd.DataFrame, launch: dict) -> pd.DataFrame:
    """A launch's intervals in time order, those past its duration (where known) left out."""
    duration = number(launch.get("duration_ns"))
    rows = rows.sort_values("t_ns")
    return rows[rows["t_ns"] <= duration] if duration > 0 else rows


def _rising(stalled: dict[str, np.ndarray], a: int, b: int) -> tuple[str, float] | None:
    """The stall reason whose stalled warps rise most in intervals a..b above their median over
    the launch (the most warps added, not the largest ratio: a reason rare elsewhere would win
    that), with the rise as a multiple of the median, if at least RISE_TIMES."""
    best, added = None, 0.0
    for reason, values in stalled.items():
        median = float(np.nanmedian(values))
        peak = float(np.nanmax(values[a:b + 1]))
        if median > 0 and peak - median > added and peak >= RISE_TIMES * median:
            best, added = (reason, peak / median), peak - median
    return best


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(first, last) index of each run of True in `mask`."""
    edges = np.diff(np.concatenate([[0], mask.astype(int), [0]]))
    return list(zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1))


def describe(tl: Timeline) -> str:
    """One line: the plateau and the shapes, for a page's caption."""
    shapes = [f"start {fmt_pct(tl.start_pct)}", f"tail {fmt_pct(tl.tail_pct)}", f"gaps {fmt_pct(tl.gap_pct)}"]
    return (f"{tl.math_name} plateau {fmt_pct(tl.plateau)} of peak over {fmt_num(tl.t_us[-1], 3)} us; "
            + ", ".join(shapes) + " of the launch.")
