"""Memory: shared-memory bank conflicts as n-way, traffic against the least a GEMM must move, and
the memory instructions each math instruction (FFMA; for tensor-core kernels, MMA) costs.

Bank conflicts. A shared-memory request takes one wavefront per pass through the 32 banks; a
conflict adds passes. With W wavefronts of which C are conflict replays, the conflict-free
request would take W - C, so the accesses are W / (W - C)-way on average (1 = no conflicts).
ncu's MemoryWorkloadAnalysis rule quotes "W / requests"-way instead, which also counts the
passes a 64- or 128-bit access needs without any conflict (an LDS.128 takes at least 4); its
"conflicts represent X% of the wavefronts" is C / W here. The source counters (`sass` table)
give the same per instruction from its addresses: wavefronts over ideal wavefronts. A conflict
is a property of an access pattern, so the worst instruction's n-way is the number to quote
("2-way"), with the average over all accesses beside it.

Traffic. C = alpha A B + beta C with beta != 0 must at least read A (M x K), B (K x N) and C
(M x N) once and write C once: 4 (M K + K N + 2 M N) bytes in FP32. Bytes moved at a level
over that minimum is how many times each byte was fetched there.
"""

from __future__ import annotations

import re
from functools import cache

import numpy as np
import pandas as pd

from ..extract.metrics import SHARED_BYTES_PER_WAVEFRONT
from ..manifest import REFERENCES, load_manifest
from ..tiers import tier as tier_record
from .values import number
from .values import numeric_column

FP32_BYTES = 4

# Conflict replays below this share of a kind's wavefronts are noise, not a layout problem.
CONFLICT_NEGLIGIBLE_PCT = 1.0

# Shared-memory access kinds: (name, wavefront column, conflict column, SASS opcodes of the kind).
SHARED_KINDS = (
    ("load", "shared_load_wavefronts", "shared_load_bank_conflicts", ("LDS", "LDSM")),
    ("store", "shared_store_wavefronts", "shared_store_bank_conflicts", ("STS", "STSM")),
    ("cp.async", "shared_ldgsts_wavefronts", "shared_ldgsts_bank_conflicts", ("LDGSTS",)),
)

# What a SASS opcode (its first dotted part) means for the instruction mix. Everything else is
# 'other' (address arithmetic, control, conversions, ...).
OPCODE_CLASSES = {
    "FFMA": "ffma",
    "DFMA": "fp64", "DADD": "fp64", "DMUL": "fp64",
    "LDG": "global_load",
    "STG": "global_store",
    "LDL": "local_load",
    "STL": "local_store",
    "LDS": "shared_load",
    "LDSM": "shared_load",
    "STS": "shared_store",
    "STSM": "shared_store",
    "LDGSTS": "async_copy",
    "UTMALDG": "tma", "UTMASTG": "tma", "UBLKCP": "tma", "UTMAPF": "tma",
    "SYNCS": "mbarrier",
    "ATOM": "atomic", "ATOMG": "atomic", "RED": "atomic", "REDG": "atomic",
    "BAR": "barrier",
    "HMMA": "mma",
    "HGMMA": "mma",
    "IMMA": "mma",
    "QGMMA": "mma",
    "IGMMA": "mma",
    "DMMA": "mma",
}
MIX_CLASSES = ("ffma", "fp64", "mma", "global_load", "global_store", "local_load", "local_store", "shared_load",
               "shared_store", "async_copy", "tma", "mbarrier", "atomic", "barrier", "other")
# Classes counted per math instruction (`<class>_per_math`).
PER_MATH_CLASSES = ("global_load", "global_store", "local_load", "local_store", "shared_load", "shared_store",
                    "async_copy", "atomic", "barrier")

# A SASS line: optional predicate ("@P0", "@!UP1"), then the opcode with its modifiers.
_OPCODE = re.compile(r"^\s*(?:@!?U?P[T\d]+\s+)?([A-Z][A-Z0-9_]*)")

# Traffic levels: (level, bytes column, which minimum applies).
TRAFFIC_LEVELS = (
    ("DRAM read", "dram_read_bytes", "read"),
    ("DRAM write", "dram_write_bytes", "write"),
    ("DRAM", "dram_bytes", "total"),
    ("L2", "l2_bytes", "total"),
    ("L1", "l1_bytes", "total"),
)

_KEYS = ["report", "launch"]


# Bytes of A and B elements for each tensor-core input type a report may show (TF32 reads FP32).
TENSOR_INPUT_BYTES = (("tensor_fp16_flop", 2), ("tensor_bf16_flop", 2), ("tensor_fp8_flop", 1))


