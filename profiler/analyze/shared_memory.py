"""Shared memory: bank conflicts as n-way, the bytes the wavefront counters see, and an estimate
of what wgmma reads unseen.

Bank conflicts. A shared-memory request takes one wavefront per pass through the 32 banks; a
conflict adds passes. With W wavefronts of which C are conflict replays, the conflict-free
request would take W - C, so the accesses are W / (W - C)-way on average (1 = no conflicts).
ncu's MemoryWorkloadAnalysis rule quotes "W / requests"-way instead, which also counts the
passes a 64- or 128-bit access needs without any conflict (an LDS.128 takes at least 4); its
"conflicts represent X% of the wavefronts" is C / W here. The source counters (`sass` table)
give the same per instruction from its addresses: wavefronts over ideal wavefronts. A conflict
is a property of an access pattern, so the worst instruction's n-way is the number to quote
("2-way"), with the average over all accesses beside it.

cp.async (LDGSTS) is the exception: it writes shared memory one wavefront per 128-byte global line
its warp reads, whatever the shared addresses. A warp of 4-byte copies reading 4 rows of 8 floats
(the spread tile's A copies) takes 4 wavefronts where ncu's ideal is 1, and ncu counts 3 as bank
conflicts, though its 32 shared words lie in 32 banks (a probe on the H100: 1 wavefront for one
line, 4 for 4 lines, 32 for 32, the same conflict-free shared addresses each time;
benchmarks/results/2026-11-23-h100/ldgsts-probe.log). So an LDGSTS instruction's excess up to its
global sectors beyond the ideal is counted as lines (`line_excess`, at most: a line holds up to 4
sectors), and only the rest as bank conflicts.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..metrics import SHARED_BYTES_PER_WAVEFRONT
from .instruction_mix import opcodes
from .values import LAUNCH_KEYS, number, numeric_column


# Conflict replays below this share of a kind's wavefronts are noise, not a layout problem.
CONFLICT_NEGLIGIBLE_PCT = 1.0

# Shared-memory access kinds: (name, wavefront column, conflict column, SASS opcodes of the kind).
SHARED_KINDS = (
    ("load", "shared_load_wavefronts", "shared_load_bank_conflicts", ("LDS", "LDSM")),
    ("store", "shared_store_wavefronts", "shared_store_bank_conflicts", ("STS", "STSM")),
    ("cp.async", "shared_ldgsts_wavefronts", "shared_ldgsts_bank_conflicts", ("LDGSTS",)),
)


def n_way(wavefronts: float, conflicts: float) -> float:
    """W / (W - C): 1.0 without conflicts, 2.0 when every request takes twice its passes; NaN
    when there were no wavefronts."""
    if not wavefronts or pd.isna(wavefronts) or pd.isna(conflicts):
        return np.nan
    ideal = wavefronts - conflicts
    return np.inf if ideal <= 0 else wavefronts / ideal


def bank_conflicts(kernels: pd.DataFrame, sass: pd.DataFrame | None = None) -> pd.DataFrame:
    """Bank conflicts of each launch, one row per access kind (load, store, cp.async) that
    moved any wavefronts.

    From the hardware counters: wavefronts, conflicts, ideal (= wavefronts - conflicts),
    n_way_avg (= wavefronts / ideal) and excess_pct (= conflicts / wavefronts, ncu's "% of the
    overall wavefronts"). From the source counters, when a `sass` table is given: addr_excess
    (replays the addresses explain), line_excess (of those, cp.async wavefronts one per global line,
    not conflicts: the module docstring), worst_n_way (the worst instruction's wavefronts over the
    ideal plus its line excess: 11 wavefronts where 4 lines need 4 are 2.75-way). n_way is
    worst_n_way where known, else n_way_avg. status is 'none', 'conflicts', 'lines' (cp.async whose
    excess is its warps' global lines) or 'unexplained' (the hardware counts replays that no
    instruction's addresses cause).
    """
    per_instruction = _shared_by_instruction(sass) if sass is not None else None
    rows = []
    for record in kernels.to_dict("records"):
        for kind, wave_col, conflict_col, kind_ops in SHARED_KINDS:
            wavefronts, conflicts = number(record.get(wave_col)), number(record.get(conflict_col))
            if not wavefronts > 0:
                continue
            row = {
                "report": record.get("report"), "launch": record.get("launch"), "kind": kind,
                "wavefronts": wavefronts, "conflicts": conflicts, "ideal": wavefronts - conflicts,
                "n_way_avg": n_way(wavefronts, conflicts), "excess_pct": 100.0 * conflicts / wavefronts,
                "addr_excess": np.nan, "line_excess": 0.0, "worst_n_way": np.nan,
            }
            if per_instruction is not None:
                mine = per_instruction[(per_instruction["report"] == record.get("report"))
                                       & (per_instruction["launch"] == record.get("launch"))
                                       & per_instruction["opcode"].isin(kind_ops)]
                if len(mine):
                    lines = _line_excess(mine) if kind == "cp.async" else pd.Series(0.0, index=mine.index)
                    row["addr_excess"] = float(mine["shared_excess_wavefronts"].sum())
                    row["line_excess"] = float(lines.sum())
                    ideal = mine["shared_wavefronts_ideal"].where(mine["shared_wavefronts_ideal"] > 0)
                    ratio = (mine["shared_wavefronts"] / (ideal + lines)).round(6)  # per pass its lines need
                    row["worst_n_way"] = float(ratio.max()) if ratio.notna().any() else np.nan
            rows.append(row)
    columns = ["report", "launch", "kind", "wavefronts", "conflicts", "ideal", "n_way_avg", "excess_pct",
               "addr_excess", "line_excess", "worst_n_way"]
    out = pd.DataFrame(rows, columns=columns)
    out["n_way"] = out["worst_n_way"].where(out["worst_n_way"].notna(), out["n_way_avg"])
    out["status"] = [_conflict_status(r) for r in out.to_dict("records")]
    return out


# cp.async excess at least this share of it from global lines: the copies' lines, not their banks.
LINES_SHARE_MIN = 0.9


def _line_excess(ldgsts: pd.DataFrame) -> pd.Series:
    """Per LDGSTS instruction, the excess wavefronts its warps' global lines account for: at most
    its global sectors beyond the ideal wavefronts (`l2_global_sectors`; 0 where a table lacks it)."""
    zero = pd.Series(0.0, index=ldgsts.index)
    sectors = ldgsts["l2_global_sectors"].fillna(0) if "l2_global_sectors" in ldgsts.columns else zero
    room = (sectors - ldgsts["shared_wavefronts_ideal"].fillna(0)).clip(lower=0)
    return ldgsts["shared_excess_wavefronts"].fillna(0).clip(upper=room)


def _conflict_status(row: dict) -> str:
    by_addresses = row["addr_excess"]
    if not pd.isna(by_addresses) and by_addresses > 0 and row["line_excess"] >= LINES_SHARE_MIN * by_addresses:
        return "lines" if row["excess_pct"] >= CONFLICT_NEGLIGIBLE_PCT else "none"
    if not pd.isna(by_addresses) and by_addresses > 0 and row["n_way"] > 1.0:
        return "conflicts"
    if row["excess_pct"] < CONFLICT_NEGLIGIBLE_PCT:
        return "none"
    return "unexplained" if not pd.isna(by_addresses) else "conflicts"


def _shared_by_instruction(sass: pd.DataFrame, extra: tuple[str, ...] = ()) -> pd.DataFrame:
    have = sass[sass["shared_wavefronts"].fillna(0) > 0]
    columns = ["report", "launch", "opcode", "shared_wavefronts", "shared_wavefronts_ideal", "shared_excess_wavefronts",
               *extra]
    return have.assign(opcode=opcodes(have))[columns + [c for c in ("l2_global_sectors",) if c in have.columns]]


def conflict_lines(source: pd.DataFrame, n: int = 5, sass: pd.DataFrame | None = None) -> pd.DataFrame:
    """Source lines that cause bank conflicts, worst first, per launch: line, code, wavefronts,
    ideal, excess, n_way (= wavefronts / (ideal + lines)) and share_pct of the launch's excess.
    With the `sass` table, a line's cp.async wavefronts one per global line (`_line_excess`) are
    not counted as excess: they are no conflict, and no layout change removes them."""
    columns = ["report", "launch", "file", "line", "code", "wavefronts", "ideal", "excess", "n_way", "share_pct"]
    lines = _lines_by_source_line(source, sass)
    excess = (source["shared_excess_wavefronts"].fillna(0) - lines).clip(lower=0)
    # a line's excess below CONFLICT_NEGLIGIBLE_PCT of its wavefronts is none (zero-filled copies read
    # no sector yet fill shared memory: a residue the lines do not account for)
    keep = excess >= (CONFLICT_NEGLIGIBLE_PCT / 100.0 * source["shared_wavefronts"].fillna(0)).clip(lower=1)
    have, excess, lines = source[keep], excess[keep], lines[keep]
    if have.empty:
        return pd.DataFrame(columns=columns)
    totals = excess.groupby([have[k] for k in LAUNCH_KEYS], dropna=False).transform("sum")
    out = pd.DataFrame({
        "report": have["report"], "launch": have["launch"], "file": have["file"], "line": have["line"],
        "code": have["code"], "wavefronts": have["shared_wavefronts"], "ideal": have["shared_wavefronts_ideal"],
        "excess": excess,
        "n_way": have["shared_wavefronts"]
        / (have["shared_wavefronts_ideal"] + lines).where(have["shared_wavefronts_ideal"] > 0),
        "share_pct": 100.0 * excess / totals,
    })
    out = out.sort_values(LAUNCH_KEYS + ["excess"], ascending=[True, True, False], kind="stable")
    return out.groupby(LAUNCH_KEYS, sort=False, dropna=False).head(n).reset_index(drop=True)[columns]


def _lines_by_source_line(source: pd.DataFrame, sass: pd.DataFrame | None) -> pd.Series:
    """Per row of `source`, the cp.async wavefronts of its instructions that their global lines
    account for (0 without a sass table)."""
    zero = pd.Series(0.0, index=source.index)
    if sass is None or sass.empty or not {"file", "line"} <= set(sass.columns):
        return zero
    ldgsts = _shared_by_instruction(sass, extra=("file", "line"))
    ldgsts = ldgsts[ldgsts["opcode"] == "LDGSTS"]
    if ldgsts.empty:
        return zero
    def key(frame: pd.DataFrame) -> list[tuple]:  # the tables may type a column apart (no file: float NaN)
        return list(zip(frame["report"].astype(str), frame["launch"].astype(str), frame["file"].astype(str),
                        pd.to_numeric(frame["line"], errors="coerce").fillna(-1).astype(int)))

    per_line: dict[tuple, float] = {}
    for k, lines in zip(key(ldgsts), _line_excess(ldgsts)):
        per_line[k] = per_line.get(k, 0.0) + float(lines)
    return pd.Series([per_line.get(k, 0.0) for k in key(source)], index=source.index, dtype="float64")


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


def wavefront_share_pct(launch: dict, wavefronts: float) -> float:
    """`wavefronts` as a share of what the shared-memory pipe could pass over one launch, in %
    (the peak `shared_utilisation_pct` measures against); +inf when the launch lacks its duration
    or peak, so a check on it does not silently pass."""
    seconds = number(launch.get("duration_ns")) * 1e-9
    capacity = seconds * number(launch.get("peak_shared_bytes_per_s")) / SHARED_BYTES_PER_WAVEFRONT
    return 100.0 * wavefronts / capacity if capacity > 0 else np.inf


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
    columns = [*LAUNCH_KEYS, "wgmma_shared_bytes"]
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
    return frame.groupby(LAUNCH_KEYS, sort=False, dropna=False)["wgmma_shared_bytes"].sum().reset_index()[columns]


def shared_measured_bytes(kernels: pd.DataFrame) -> pd.Series:
    """The wavefront counters' shared bytes (loads, stores, cp.async, 128 bytes each), whether or
    not wgmma read more unseen (`shared_bytes` is NaN then)."""
    parts = pd.concat([numeric_column(kernels, col) for _, col, _, _ in SHARED_KINDS], axis=1)
    return parts.sum(axis=1, min_count=1) * SHARED_BYTES_PER_WAVEFRONT
