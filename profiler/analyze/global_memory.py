"""Global memory: bytes moved at each level (DRAM, L2, L1) against the least a GEMM must move,
and how well global accesses coalesce.

Traffic. gemmprof's kernels compute C = alpha A B + beta C with beta != 0 and C in FP32: they
must at least read A (M x K), B (K x N) and C (M x N) once and write C once, 4 (M K + K N + 2 M N)
bytes in FP32. Another program's product (a framework's matmul, C = A B) reads A and B and writes
C in the input type: e (M K + K N + M N) bytes for e-byte elements. A batched product moves that
once per product. Bytes moved at a level over that minimum is how many times each byte was
fetched there.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pandas as pd

from ..catalogue.manifest import REFERENCES, load_manifest
from ..tiers import tier as tier_record
from .instruction_mix import opcodes
from .values import LAUNCH_KEYS, number

FP32_BYTES = 4


# Traffic levels: (level, bytes column, which minimum applies).
TRAFFIC_LEVELS = (
    ("DRAM read", "dram_read_bytes", "read"),
    ("DRAM write", "dram_write_bytes", "write"),
    ("DRAM", "dram_bytes", "total"),
    ("L2", "l2_bytes", "total"),
    ("L1", "l1_bytes", "total"),
)

# Bytes of A and B elements for each tensor-core input type a report may show (TF32 reads FP32).
TENSOR_INPUT_BYTES = (("tensor_fp16_flop", 2), ("tensor_bf16_flop", 2), ("tensor_fp8_flop", 1))


def gemm_min_bytes(M: int, N: int, K: int, input_bytes: int = FP32_BYTES, reads_c: bool = True,
                   output_bytes: int = FP32_BYTES, batch: int = 1) -> dict[str, int]:
    """Least traffic of `batch` GEMMs: A and B (`input_bytes` an element) read once, C
    (`output_bytes` an element) read once when beta != 0 and written once."""
    read = batch * (input_bytes * (M * K + K * N) + (output_bytes * M * N if reads_c else 0))
    write = batch * output_bytes * M * N
    return {"read": read, "write": write, "total": read + write}


def launch_min_bytes(record: dict, reads_c: bool = True) -> dict[str, int] | None:
    """`gemm_min_bytes` of a launch, from its shape, batch and element types; None without a shape.
    gemmprof's own kernels (their tier known) read and write C in FP32 (`reads_c`: beta != 0); any
    other launch is taken as a framework's C = A B: C in the input type, not read."""
    from .gemm_shape import batch_of

    M, N, K = (record.get(d) for d in "MNK")
    if any(v is None or pd.isna(v) for v in (M, N, K)):
        return None
    size = input_bytes(record)
    if _tiers().get(record.get("kernel_key")) is not None:
        return gemm_min_bytes(int(M), int(N), int(K), size, reads_c, batch=batch_of(record))
    return gemm_min_bytes(int(M), int(N), int(K), size, reads_c=False, output_bytes=size, batch=batch_of(record))


def input_bytes(record: dict) -> int:
    """Bytes of one element of A and B in a launch (a kernels-table row): the tier's input type for
    gemmprof's kernels and cuBLAS references, else what its tensor cores read, else FP32."""
    tier = _tiers().get(record.get("kernel_key"))
    if tier is not None:
        return tier_record(tier).element_bytes
    return next((size for column, size in TENSOR_INPUT_BYTES if number(record.get(column)) > 0), FP32_BYTES)


@cache
def _tiers() -> dict[str, str]:
    return {**REFERENCES, **{s.name: s.tier for s in load_manifest()}}


def traffic(kernels: pd.DataFrame, reads_c: bool = True) -> pd.DataFrame:
    """Bytes moved at each level (DRAM read, write and both, L2, L1) against the GEMM's minimum:
    one row per launch and level with bytes, minimum and times (= bytes / minimum, how many times
    each byte was fetched there)."""
    rows = []
    for record in kernels.to_dict("records"):
        least = launch_min_bytes(record, reads_c)
        if least is None:
            continue
        for level, column, which in TRAFFIC_LEVELS:
            value = number(record.get(column))
            if np.isnan(value):
                continue
            rows.append({"report": record.get("report"), "launch": record.get("launch"), "level": level,
                         "bytes": value, "minimum": float(least[which]), "times": value / least[which]})
    return pd.DataFrame(rows, columns=["report", "launch", "level", "bytes", "minimum", "times"])