def gemm_min_bytes(M: int, N: int, K: int, input_bytes: int = FP32_BYTES, reads_c: bool = True) -> dict[str, int]:
    """Least traffic of one GEMM: A and B (`input_bytes` an element) read once, C (FP32) read once
    when beta != 0 and written once."""
    read = input_bytes * (M * K + K * N) + (FP32_BYTES * M * N if reads_c else 0)
    write = FP32_BYTES * M * N
    return {"read": read, "write": write, "total": read + write}


def input_bytes(record: dict) -> int:
    """Bytes of one element of A and B in a launch (a kernels-table row): the tier's input type for
    gemmprof's kernels and cuBLAS references, else what its tensor cores read, else FP32."""
    tier = _tiers().get(record.get("kernel_key"))
    if tier is not None:
        return tier_record(tier).element_bytes
    return next((size for column, size in TENSOR_INPUT_BYTES if number(record.get(column)) > 0), FP32_BYTES)


def launch_min_bytes(record: dict, reads_c: bool = True) -> dict[str, int] | None:
    """`gemm_min_bytes` of a launch, from its shape and input type; None without a shape."""
    M, N, K = (record.get(d) for d in "MNK")
    if any(v is None or pd.isna(v) for v in (M, N, K)):
        return None
    return gemm_min_bytes(int(M), int(N), int(K), input_bytes(record), reads_c)


@cache
def _tiers() -> dict[str, str]:
    return {**REFERENCES, **{s.name: s.tier for s in load_manifest()}}


def n_way(wavefronts: float, conflicts: float) -> float:
    """W / (W - C): 1.0 without conflicts, 2.0 when every request takes twice its passes; NaN
    when there were no wavefronts."""
    if not wavefronts or pd.isna(wavefronts) or pd.isna(conflicts):
        return np.nan
    ideal = wavefronts - conflicts
    return np.inf if ideal <= 0 else wavefronts / ideal


def opcode(sass: str) -> str:
    """'@!P0 LDS.128 R4, [R2+0x10]' -> 'LDS' (the base opcode, modifiers dropped)."""
    match = _OPCODE.match(sass or "")
    return match.group(1) if match else ""


def opcodes(sass: pd.DataFrame) -> pd.Series:
    """The base opcode of every row of a `sass` table: its `opcode` column when `with_opcodes`
    added one, else parsed here (the analyses of one launch share one parse through it)."""
    if "opcode" in sass.columns:
        return sass["opcode"]
    return pd.Series([opcode(t) for t in sass["sass"].astype(str)], index=sass.index, dtype="object")


def with_opcodes(sass: pd.DataFrame | None) -> pd.DataFrame | None:
    """`sass` with an `opcode` column, so the instruction mix, techniques, regions and access
    kinds parse each instruction once."""
    if sass is None or "opcode" in sass.columns:
        return sass
    return sass.assign(opcode=opcodes(sass))


def bank_conflicts(kernels: pd.DataFrame, sass: pd.DataFrame | None = None) -> pd.DataFrame:
    """Bank conflicts of each launch, one row per access kind (load, store, cp.async) that
    moved any wavefronts.

    From the hardware counters: wavefronts, conflicts, ideal (= wavefronts - conflicts),
    n_way_avg (= wavefronts / ideal) and excess_pct (= conflicts / wavefronts, ncu's "% of the
    overall wavefronts"). From the source counters, when a `sass` table is given: addr_excess
    (replays the addresses explain), worst_n_way (the worst instruction's wavefronts / ideal).
    n_way is worst_n_way where known, else n_way_avg. status is 'none', 'conflicts', or
    'unexplained' (the hardware counts replays that no instruction's addresses cause).
    """
    per_instruction = _shared_by_instruction(sass) if sass is not None else None
    rows = []
    for record in kernels.to_dict("records"):
        for kind, wave_col, conflict_col, opcodes in SHARED_KINDS:
            wavefronts, conflicts = number(record.get(wave_col)), number(record.get(conflict_col))
            if not wavefronts > 0:
                continue
            row = {
                "report": record.get("report"), "launch": record.get("launch"), "kind": kind,
                "wavefronts": wavefronts, "conflicts": conflicts, "ideal": wavefronts - conflicts,
                "n_way_avg": n_way(wavefronts, conflicts), "excess_pct": 100.0 * conflicts / wavefronts,
                "addr_excess": np.nan, "worst_n_way": np.nan,
            }
            if per_instruction is not None:
                mine = per_instruction[(per_instruction["report"] == record.get("report"))
                                       & (per_instruction["launch"] == record.get("launch"))
                                       & per_instruction["opcode"].isin(opcodes)]
                if len(mine):
                    row["addr_excess"] = float(mine["shared_excess_wavefronts"].sum())
                    ratio = mine["shared_wavefronts"] / mine["shared_wavefronts_ideal"].where(mine["shared_wavefronts_ideal"] > 0)
                    row["worst_n_way"] = float(ratio.max()) if ratio.notna().any() else np.nan
            rows.append(row)
    columns = ["report", "launch", "kind", "wavefronts", "conflicts", "ideal", "n_way_avg", "excess_pct",
               "addr_excess", "worst_n_way"]
    out = pd.DataFrame(rows, columns=columns)
    out["n_way"] = out["worst_n_way"].where(out["worst_n_way"].notna(), out["n_way_avg"])
    out["status"] = [_conflict_status(r) for r in out.to_dict("records")]
    return out


