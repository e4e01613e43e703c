"""The causes a verdict can name: one table, in the order the evidence is weighed.

Each row names the cause keys it can give (stable keys tests, scripts and truth tables read),
the function that looks for it and what it means. The functions live by kind: `idle_causes`
(SMs and schedulers left idle), `code_causes` (pathologies of the kernel's code), `loop_causes`
(what the time attribution and the roofs show) and `speed_of_light`; each writes its own words
with `cause_text` and `sentences`, never prescribing a technique the kernel already uses.

`verdict.decide` walks the stages:

1. LAUNCH: facts of the launch as a whole; the first that applies is the verdict.
2. MEMORY_ROOF: DRAM the roof by nature (leads when DRAM is busy, or the launch does next to no
   math; otherwise it is named beside whatever holds DRAM back) or by refetching (after CODE).
3. ENDS: one wave whose blocks end unevenly, the SMs idle a large share of the launch (not where
   the launch is memory-bound by nature: its stream's end is said there).
4. CODE: pathologies that no tiling cures; the first that applies.
5. LOOP: main-loop causes, each with the share of the samples it explains: the costliest leads,
   those within noise of it are ranked beside it.
6. SPEED_OF_LIGHT: the roofs and the busy units; the first that applies.
7. LATENCY: where nothing is saturated; the last row always applies.

Rows marked `sampled` read where PC samples sit, and are skipped on launches with too few.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import speed_of_light as sol
from .code_causes import (atomics, bank_conflicts, barrier, divergence, epilogue, fp64, instruction_fetch, local_memory,
                          lone_loads, scattered, serial_epilogue, wasted_math)
from .idle_causes import occupancy_capped, small_grid, tail, uneven_end
from .loop_causes import (memory_roof, narrow_copies, no_math, no_pipelining, occupancy, shared_pipe, small_tiles,
                          sync_wgmma, too_small)

OCCUPANCY_KEYS = ("occupancy_shared", "occupancy_registers", "occupancy_warps", "occupancy_blocks",
                  "occupancy_barriers", "occupancy")


@dataclass(frozen=True)
class Cause:
    keys: tuple[str, ...]  # the cause keys it can name
    find: Callable  # Signals -> Verdict (LOOP: Finding) or None
    meaning: str
    sampled: bool = False  # reads where PC samples sit
    each: tuple[tuple[str, str], ...] = ()  # (key, meaning) where one key means more than the row's words


LAUNCH = (
    Cause(("no_math",), no_math, "no floating-point math at all: a fill or a copy, not a GEMM"),
    Cause(("too_small",), too_small, "over in microseconds with no unit busy: fixed costs are the time"),
    Cause(("small_grid",), small_grid, "fewer blocks than half the SMs"),
    Cause(("tail",), tail, "a partial last wave costing a large share of the SMs' time"),
)
MEMORY_ROOF = Cause(("dram", "tile_order"), memory_roof,
                    "DRAM the roof: by nature (too few FLOPs a byte even at the least traffic) or by refetching")
ENDS = (
    Cause(("uneven_end",), uneven_end, "one wave of blocks that end unevenly: the SMs idle a large share of the launch"),
)
CODE = (
    Cause(("wasted_math",), wasted_math, "gemmprof's tiles reaching far past C: math on zeros"),
    Cause(("fp64",), fp64, "the math in double precision"),
    Cause(("local_memory", "spills"), local_memory, "a per-thread array or spilled registers in local memory"),
    Cause(("atomics",), atomics, "atomics serialised on a few addresses", sampled=True),
    Cause(("divergence",), divergence, "warps running their paths one after the other"),
    Cause(("epilogue", "serial_epilogue", "lone_loads"), epilogue,
          "most samples after the main loop, at one line", sampled=True),
    Cause(("uncoalesced_load", "uncoalesced_store"), scattered, "scattered global accesses"),
    Cause(("bank_conflicts",), bank_conflicts, "bank conflicts on most shared loads"),
    Cause(("barrier",), barrier, "warps waiting at __syncthreads much of the time"),
    Cause(("instruction_fetch",), instruction_fetch, "warps waiting for their instructions: code fetched, not reused"),
)
LOOP = (  # in the order that breaks a tie of costs
    Cause(OCCUPANCY_KEYS, occupancy, "occupancy capped so low that the loop's waits show"),
    Cause(("shared_throughput", "bank_conflicts"), shared_pipe, "the loop's time at the shared-memory pipe"),
    Cause(("no_pipelining",), no_pipelining, "each k step waiting for its own loads"),
    Cause(("sync_wgmma",), sync_wgmma, "every wgmma group waited for before the next is issued"),
    Cause(("small_tiles",), small_tiles, "tensor-core tiles too small to reuse operands or hide copies"),
    Cause(("narrow_copies",), narrow_copies, "tiles copied into shared memory a few bytes a copy"),
)
SPEED_OF_LIGHT = (
    Cause(("fp32_roof", "tensor_roof", "tensor_gap"), sol.math_roof,
          "the math pipe at its roof, or the tensor cores below what cuBLAS attains"),
    Cause(("dram", "shared_throughput", "bank_conflicts", "l2_bandwidth", "uncoalesced_load", "global_reuse",
           "global_traffic"), sol.memory_unit, "the memory side busy, by unit"),
    Cause(("issue",), sol.issue, "the schedulers issuing nearly every cycle, mostly not math"),
)
LATENCY = (
    Cause(("serial_epilogue",), serial_epilogue, "the epilogue's loads of C waited for one at a time"),
    Cause(("lone_loads",), lone_loads, "loads outside the main loop waited for one or two at a time"),
    Cause(OCCUPANCY_KEYS, occupancy_capped, "occupancy capped low by a resource"),
    Cause(("register_banks",), sol.register_banks,
          "FFMAs waiting at dispatch for two operands in one register bank, tied with the top stall or above it"),
    Cause(("latency", "latency_global", "latency_shared", "latency_pipeline", "latency_queue", "barrier"),
          sol.latency, "latency, by the top stall",
          each=(("latency_global", "global-load latency not hidden"),
                ("latency_shared", "shared-load latency not hidden"),
                ("latency_pipeline", "pipeline stages or wgmma results waited for"),
                ("latency_queue", "a memory instruction queue full (MIO or LG throttle)"))),
)
TABLE = (*LAUNCH, MEMORY_ROOF, *ENDS, *CODE, *LOOP, *SPEED_OF_LIGHT, *LATENCY)


def cause_keys() -> set[str]:
    """Every cause key a verdict can name (and 'unknown', where the counters are missing)."""
    return {key for row in TABLE for key in row.keys} | {"unknown"}


def meaning_of(key: str) -> str:
    """What a cause key means, in words (the first row that names it)."""
    return next((dict(row.each).get(key, row.meaning) for row in TABLE if key in row.keys), key.replace("_", " "))
