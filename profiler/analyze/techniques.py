"""What a kernel already does, read off its executed SASS: so that no cure prescribes it again.

A diagnosis that tells a cp.async kernel to "prefetch the next tile" or a double-buffered kernel
to "double buffer" is stock advice, not a diagnosis. Each technique here is detected from the
instructions the launch executed (the `sass` table: opcode and executed count per instruction):

- opcodes present: cp.async (LDGSTS), TMA (UTMALDG), mbarriers (SYNCS), wgmma (HGMMA), mma.sync
  (HMMA), FP64 math, local memory (LDL/STL), atomics, 128-bit global and shared loads;
- structure: barriers per tile (BAR executions over the executions of the busiest shared store or
  async copy: 2 for a single shared buffer, 1 when the tile is double-buffered), register prefetch
  (the busiest global loads are followed, in program order, by many math instructions before the
  shared store that consumes them: the loads of the next tile are in flight during this one's math),
  and cp.async groups left in flight while computing (`DEPBAR.LE SB0, n`: n + 1 stages).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .instruction_mix import OPCODE_CLASSES, opcodes
from .values import per_launch

# Math instructions between a global load and the shared store of its value from which the load
# overlaps the math (a register prefetch): a tile's worth of FMAs, not the few of an address calc.
PREFETCH_MATH_MIN = 16
# Instructions executed at least this share of the busiest one's count belong to the main loop.
HOT_SHARE = 0.5

# (key, label) of every technique, in the order a page lists them.
TECHNIQUES = (
    ("shared_tiling", "tiles staged in shared memory"),
    ("vector_global_loads", "128-bit global loads"),
    ("vector_shared_loads", "128-bit shared loads"),
    ("register_prefetch", "register prefetch of the next tile"),
    ("double_buffer", "double-buffered shared memory (one barrier per tile)"),
    ("cp_async", "cp.async (LDGSTS) copies"),
    ("cp_async_pipeline", "a multi-stage cp.async pipeline"),
    ("tma", "TMA bulk tensor copies"),
    ("mbarrier", "mbarrier synchronisation"),
    ("wgmma", "wgmma (warpgroup MMA)"),
    ("mma_sync", "mma.sync tensor-core MMA"),
    ("l2_prefetch", "prefetches into L2 (prefetch.global.L2)"),
    ("fp64", "FP64 arithmetic"),
    ("local_memory", "local memory"),
    ("atomics", "atomics"),
)
LABELS = dict(TECHNIQUES)

_DEPBAR = re.compile(r"DEPBAR\.LE\s+SB\d+,\s*(0x[0-9a-fA-F]+|\d+)")
_COLUMNS = ["report", "launch", *[k for k, _ in TECHNIQUES], "barriers_per_tile", "async_groups_in_flight",
            "already_uses"]


def techniques(sass: pd.DataFrame) -> pd.DataFrame:
    """One row per launch of `sass`: a bool column per technique, barriers_per_tile,
    async_groups_in_flight (cp.async groups a thread leaves pending while it computes) and
    already_uses (the labels of the techniques present, in TECHNIQUES order)."""
    def read(group: pd.DataFrame) -> dict:
        row = _detect(group)
        return row | {"already_uses": [LABELS[k] for k, _ in TECHNIQUES if row[k]]}

    return per_launch(sass, read, _COLUMNS)


def _detect(group: pd.DataFrame) -> dict:
    ran = group[group["inst_executed"].fillna(0) > 0].sort_values("offset", kind="stable")
    text = ran["sass"].astype(str).tolist()
    ops = list(opcodes(ran))
    classes = [OPCODE_CLASSES.get(o, "other") for o in ops]
    counts = ran["inst_executed"].to_numpy(dtype="float64")
    present = set(classes)

    def has(op: str, modifier: str = "") -> bool:
        return any(o == op and modifier in t for o, t in zip(ops, text))

    tile_stores = [c for c, cls in zip(counts, classes) if cls in ("shared_store", "async_copy", "tma")]
    bars = sum(c for c, cls in zip(counts, classes) if cls == "barrier")
    barriers_per_tile = bars / max(tile_stores) if tile_stores and bars else np.nan
    groups = [int(m.group(1), 0) for t in text if (m := _DEPBAR.search(t))]
    in_flight = max(groups) if groups and "async_copy" in present else 0
    shared = bool(present & {"shared_load", "shared_store", "async_copy", "tma"}) or has("HGMMA")
    return {
        "shared_tiling": shared,
        "vector_global_loads": has("LDG", ".128"),
        "vector_shared_loads": has("LDS", ".128") or has("LDSM"),
        # TMA kernels pipeline through mbarrier stages: these two SIMT-era patterns do not apply
        "register_prefetch": "tma" not in present and _register_prefetch(classes, counts),
        "double_buffer": bool("tma" not in present and shared and not np.isnan(barriers_per_tile)
                              and barriers_per_tile < 1.5),
        "cp_async": "async_copy" in present,
        "cp_async_pipeline": in_flight >= 1,
        "tma": "tma" in present,
        "mbarrier": "mbarrier" in present,
        "wgmma": has("HGMMA"),
        "mma_sync": has("HMMA"),
        "l2_prefetch": has("CCTL", ".PF2"),
        "fp64": "fp64" in present,
        "local_memory": bool(present & {"local_load", "local_store"}),
        "atomics": "atomic" in present,
        "barriers_per_tile": barriers_per_tile,
        "async_groups_in_flight": in_flight,
    }


def _register_prefetch(classes: list[str], counts: np.ndarray) -> bool:
    """Whether the main loop's global loads are followed by a tile of math before the shared store
    that takes their values (program order), i.e. they are in flight while this tile is computed."""
    loads = [i for i, c in enumerate(classes) if c == "global_load"]
    if not loads or "shared_store" not in classes:
        return False
    busiest = max(counts[i] for i in loads)
    for i in (i for i in loads if counts[i] >= HOT_SHARE * busiest):
        math = 0
        for cls in classes[i + 1:]:
            if cls == "shared_store":
                break
            math += cls in ("ffma", "mma", "fp64")
        if math >= PREFETCH_MATH_MIN:
            return True
    return False


def uses(row: dict | None, key: str) -> bool:
    """Whether a launch's `techniques` row shows technique `key` (unknown: False)."""
    return bool(row and row.get(key))