def _conflict_status(row: dict) -> str:
    by_addresses = row["addr_excess"]
    if not pd.isna(by_addresses) and by_addresses > 0 and row["n_way"] > 1.0:
        return "conflicts"
    if row["excess_pct"] < CONFLICT_NEGLIGIBLE_PCT:
        return "none"
    return "unexplained" if not pd.isna(by_addresses) else "conflicts"


def _shared_by_instruction(sass: pd.DataFrame) -> pd.DataFrame:
    have = sass[sass["shared_wavefronts"].fillna(0) > 0]
    return have.assign(opcode=opcodes(have))[
        ["report", "launch", "opcode", "shared_wavefronts", "shared_wavefronts_ideal", "shared_excess_wavefronts"]]


def conflict_lines(source: pd.DataFrame, n: int = 5) -> pd.DataFrame:
    """Source lines that cause excess shared-memory wavefronts, worst first, per launch: line,
    code, wavefronts, ideal, excess, n_way (= wavefronts / ideal) and share_pct of the launch's
    excess."""
    columns = ["report", "launch", "file", "line", "code", "wavefronts", "ideal", "excess", "n_way", "share_pct"]
    have = source[source["shared_excess_wavefronts"].fillna(0) > 0]
    if have.empty:
        return pd.DataFrame(columns=columns)
    totals = have.groupby(_KEYS, dropna=False)["shared_excess_wavefronts"].transform("sum")
    out = pd.DataFrame({
        "report": have["report"], "launch": have["launch"], "file": have["file"], "line": have["line"],
        "code": have["code"], "wavefronts": have["shared_wavefronts"], "ideal": have["shared_wavefronts_ideal"],
        "excess": have["shared_excess_wavefronts"],
        "n_way": have["shared_wavefronts"] / have["shared_wavefronts_ideal"].where(have["shared_wavefronts_ideal"] > 0),
        "share_pct": 100.0 * have["shared_excess_wavefronts"] / totals,
    })
    out = out.sort_values(_KEYS + ["excess"], ascending=[True, True, False], kind="stable")
    return out.groupby(_KEYS, sort=False, dropna=False).head(n).reset_index(drop=True)[columns]


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


def shared_unmeasured(kernels: pd.DataFrame) -> pd.Series:
    """Launches whose shared-memory reads the wavefront counters cannot see: wgmma reads its
    operands from shared memory through descriptors (`shared_gmma_inst` > 0), so their shared
    traffic is not measured, never zero."""
    return numeric_column(kernels, "shared_gmma_inst").fillna(0) > 0


def shared_bytes(kernels: pd.DataFrame) -> pd.Series:
    """Shared-memory bytes as the bandwidth peak counts them: wavefronts (loads, stores, cp.async)
    times the 128 bytes one wavefront can move. Missing parts count 0 unless all are missing; NaN
    (not measured) where `shared_unmeasured`."""
    return shared_measured_bytes(kernels).where(~shared_unmeasured(kernels))


def shared_utilisation_pct(kernels: pd.DataFrame) -> pd.Series:
    """Shared-memory wavefronts (loads, stores, cp.async) per second over the peak rate, in %."""
    rate = shared_bytes(kernels).fillna(0) / (kernels["duration_ns"] * 1e-9)
    return 100.0 * rate / kernels["peak_shared_bytes_per_s"]


# A warpgroup MMA in SASS: `HGMMA.64x128x8.F32.TF32 R24, gdesc[UR12], R24`; A is read from shared
# memory when the operand after the accumulator is a descriptor, else from registers.
_WGMMA = re.compile(r"\b[HQI]GMMA\.(\d+)x(\d+)x(\d+)\.\w+(?:\.(\w+))?\s+\S+,\s*(\S+)")
# Bytes per operand element by the type SASS names (no type: FP16 / BF16).
_WGMMA_ELEMENT_BYTES = {"TF32": 4, "E4M3": 1, "E5M2": 1, "S8": 1, "U8": 1}
WARPS_PER_WARPGROUP = 4


