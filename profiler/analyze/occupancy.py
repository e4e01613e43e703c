"""Occupancy: warps an SM holds (achieved) against what the launch allows (theoretical), and which
resource allows the fewest blocks per SM (registers, shared memory, warp slots, block slots).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..metrics import OCCUPANCY_LIMITS
from .values import number

# Registers in one SM's register file (64K 32-bit registers on every GPU since Maxwell).
REGISTERS_PER_SM = 65536
# Registers are allocated to a thread in multiples of this (256 per warp).
REGISTER_GRANULE = 8
# Warp schedulers (SM sub-partitions) per SM since Volta.
SCHEDULERS_PER_SM = 4
WARP_SIZE = 32
# Achieved occupancy below this share of theoretical points at uneven blocks or a partial wave.
ACHIEVED_GAP_RATIO = 0.8

LIMITS = OCCUPANCY_LIMITS

COLUMNS = [
    "report", "launch", "achieved_pct", "theoretical_pct", "blocks_per_sm", "warps_per_block",
    "max_warps_per_sm", "warps_per_scheduler", "limiter", "registers_per_thread", "shared_mem_per_block",
    "threads_per_block", *[f"limit_{name.replace(' ', '_')}" for name, _ in LIMITS],
    "registers_for_next_block", "achieved_gap",
]


def registers_for_blocks(blocks: int, threads_per_block: float) -> float:
    """Most registers per thread that let `blocks` blocks of this size share one register file
    (rounded down to the allocation granule); NaN when not even 1 register fits."""
    if blocks < 1 or not threads_per_block or pd.isna(threads_per_block):
        return np.nan
    warps = math.ceil(threads_per_block / WARP_SIZE)
    per_thread = REGISTERS_PER_SM // (blocks * warps * WARP_SIZE)
    per_thread -= per_thread % REGISTER_GRANULE
    return float(per_thread) if per_thread > 0 else np.nan


def occupancy(kernels: pd.DataFrame) -> pd.DataFrame:
    """One row per launch: achieved and theoretical occupancy (%), blocks per SM and what caps
    them (`limit_<resource>`: blocks that resource allows), warps per scheduler, and for a
    register-limited launch the registers per thread that would fit one block more."""
    rows = []
    for r in kernels.to_dict("records"):
        limits = {name: number(r.get(column)) for name, column in LIMITS}
        known = [v for v in limits.values() if not np.isnan(v)]
        blocks = min(known) if known else np.nan
        threads = number(r.get("threads_per_block"))
        warps_per_block = math.ceil(threads / WARP_SIZE) if threads > 0 else np.nan
        theoretical, achieved = number(r.get("theoretical_occupancy_pct")), number(r.get("achieved_occupancy_pct"))
        max_warps = blocks * warps_per_block / (theoretical / 100.0) if theoretical > 0 else np.nan
        limiter = r.get("occupancy_limiter")
        capped_by_registers = isinstance(limiter, str) and "registers" in limiter and theoretical < 100.0
        registers_next = registers_for_blocks(int(blocks) + 1, threads) if capped_by_registers and blocks > 0 else np.nan
        rows.append({
            "report": r.get("report"), "launch": r.get("launch"),
            "achieved_pct": achieved, "theoretical_pct": theoretical, "blocks_per_sm": blocks,
            "warps_per_block": warps_per_block, "max_warps_per_sm": max_warps,
            "warps_per_scheduler": achieved / 100.0 * max_warps / SCHEDULERS_PER_SM,
            "limiter": limiter if isinstance(limiter, str) else None,
            "registers_per_thread": number(r.get("registers_per_thread")),
            "shared_mem_per_block": number(r.get("shared_mem_per_block")), "threads_per_block": threads,
            **{f"limit_{name.replace(' ', '_')}": v for name, v in limits.items()},
            "registers_for_next_block": registers_next,
            "achieved_gap": bool(theoretical > 0 and achieved < ACHIEVED_GAP_RATIO * theoretical),
        })
    return pd.DataFrame(rows, columns=COLUMNS)