# DRAM writes under this share of C's size: the rest of C was still in L2 (write-back) at the end.
LOW_WRITES_RATIO = 0.9


def writes_below_minimum(traffic_rows: pd.DataFrame) -> bool:
    """Whether a launch's `traffic` rows show DRAM writes well below the C it must write."""
    writes = traffic_rows[traffic_rows["level"] == "DRAM write"] if not traffic_rows.empty else traffic_rows
    return bool(len(writes) and float(writes["times"].iloc[0]) < LOW_WRITES_RATIO)


def coalescing(source: pd.DataFrame) -> pd.DataFrame:
    """Global accesses per launch: L2 sectors requested, the ideal for fully coalesced access,
    the excess, and excess_pct (ncu's 'excessive sectors ... % of the total')."""
    columns = ["report", "launch", "sectors", "ideal", "excess", "excess_pct"]
    if source.empty:
        return pd.DataFrame(columns=columns)
    sums = source.groupby(LAUNCH_KEYS, dropna=False)[
        ["l2_global_sectors", "l2_global_sectors_ideal", "l2_global_excess_sectors"]].sum(min_count=1).reset_index()
    sums.columns = ["report", "launch", "sectors", "ideal", "excess"]
    sums["excess_pct"] = 100.0 * sums["excess"] / sums["sectors"].where(sums["sectors"] > 0)
    return sums[columns]


# Global access kinds by opcode: what a warp's loads and stores request against the ideal.
GLOBAL_KINDS = {"load": ("LDG", "LDGSTS"), "store": ("STG",)}


def global_access_kinds(sass: pd.DataFrame) -> pd.DataFrame:
    """Per launch, L2 sectors requested by global loads and by stores, and the ideal (fully
    coalesced) count of each, from the source counters: `<kind>_sectors`, `<kind>_ideal`,
    `<kind>_ratio` (sectors / ideal: 1 when coalesced, up to 8 for 4-byte elements one per sector).
    Per instruction, so a 128-bit access counts as coalesced (its 16 sectors are its ideal)."""
    columns = ["report", "launch", *[f"{k}_{c}" for k in GLOBAL_KINDS for c in ("sectors", "ideal", "ratio")]]
    if sass is None or sass.empty:
        return pd.DataFrame(columns=columns)
    have = sass[sass["l2_global_sectors"].fillna(0) > 0]
    ops = opcodes(have)
    rows = []
    for (report, launch), group in have.groupby(LAUNCH_KEYS, sort=False, dropna=False):
        row = {"report": report, "launch": launch}
        for kind, kind_ops in GLOBAL_KINDS.items():
            mine = group[ops[group.index].isin(kind_ops)]
            sectors, ideal = float(mine["l2_global_sectors"].sum()), float(mine["l2_global_sectors_ideal"].sum())
            row |= {f"{kind}_sectors": sectors, f"{kind}_ideal": ideal,
                    f"{kind}_ratio": sectors / ideal if ideal > 0 else np.nan}
        rows.append(row)
    return pd.DataFrame(rows, columns=columns)


def uncoalesced_lines(source: pd.DataFrame, n: int = 3) -> pd.DataFrame:
    """Source lines whose global accesses request the most excess L2 sectors, per launch."""
    have = source[source["l2_global_excess_sectors"].fillna(0) > 0]
    have = have.sort_values(LAUNCH_KEYS + ["l2_global_excess_sectors"], ascending=[True, True, False], kind="stable")
    out = have.groupby(LAUNCH_KEYS, sort=False, dropna=False).head(n)
    return out[["report", "launch", "file", "line", "code", "l2_global_sectors", "l2_global_sectors_ideal",
                "l2_global_excess_sectors"]].reset_index(drop=True)
