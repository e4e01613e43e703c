"""What bounds a kernel: one verdict per launch, with the numbers that show it.

The decision follows Nsight Compute's Speed Of Light reasoning, made specific to a GEMM:

1. launch size: the grid leaves SMs without a block, so no per-SM counter matters;
2. math pipe: the FMA pipe (FP32) or the tensor cores (FP16) run near their peak (the compute roof);
3. memory side busy (the busiest memory unit at or above the SM's level, and busy):
   DRAM bandwidth if DRAM is near its peak; shared memory / MIO if shared-memory wavefronts
   are most of the busiest unit's load; otherwise global-memory access through L1/L2 (LSU);
4. SM busy but not on FP32 math: instruction issue if the schedulers issue nearly every cycle,
   else latency;
5. nothing busy: latency and occupancy (ncu's own reading of "both below 60%").

Each verdict names the problem in one phrase (what the next rung of the ladder should fix), a
one-sentence summary with the deciding numbers, the evidence behind it and the usual cure.
Thresholds are the module constants below, each with the reason for its value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .memory import launch_min_bytes, shared_utilisation_pct
from .occupancy import SCHEDULERS_PER_SM, occupancy
from .stalls import BY_REASON, stall_breakdown
from .values import numeric_column

# The FMA pipe is the limit from this share of its peak: the best FP32 SGEMMs reach 70-80%.
FP32_BOUND_PCT = 70.0
# The tensor cores are the limit from this share of their dense FP16 peak: cuBLAS's FP16 GEMM on the
# H200 runs at 70% at 4096 (of the peak at the clock it ran, which fell to 1.6 GHz).
TENSOR_BOUND_PCT = 65.0
# ncu's own threshold: a unit below 60% of its peak is not saturated; both below means latency.
SOL_BUSY_PCT = 60.0
# Memory and SM throughput within this many points count as balanced; memory is examined first
# then, because in a GEMM the memory side feeds the math.
BALANCE_MARGIN_PCT = 5.0
# DRAM is the limit from this share of its peak bandwidth.
DRAM_BOUND_PCT = 60.0
# Shared memory is the busy memory unit when its wavefronts make up at least this share of the
# busiest memory unit's utilisation (both run through the L1 data pipe).
SHARED_SHARE_MIN = 0.5
# A grid that gives blocks to fewer than this share of the SMs is bound by its size.
LAUNCH_FILL_MIN_PCT = 50.0
# Schedulers issuing on this share of cycles are the limit themselves (instruction overhead).
ISSUE_BUSY_PCT = 80.0
# Excess L2 sectors from this share of all requested by global accesses: uncoalesced access.
UNCOALESCED_PCT = 25.0
# Bank-conflict replays from this share of a kind's wavefronts are worth naming as the problem.
CONFLICT_NOTABLE_PCT = 10.0
# A stall reason from this share of all cycles between issues is worth quoting as evidence.
STALL_NOTABLE_PCT = 10.0
# Global loads per FFMA (or MMA) from which operands are evidently not reused on chip.
GLOBAL_LOADS_PER_FFMA_HIGH = 0.5

# Warp schedulers per SM (one issue slot each per cycle).
ISSUE_SLOTS_PER_SM = SCHEDULERS_PER_SM


@dataclass(frozen=True)
class Bound:
    key: str
    label: str
    cure: str


# THE list of bounds a verdict can name.
BOUNDS: dict[str, Bound] = {b.key: b for b in (
    Bound("launch", "launch size",
          "Give the GPU more blocks: smaller tiles, split-K, or a larger problem."),
    Bound("fp32", "FP32 pipe",
          "Only fewer instructions per FMA (larger register tiles) or other math units (TF32 or FP16 tensor cores) "
          "go faster."),
    Bound("tensor", "tensor cores",
          "Only a faster tensor-core path (on Hopper: wgmma fed from shared memory by the bulk tensor copy engine) "
          "or a lower precision goes faster."),
    Bound("dram", "DRAM bandwidth",
          "Reuse each byte more: larger tiles in shared memory and registers, and a block order that keeps tiles in L2."),
    Bound("global", "global memory (L1/LSU)",
          "Stage tiles of A and B in shared memory (or registers) so each global load feeds many FMAs."),
    Bound("shared", "shared memory / MIO",
          "More FMAs per shared load (register tiling, 128-bit loads) and a layout free of bank conflicts."),
    Bound("issue", "instruction issue",
          "Fewer non-FMA instructions: larger register tiles, wider loads, index math hoisted out of the loop."),
    Bound("unknown", "unknown",
          "Profile with gemmprof profile (ncu --set full plus the metrics gemmprof asks for)."),
    Bound("latency", "latency and occupancy",
          "Hide latency with independent work: prefetch the next tile while computing this one, more accumulators "
          "per thread, or more warps per SM."),
)}


@dataclass(frozen=True)
class Verdict:
    """What bounds one launch. `evidence` and `notes` are plain sentences (no markup)."""

    bound: str
    label: str
    problem: str
    summary: str
    evidence: tuple[str, ...] = ()
    cure: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)


# ---------------------------------------------------------------------------------------------
# Numbers in prose. The report's tables format numbers with the same functions.


def fmt_num(value: float, digits: int = 3) -> str:
    """Plain number with thousands separators; small values keep `digits` significant digits."""
    if value is None or pd.isna(value):
        return "n/a"
    if math.isinf(value):
        return "inf"
    if abs(value) >= 1000 or value == int(value):
        return f"{value:,.0f}"
    decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(value)))))
    return f"{value:,.{decimals}f}"


def fmt_pct(value: float) -> str:
    """12.3 -> '12%'; small percentages keep a significant digit ('0.04%')."""
    if value is None or pd.isna(value):
        return "n/a"
    if abs(value) >= 10 or value == 0:
        return f"{value:.0f}%"
    if abs(value) >= 1:
        return f"{value:.1f}%"
    return f"{value:.2g}%"


def fmt_bytes(value: float) -> str:
    """Decimal units, as ncu shows them: 67108864 -> '67.1 MB'."""
    if value is None or pd.isna(value):
        return "n/a"
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.1f} {unit}"
    return f"{value:.0f} B"


def fmt_times(value: float) -> str:
    """A multiplier: 4228.0 -> '4,228x', 0.79 -> '0.79x'."""
    if value is None or pd.isna(value):
        return "n/a"
    return f"{fmt_num(value, 3 if value < 100 else 0)}x"


def fmt_ratio(value: float) -> str:
    """A change by a factor, as the ladder shows it: 0.12 -> 'x0.12', 13.38 -> 'x13.4'."""
    if value is None or pd.isna(value):
        return "n/a"
    text = fmt_num(value, 2 if value < 1 else 3)
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return f"x{text}"


def fmt_count(value: float) -> str:
    """A large count, compact: 402801223 -> '402.8 M'."""
    if value is None or pd.isna(value):
        return "n/a"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.1f} {unit}"
    return fmt_num(value)


def fmt_way(value: float) -> str:
    """n-way of a bank conflict: 2.0 -> '2-way', 1.67 -> '1.67-way', 1.0 -> 'none'."""
    if value is None or pd.isna(value):
        return "n/a"
    if value < 1.005:
        return "none"
    return f"{value:.0f}-way" if abs(value - round(value)) < 0.05 else f"{value:.2f}-way"


# ---------------------------------------------------------------------------------------------
# Signals


def utilisation(kernels: pd.DataFrame) -> pd.DataFrame:
    """Per launch, in % of each unit's peak: sm, memory (ncu's Speed Of Light), dram, l2, shared
    (wavefront rate), fp32 (FP32 FLOPs on the FMA pipe), tensor (tensor-core FLOPs against the dense
    FP16 peak), issue (issue slots used); ffma_share (FFMAs among issued
    warp instructions); blocks, waves and sm_fill (share of SMs given a block)."""
    def col(name: str) -> pd.Series:  # a missing column (an older table) reads as unknown
        return numeric_column(kernels, name)

    seconds = col("duration_ns") * 1e-9
    issue_slots = col("smsp_cycles") * ISSUE_SLOTS_PER_SM * col("sm_count")
    blocks = col("grid_x") * col("grid_y") * col("grid_z")
    shared = shared_utilisation_pct(kernels) if "peak_shared_bytes_per_s" in kernels.columns else col("_")
    out = pd.DataFrame({
        "report": kernels.get("report"), "launch": kernels.get("launch"),
        "sm": col("sm_throughput_pct"), "memory": col("memory_throughput_pct"),
        "dram": 100.0 * col("dram_bytes") / seconds / col("peak_dram_bytes_per_s"),
        "l2": 100.0 * col("l2_bytes") / seconds / col("peak_l2_bytes_per_s"),
        "shared": shared,
        "fp32": 100.0 * col("fp32_flop") / seconds / col("peak_fp32_flops"),
        "tensor": 100.0 * col("tensor_flop").fillna(0.0) / seconds / col("peak_tensor_fp16_flops"),
        "issue": 100.0 * col("inst_executed") / issue_slots,
        "ffma_share": 100.0 * (col("ffma_thread_inst") / 32.0) / col("inst_executed"),
        "blocks": blocks, "waves": col("waves_per_sm"),
        "sm_fill": 100.0 * np.minimum(1.0, blocks / col("sm_count")),
    }, index=kernels.index)
    # ncu's own DRAM throughput where it has one (same definition, its rounding).
    out["dram"] = col("dram_throughput_pct").where(col("dram_throughput_pct").notna(), out["dram"])
    return out.astype({c: "float64" for c in out.columns if c not in ("report", "launch")})


def classify(kernels: pd.DataFrame, mix: pd.DataFrame | None = None, conflicts: pd.DataFrame | None = None,
             coalescing: pd.DataFrame | None = None, source: pd.DataFrame | None = None,
             util: pd.DataFrame | None = None, occ: pd.DataFrame | None = None) -> pd.DataFrame:
    """One verdict per launch of `kernels`. The optional frames add evidence: `mix` from
    `memory.instruction_mix`, `conflicts` from `memory.bank_conflicts`, `coalescing` from
    `memory.coalescing`, `source` (the run's table) where the deciding stalls happen; `util` and
    `occ`, `utilisation(kernels)` and `occupancy(kernels)` when the caller has them already.
    Columns: report, launch, verdict (a `Verdict`), bound, label, problem."""
    util = utilisation(kernels) if util is None else util
    occ = occupancy(kernels) if occ is None else occ
    stalls = stall_breakdown(kernels)
    rows = []
    for i, record in enumerate(kernels.to_dict("records")):
        key = (record.get("report"), record.get("launch"))
        signals = Signals(
            launch=record,
            util=util.iloc[i].to_dict(),
            occupancy=occ.iloc[i].to_dict(),
            stalls=_for(stalls, key),
            mix=_first(_for(mix, key)),
            conflicts=_for(conflicts, key),
            coalescing=_first(_for(coalescing, key)),
            lines=_for(source, key),
        )
        v = decide(signals)
        rows.append({"report": key[0], "launch": key[1], "verdict": v, "bound": v.bound, "label": v.label,
                     "problem": v.problem})
    return pd.DataFrame(rows, columns=["report", "launch", "verdict", "bound", "label", "problem"])


@dataclass
class Signals:
    """Everything one verdict looks at, for one launch (rows as dicts)."""

    launch: dict
    util: dict
    occupancy: dict
    stalls: pd.DataFrame
    mix: dict | None = None
    conflicts: pd.DataFrame | None = None
    coalescing: dict | None = None
    lines: pd.DataFrame | None = None  # this launch's rows of the source table

    def stall(self, reason: str) -> tuple[float, float]:
        """(cycles per issued instruction, share of all cycles in %) of one reason."""
        row = self.stalls[self.stalls["reason"] == reason]
        if row.empty:
            return 0.0, 0.0
        return float(row["cycles_per_inst"].iloc[0]), float(row["share_pct"].iloc[0])

    def real_stalls(self) -> pd.DataFrame:
        """Stall reasons that are a cost (not 'not selected'), largest first."""
        s = self.stalls[~self.stalls["benign"] & (self.stalls["cycles_per_inst"] > 0)]
        return s.sort_values("cycles_per_inst", ascending=False, kind="stable")


def decide(s: Signals) -> Verdict:
    """The verdict for one launch's signals (see the module docstring for the order)."""
    u = s.util
    if pd.isna(u["sm"]) or pd.isna(u["memory"]):
        return Verdict("unknown", BOUNDS["unknown"].label, "missing counters",
                       "The profile lacks the Speed Of Light counters (SM and memory throughput) a verdict needs.",
                       (), BOUNDS["unknown"].cure)
    if u["sm_fill"] < LAUNCH_FILL_MIN_PCT:
        return _launch(s)
    if u["fp32"] >= FP32_BOUND_PCT:
        return _fp32(s)
    if u["tensor"] >= TENSOR_BOUND_PCT:
        return _tensor(s)
    memory_busy = u["memory"] >= SOL_BUSY_PCT and u["memory"] >= u["sm"] - BALANCE_MARGIN_PCT
    if memory_busy:
        if u["dram"] >= DRAM_BOUND_PCT:
            return _dram(s)
        if u["shared"] >= SHARED_SHARE_MIN * u["memory"]:
            return _shared(s)
        return _global(s)
    if u["sm"] >= SOL_BUSY_PCT and u["issue"] >= ISSUE_BUSY_PCT:
        return _issue(s)
    return _latency(s)


# ---------------------------------------------------------------------------------------------
# One function per bound: the problem, the summary, the evidence, the cure.


def _verdict(key: str, problem: str, summary: str, evidence: list[str], cure: str | None, s: Signals) -> Verdict:
    bound = BOUNDS[key]
    return Verdict(key, bound.label, problem, summary, tuple(e for e in evidence if e), cure or bound.cure,
                   tuple(_notes(key, s)))


def _sides(s: Signals) -> str:
    return f"Speed Of Light: memory {fmt_pct(s.util['memory'])} busy, SM {fmt_pct(s.util['sm'])}."


def _stall_evidence(s: Signals, reasons: tuple[str, ...] | None = None, n: int = 2) -> list[str]:
    real = s.real_stalls()
    if reasons is not None:
        real = real[real["reason"].isin(reasons)]
    out = []
    for r in real.head(n).to_dict("records"):
        if reasons is None and r["share_pct"] < STALL_NOTABLE_PCT and out:
            break
        out.append(f"{_upper(BY_REASON[r['reason']].label)}: {fmt_num(r['cycles_per_inst'])} stall cycles per "
                   f"issued instruction ({fmt_pct(r['share_pct'])} of all cycles between issues).")
    return out


def _where(s: Signals, reason: str | None) -> str:
    """Which source line most of a stall reason's PC samples fall on (needs -lineinfo)."""
    column = f"samples_{reason}"
    lines = s.lines
    if reason is None or lines is None or lines.empty or column not in lines.columns:
        return ""
    counts = lines[column].fillna(0)
    have = lines[lines["line"].notna() & (counts > 0)]
    if have.empty or counts.sum() <= 0:
        return ""
    top = have.loc[have[column].idxmax()]
    code = top["code"].split("//")[0].strip() if isinstance(top.get("code"), str) else ""
    return (f"{fmt_pct(100.0 * top[column] / counts.sum())} of the {BY_REASON[reason].label} samples are at line "
            f"{int(top['line'])}" + (f": `{code}`." if code else "."))


def _upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def _per_math(s: Signals, cls: str) -> float:
    """Instructions of `cls` per math instruction (FFMA, or MMA for a tensor-core kernel)."""
    return np.nan if not s.mix else float(s.mix.get(f"{cls}_per_math", np.nan))


def _math_op(s: Signals) -> str:
    return (s.mix or {}).get("math_op", "FFMA")


def _traffic_sentence(s: Signals, level: str, column: str) -> str:
    k = s.launch
    minimum = launch_min_bytes(k)
    if minimum is None or pd.isna(k.get(column)):
        return ""
    least = minimum["total"]
    return (f"{level} moved {fmt_bytes(k[column])}, {fmt_times(k[column] / least)} the {fmt_bytes(least)} the GEMM "
            f"needs.")


def _conflicted(s: Signals, minimum_pct: float = CONFLICT_NOTABLE_PCT) -> list[dict]:
    if s.conflicts is None or s.conflicts.empty:
        return []
    rows = s.conflicts[(s.conflicts["status"] == "conflicts") & (s.conflicts["excess_pct"] >= minimum_pct)]
    return rows.sort_values("excess_pct", ascending=False).to_dict("records")


# How each shared-memory access kind reads in a sentence.
KIND_NOUNS = {"load": "shared loads", "store": "shared stores", "cp.async": "cp.async copies into shared memory"}


def _conflict_sentence(c: dict) -> str:
    return (f"Bank conflicts on {KIND_NOUNS[c['kind']]}: {fmt_way(c['n_way'])} at the worst instruction; "
            f"{fmt_pct(c['excess_pct'])} of their {fmt_count(c['wavefronts'])} wavefronts are replays "
            f"({fmt_num(c['n_way_avg'])}x the conflict-free count).")


def _occupancy_sentence(s: Signals) -> str:
    o = s.occupancy
    if pd.isna(o["achieved_pct"]):
        return ""
    text = (f"{fmt_num(o['warps_per_scheduler'], 2)} warps per scheduler to hide latency with: occupancy "
            f"{fmt_pct(o['achieved_pct'])} of {fmt_pct(o['theoretical_pct'])} theoretical")
    if o["limiter"] and o["theoretical_pct"] < 100:
        text += f", capped by {o['limiter']} ({fmt_num(o['blocks_per_sm'])} blocks per SM)"
    return text + "."


def _launch(s: Signals) -> Verdict:
    u, k = s.util, s.launch
    sms = int(k["sm_count"])
    idle = sms - int(min(u["blocks"], sms))
    summary = (f"The grid has {fmt_num(u['blocks'])} blocks for {sms} SMs: {idle} SMs get no work "
               f"({fmt_num(u['waves'], 2)} waves).")
    return _verdict("launch", "too few blocks to fill the GPU", summary,
                    [f"Only {fmt_pct(u['sm_fill'])} of the SMs run a block.", _sides(s)], None, s)


def _fp32(s: Signals) -> Verdict:
    u, k = s.util, s.launch
    summary = (f"The FMA pipe runs at {fmt_pct(u['fp32'])} of its FP32 peak "
               f"({fmt_num(k['achieved_flops'] / 1e9)} of {fmt_num(k['peak_fp32_flops'] / 1e9)} GFLOP/s): "
               f"the kernel is at the compute roof.")
    evidence = [
        f"Issue slots busy {fmt_pct(u['issue'])} of cycles; {fmt_pct(u['ffma_share'])} of issued instructions are FFMA.",
        _sides(s),
        *_stall_evidence(s, n=1),
    ]
    return _verdict("fp32", "at the compute roof", summary, evidence, None, s)


def _tensor(s: Signals) -> Verdict:
    u, k = s.util, s.launch
    summary = (f"The tensor cores run at {fmt_pct(u['tensor'])} of their dense FP16 peak "
               f"({fmt_num(k['tensor_flop'] / (k['duration_ns'] * 1e-9) / 1e9)} of "
               f"{fmt_num(k['peak_tensor_fp16_flops'] / 1e9)} GFLOP/s at the clock of this launch): the kernel is at "
               f"the compute roof.")
    return _verdict("tensor", "at the tensor-core roof", summary, [_sides(s), *_stall_evidence(s, n=1)], None, s)


def uses_tensor_cores(u: dict) -> bool:
    """Whether a launch's utilisation (a row of `utilisation`) shows tensor-core work: then its
    math is measured against the FP16 tensor peak, not the FP32 pipe."""
    return not pd.isna(u.get("tensor", np.nan)) and u["tensor"] > 0


def math_share(u: dict) -> str:
    """'FP32 at 61% of peak', or for a launch that used tensor cores, their share of the FP16 peak."""
    if uses_tensor_cores(u):
        return f"tensor cores at {fmt_pct(u['tensor'])} of their FP16 peak"
    return f"FP32 at {fmt_pct(u['fp32'])} of peak"


def _dram(s: Signals) -> Verdict:
    u = s.util
    summary = f"DRAM moves {fmt_pct(u['dram'])} of its peak bandwidth."
    evidence = [_traffic_sentence(s, "DRAM", "dram_bytes"), _sides(s), *_stall_evidence(s, ("long_scoreboard",), 1)]
    return _verdict("dram", "DRAM bandwidth", summary, evidence, None, s)


def _global(s: Signals) -> Verdict:
    u = s.util
    lg, lg_share = s.stall("lg_throttle")
    loads = _per_math(s, "global_load")
    c = s.coalescing or {}
    excess = c.get("excess_pct", np.nan)
    uncoalesced = not pd.isna(excess) and excess >= UNCOALESCED_PCT
    if uncoalesced:
        problem = "uncoalesced global accesses"
        cure = ("Map consecutive threads to consecutive addresses (threadIdx.x along the contiguous dimension), so a "
                "warp's access is a few whole 32-byte sectors.")
    elif not pd.isna(loads) and loads >= GLOBAL_LOADS_PER_FFMA_HIGH:
        problem = f"{fmt_num(loads)} global loads per {_math_op(s)}, no reuse on chip"
        cure = None
    else:
        problem = "global-memory traffic"
        cure = None
    stall_part = (f"warps wait on the LG queue ({fmt_num(lg)} cycles per issued instruction, {fmt_pct(lg_share)} of all "
                  f"cycles)" if lg_share >= STALL_NOTABLE_PCT else "the global-memory path is the busiest unit")
    why = (f"its global accesses are uncoalesced: {fmt_pct(excess)} of the L2 sectors they request are excess"
           if uncoalesced else
           f"every {_math_op(s)} issues {fmt_num(loads)} global loads" if problem.endswith("no reuse on chip") else
           f"memory is {fmt_pct(u['memory'])} busy")
    summary = f"Bound by global-memory access through L1: {stall_part}, because {why}."
    evidence = [
        _sides(s),
        *_stall_evidence(s, ("lg_throttle", "long_scoreboard"), 2),
        _where(s, "lg_throttle" if lg_share >= STALL_NOTABLE_PCT else None),
        (f"Global loads per {_math_op(s)}: {fmt_num(loads)}." if not pd.isna(loads) else ""),
        (f"Coalescing: {fmt_pct(excess)} of the {fmt_count(c['sectors'])} L2 sectors requested by global accesses are "
         f"excess." if not pd.isna(excess) else ""),
        _traffic_sentence(s, "L1", "l1_bytes"),
        _traffic_sentence(s, "L2", "l2_bytes"),
        f"DRAM at {fmt_pct(u['dram'])} of its peak: bandwidth is not the limit." if u["dram"] < SOL_BUSY_PCT else "",
    ]
    return _verdict("global", problem, summary, evidence, cure, s)


def _shared(s: Signals) -> Verdict:
    u = s.util
    conflicts = [c for c in _conflicted(s) if c["kind"] in ("load", "store")]
    loads = _per_math(s, "shared_load")
    mio, mio_share = s.stall("mio_throttle")
    short, short_share = s.stall("short_scoreboard")
    if conflicts:
        worst = conflicts[0]
        problem = f"{fmt_way(worst['n_way'])} bank conflicts on {KIND_NOUNS[worst['kind']]}"
        why = f"{fmt_pct(worst['excess_pct'])} of the {KIND_NOUNS[worst['kind']]}' wavefronts are conflict replays"
        cure = ("Change the layout so a warp's accesses fall in distinct banks: pad or transpose the tile, or give each "
                "lane contiguous float4s (conflict-free LDS.128).")
    else:
        per = f"{fmt_num(loads)} shared loads per {_math_op(s)}" if not pd.isna(loads) else "shared-memory instruction throughput"
        problem = f"shared-load throughput ({per})" if not pd.isna(loads) else per
        why = f"each {_math_op(s)} needs {fmt_num(loads)} shared loads" if not pd.isna(loads) else "shared memory is the busiest unit"
        cure = None
    waiting = "on a full MIO queue" if mio >= short else "waiting for shared-load results"
    cycles, share = (mio, mio_share) if mio >= short else (short, short_share)
    summary = (f"Bound by shared memory: it runs at {fmt_pct(u['shared'])} of its wavefront peak and warps stall "
               f"{waiting} ({fmt_num(cycles)} cycles per issued instruction, {fmt_pct(share)} of all cycles), "
               f"because {why}.")
    evidence = [
        _sides(s) + f" Shared memory is {fmt_pct(u['shared'])} of its peak wavefront rate.",
        *_stall_evidence(s, ("mio_throttle", "short_scoreboard", "barrier"), 2),
        _where(s, "mio_throttle" if mio >= short else "short_scoreboard"),
        f"Shared loads per {_math_op(s)}: {fmt_num(loads)}." if not pd.isna(loads) else "",
        *[_conflict_sentence(c) for c in conflicts],
    ]
    return _verdict("shared", problem, summary, evidence, cure, s)


def _issue(s: Signals) -> Verdict:
    u = s.util
    summary = (f"The schedulers issue on {fmt_pct(u['issue'])} of cycles, but only {fmt_pct(u['ffma_share'])} of the "
               f"instructions are FFMA: {math_share(u)}.")
    return _verdict("issue", f"instruction overhead ({fmt_pct(100 - u['ffma_share'])} non-FFMA)", summary,
                    [_sides(s), *_stall_evidence(s)], None, s)


_LATENCY_PROBLEMS = {
    "long_scoreboard": ("global-load latency not hidden",
                        "Prefetch the next tile into registers while computing this one (double buffering), so global "
                        "loads overlap the FMAs."),
    "barrier": ("waits at barriers",
                "Fewer barriers per FMA: deeper k tiles, double-buffered shared memory (one __syncthreads per tile)."),
    "short_scoreboard": ("shared-load latency not hidden",
                         "Load the next k step's fragments into registers while the current one is multiplied."),
    "mio_throttle": ("shared-memory instruction queue full", None),
    "lg_throttle": ("global-memory instruction queue full", None),
}


def _latency(s: Signals) -> Verdict:
    u, o = s.util, s.occupancy
    real = s.real_stalls()
    top = real["reason"].iloc[0] if len(real) else None
    problem, cure = _LATENCY_PROBLEMS.get(top, ("too little independent work per warp", None))
    if cure is None:
        cure = ("More independent work per warp: a larger micro-tile per thread (more accumulators and FMAs per loaded "
                "value) issues FMAs back to back with fewer warps.")
    if not pd.isna(o["warps_per_scheduler"]) and o["warps_per_scheduler"] <= 4:
        problem += f" at {fmt_num(o['warps_per_scheduler'], 2)} warps per scheduler"
    if o["limiter"] and "registers" in o["limiter"] and not pd.isna(o["registers_for_next_block"]):
        cure += (f" Occupancy is capped by registers ({fmt_num(o['registers_per_thread'])} per thread); at most "
                 f"{fmt_num(o['registers_for_next_block'])} would fit one more block per SM.")
    busy = max(u["sm"], u["memory"])
    summary = (f"Latency bound: the schedulers issue on only {fmt_pct(u['issue'])} of cycles"
               + (f", the top stall being {BY_REASON[top].label} ({fmt_num(s.stall(top)[0])} cycles per instruction)"
                  if top else "")
               + f"; no unit is saturated (busiest {fmt_pct(busy)}), {math_share(u)}.")
    evidence = [
        _sides(s) + (" Both below 60%: ncu reads that as latency." if busy < SOL_BUSY_PCT else ""),
        f"Issue slots busy {fmt_pct(u['issue'])} of cycles (a warp instruction every "
        f"{fmt_num(100.0 / u['issue'], 2)} cycles per scheduler)." if u["issue"] > 0 else "",
        _occupancy_sentence(s),
        *_stall_evidence(s, n=3),
        _where(s, top),
    ]
    return _verdict("latency", problem, summary, evidence, cure, s)


def _notes(key: str, s: Signals) -> list[str]:
    """Problems worth knowing that are not the bound."""
    notes = []
    if key != "shared":
        for c in _conflicted(s):
            notes.append(_conflict_sentence(c))
    elif s.conflicts is not None:
        for c in s.conflicts[s.conflicts["kind"] == "cp.async"].to_dict("records"):
            if c["status"] == "conflicts" and c["excess_pct"] >= CONFLICT_NOTABLE_PCT:
                notes.append(_conflict_sentence(c))
    if s.conflicts is not None:
        for c in s.conflicts[s.conflicts["status"] == "unexplained"].to_dict("records"):
            notes.append(f"The hardware counts {fmt_pct(c['excess_pct'])} extra wavefronts for {KIND_NOUNS[c['kind']]} "
                         f"that no instruction's addresses explain (the source counters show no conflicts there): "
                         f"not a layout problem.")
    c = s.coalescing or {}
    if key != "global" and not pd.isna(c.get("excess_pct", np.nan)) and c["excess_pct"] >= CONFLICT_NOTABLE_PCT:
        notes.append(f"{fmt_pct(c['excess_pct'])} of the L2 sectors requested by global accesses are excess "
                     f"(partly uncoalesced access).")
    o = s.occupancy
    if o.get("achieved_gap"):
        notes.append(f"Achieved occupancy {fmt_pct(o['achieved_pct'])} is well below the theoretical "
                     f"{fmt_pct(o['theoretical_pct'])}: uneven blocks or a partial last wave.")
    waves = s.util["waves"]
    if not pd.isna(waves) and waves > 1 and 0 < waves % 1 <= 0.5 and key != "launch":
        notes.append(f"{fmt_num(waves, 3)} waves of blocks: the last, partial wave leaves SMs idle (tail effect).")
    return notes


def _for(frame: pd.DataFrame | None, key: tuple) -> pd.DataFrame | None:
    if frame is None:
        return None
    report, launch = key
    mask = (frame["report"] == report) if report is not None else frame["report"].isna()
    return frame[mask & (frame["launch"] == launch)]


def _first(frame: pd.DataFrame | None) -> dict | None:
    return None if frame is None or frame.empty else frame.iloc[0].to_dict()