def wgmma_shared_bytes(sass: pd.DataFrame) -> pd.DataFrame:
    """Per launch, an estimate of the bytes wgmma read from shared memory, which no wavefront
    counter sees: per warpgroup MMA (a warp-level count / 4) its B tile (N x K) and, when A comes
    through a descriptor, its A tile (M x K), at the operand type's size. An operand read once per
    instruction, as the PTX defines it; shared-memory broadcast between warpgroups is not modelled.
    Columns: report, launch, wgmma_shared_bytes (0 for a launch without wgmma)."""
    columns = [*_KEYS, "wgmma_shared_bytes"]
    if sass is None or sass.empty:
        return pd.DataFrame(columns=columns)
    per_row = []
    for text, executed in zip(sass["sass"].astype(str), sass["inst_executed"].fillna(0)):
        m = _WGMMA.search(text)
        if m is None:
            per_row.append(0.0)
            continue
        rows, cols, depth = (int(g) for g in m.group(1, 2, 3))
        size = _WGMMA_ELEMENT_BYTES.get(m.group(4) or "", 2)
        a_shared = m.group(5).startswith("gdesc")
        per_row.append(executed / WARPS_PER_WARPGROUP * size * depth * (cols + (rows if a_shared else 0)))
    frame = pd.DataFrame({"report": sass["report"], "launch": sass["launch"], "wgmma_shared_bytes": per_row})
    return frame.groupby(_KEYS, sort=False, dropna=False)["wgmma_shared_bytes"].sum().reset_index()[columns]


def shared_measured_bytes(kernels: pd.DataFrame) -> pd.Series:
    """The wavefront counters' shared bytes (loads, stores, cp.async, 128 bytes each), whether or
    not wgmma read more unseen (`shared_bytes` is NaN then)."""
    parts = pd.concat([numeric_column(kernels, col) for _, col, _, _ in SHARED_KINDS], axis=1)
    return parts.sum(axis=1, min_count=1) * SHARED_BYTES_PER_WAVEFRONT


def instruction_mix(sass: pd.DataFrame) -> pd.DataFrame:
    """Warp instructions executed per class (ffma, mma, global/shared loads and stores, async
    copies, barriers, other) per launch, and each memory class per math instruction
    (`<class>_per_math`). The math instruction (`math_op`) is the MMA where the launch ran tensor-core
    instructions (its few FFMAs are the epilogue), the FP64 instruction where those outnumber the
    FFMAs, else the FFMA."""
    if sass.empty:
        return pd.DataFrame(columns=_KEYS + list(MIX_CLASSES) + ["total"])
    classes = [OPCODE_CLASSES.get(o, "other") for o in opcodes(sass)]
    frame = pd.DataFrame({"report": sass["report"], "launch": sass["launch"], "cls": classes,
                          "n": sass["inst_executed"].fillna(0)})
    mix = frame.pivot_table(index=_KEYS, columns="cls", values="n", aggfunc="sum", fill_value=0.0)
    mix = mix.reindex(columns=list(MIX_CLASSES), fill_value=0.0)
    mix["total"] = mix.sum(axis=1)
    tensor = mix["mma"] > 0
    double = ~tensor & (mix["fp64"] > mix["ffma"])
    mix["math_op"] = np.where(tensor, "MMA", np.where(double, "DFMA", "FFMA"))
    mix["math"] = mix["mma"].where(tensor, mix["fp64"].where(double, mix["ffma"]))
    for cls in PER_MATH_CLASSES:
        mix[f"{cls}_per_math"] = mix[cls] / mix["math"].where(mix["math"] > 0)
    mix.columns.name = None
    return mix.reset_index()


def coalescing(source: pd.DataFrame) -> pd.DataFrame:
    """Global accesses per launch: L2 sectors requested, the ideal for fully coalesced access,
    the excess, and excess_pct (ncu's 'excessive sectors ... % of the total')."""
    columns = ["report", "launch", "sectors", "ideal", "excess", "excess_pct"]
    if source.empty:
        return pd.DataFrame(columns=columns)
    sums = source.groupby(_KEYS, dropna=False)[
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
    for (report, launch), group in have.groupby(_KEYS, sort=False, dropna=False):
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
    have = have.sort_values(_KEYS + ["l2_global_excess_sectors"], ascending=[True, True, False], kind="stable")
    out = have.groupby(_KEYS, sort=False, dropna=False).head(n)
    return out[["report", "launch", "file", "line", "code", "l2_global_sectors", "l2_global_sectors_ideal",
                "l2_global_excess_sectors"]].reset_index(drop=True)

