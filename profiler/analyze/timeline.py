"""What a launch's timeline shows (pure): its math pipe, memory and active SMs over its duration,
read off ncu's PM sampling (the `timeline` table), and the shapes in it that name a cause.

PC samples say where the warps' time goes summed over the launch; the timeline says when. Three
shapes are read off it, each as a share of the launch's time:

- a slow start: the math pipe takes long to reach its plateau (prologue and pipeline fill, not
  overlapped with anything);
- a tail: the math pipe ends far below its plateau for the last part of the launch while few
  SMs still hold blocks (a partial last wave, a fix-up that runs alone);
- gaps: inside the launch, intervals where the SMs are busy but the math pipe idles (epilogues or
  fix-ups that do not overlap the next tile's math).

The plateau is the pipe's 90th percentile over the launch; "idle" is under half of it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..numbers import fmt_num, fmt_pct
from .values import number

PLATEAU_QUANTILE = 0.9
# Under this share of its plateau the pipe counts as idle.
IDLE_SHARE = 0.5
# A shape costing at least this share of the launch's time is worth naming.
NOTABLE_PCT = 10.0
# A tail with SMs active under this share of their time is a few blocks running alone.
FEW_SMS_PCT = 25.0
# Fewer intervals than this say nothing about shapes inside the launch.
MIN_INTERVALS = 20


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
        return out


def read_timeline(rows: pd.DataFrame, launch: dict) -> Timeline | None:
    """The timeline of one launch from its rows of the `timeline` table and its kernels-table row
    (duration, SM clock, whether tensor cores did the math); None without enough intervals."""
    if rows is None or rows.empty:
        return None
    duration = number(launch.get("duration_ns"))
    rows = rows.sort_values("t_ns")
    if duration > 0:
        rows = rows[rows["t_ns"] <= duration]
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
    return Timeline(
        t_us=t / 1e3, math=math, math_name="tensor pipe" if tensor else "FMA pipe",
        dram=rows["dram_pct"].to_numpy(dtype="float64"), l2=rows["l2_pct"].to_numpy(dtype="float64"),
        sm_active=sm_active, plateau=plateau,
        start_pct=100.0 * first / n, tail_pct=100.0 * (n - 1 - last) / n,
        tail_level=float(np.mean(math[tail])) if last + 1 < n else np.nan,
        tail_sm_active=float(np.nanmean(sm_active[tail])) if last + 1 < n else np.nan,
        gap_pct=100.0 * gaps.sum() / max(len(gaps), 1),
    )


def describe(tl: Timeline) -> str:
    """One line: the plateau and the shapes, for a page's caption."""
    shapes = [f"start {fmt_pct(tl.start_pct)}", f"tail {fmt_pct(tl.tail_pct)}", f"gaps {fmt_pct(tl.gap_pct)}"]
    return (f"{tl.math_name} plateau {fmt_pct(tl.plateau)} of peak over {fmt_num(tl.t_us[-1], 3)} us; "
            + ", ".join(shapes) + " of the launch.")
