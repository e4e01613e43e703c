"""One function per bound, saying why: the problem, the summary, the evidence and the cure of a
verdict, built from a launch's signals. Which bound applies is `verdict.decide`'s decision; this
module only writes it up."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from .cause_text import hopper_sentence
from .code_causes import (LONE_LOADS_NOTE_PCT, SERIAL_EPILOGUE_NOTE_PCT, WASTED_MATH_NOTE_RATIO, barrier_cure,
                          lone_loads_cure, serial_epilogue_cure)
from .gemm_shape import executed_per_gemm_flop
from .idle_causes import TAIL_NOTE_PCT, ends_unevenly, split_along_z, waves_of_clusters
from .bounds import BOUNDS, Verdict
from .global_memory import input_bytes, launch_min_bytes
from .shared_memory import shared_unmeasured
from ..metrics import L2_SECTOR_BYTES
from ..numbers import count_of, fmt_bytes, fmt_count, fmt_num, fmt_pct, fmt_times, fmt_way
from .hot_lines import waits_at_mbarrier, where
from .signals import Signals, stall_sentence
from .values import number
from ..specs import ROOF_SHARE
from .stalls import BY_REASON
from .thresholds import (NOISE_PCT, LARGE_TILE_SHARED_PER_MATH, REGISTER_TILE_FULL, CONFLICT_NOTABLE_PCT, FFMA_SHARE_NOTE_PCT, ISSUE_NOTE_PCT,
                         BANK_CONFLICT_NOTE_PCT, BANK_DISPATCH_SAMPLES_PCT, BANK_DISPATCH_STALL_PCT,
                         GLOBAL_LOADS_PER_FFMA_HIGH, SECTOR_WORK_RATIO, SOL_BUSY_PCT, STALL_NOTABLE_PCT, UNCOALESCED_PCT)


def _verdict(key: str, problem: str, summary: str, evidence: list[str], cure: str | None, s: Signals,
             cause: str | None = None) -> Verdict:
    bound = BOUNDS[key]
    return Verdict(key, bound.label, problem, summary, tuple(e for e in evidence if e), cure or bound.cure,
                   cause=cause or key)


def _stall_evidence(s: Signals, reasons: tuple[str, ...] | None = None, n: int = 2) -> list[str]:
    real = s.real_stalls()
    if reasons is not None:
        real = real[real["reason"].isin(reasons)]
    out = []
    for r in real.head(n).to_dict("records"):
        if reasons is None and r["share_pct"] < STALL_NOTABLE_PCT and out:
            break
        out.append(stall_sentence(r))
    return out


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


def access_conflicts(s: Signals) -> list[dict]:
    """The notable bank conflicts of shared loads and stores (not cp.async's), worst first."""
    return [c for c in _conflicted(s) if c["kind"] in ("load", "store")]


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


def _lines_sentence(c: dict) -> str:
    per_line = c["wavefronts"] / (c["wavefronts"] - c["line_excess"])
    return (f"cp.async copies fill shared memory one wavefront per 128-byte global line a warp reads: "
            f"{fmt_times(per_line)} the wavefronts of copies from one line ({fmt_pct(100.0 * c['line_excess'] / c['wavefronts'])} "
            f"of their {fmt_count(c['wavefronts'])}). ncu counts them as bank conflicts, but their shared addresses "
            f"do not conflict: no layout change cures them; they cost shared-pipe bandwidth, and a warp's copies from "
            f"fewer rows (16-byte copies, or more k per row) would take fewer.")


def _occupancy_sentence(s: Signals) -> str:
    o = s.occupancy
    if pd.isna(o["achieved_pct"]):
        return ""
    text = (f"{fmt_num(o['warps_per_scheduler'], 2)} warps per scheduler to hide latency with: occupancy "
            f"{fmt_pct(o['achieved_pct'])} of {fmt_pct(o['theoretical_pct'])} theoretical")
    if o["limiter"] and o["theoretical_pct"] < 100:
        text += f", capped by {o['limiter']} ({count_of(o['blocks_per_sm'], 'block')} per SM)"
    return text + "."


def fp32(s: Signals) -> Verdict:
    u, k = s.util, s.launch
    summary = (f"The FMA pipe runs at {fmt_pct(u['fp32'])} of its FP32 peak{s.at_clock()} "
               f"({fmt_num(k['achieved_flops'] / 1e9)} of {fmt_num(k['peak_fp32_flops'] / 1e9)} GFLOP/s): "
               f"the kernel is at the compute roof.")
    evidence = [
        f"Issue slots busy {fmt_pct(u['issue'])} of cycles; {fmt_pct(u['ffma_share'])} of issued instructions are FFMA.",
        s.sides(),
        *_stall_evidence(s, n=1),
    ]
    return _verdict("fp32", "at the compute roof", summary, evidence, _library_roof(s), s, "fp32_roof")


def tensor(s: Signals) -> Verdict:
    u, k = s.util, s.launch
    peak = k.get("peak_tensor_flops", np.nan)
    peak = k["peak_tensor_fp16_flops"] if pd.isna(peak) else peak
    summary = (f"The tensor cores run at {fmt_pct(u['tensor'])} of their dense {tensor_peak_name(u)} peak "
               f"({fmt_num(k['tensor_flop'] / (k['duration_ns'] * 1e-9) / 1e9)} of "
               f"{fmt_num(peak / 1e9)} GFLOP/s{s.at_clock()}), the busiest unit: the kernel is "
               f"at or near the compute roof{_attained(s)}.")
    return _verdict("tensor", "at the tensor-core roof", summary,
                    [s.sides(), hopper_sentence(s), *_stall_evidence(s, n=1)], _library_roof(s) or tensor_cure(s), s,
                    "tensor_roof")


def _library_roof(s: Signals) -> str | None:
    """A library's kernel at the roof (cuBLAS, CUTLASS): nothing in it is the user's to tune."""
    if s.origin != "library":
        return None
    return ("Nothing to tune inside it: a library's kernel at the roof of its math. Only less math goes faster: a "
            "lower precision (TF32, BF16, FP8 where the accuracy allows), fewer or fused products, or other work "
            "overlapped with it.")


def _attained(s: Signals) -> str:
    """', within 10% of the 93% cuBLAS attains for this math (where that comes from)' ('' unknown)."""
    att = s.attainable or {}
    pct = number(att.get("pct"))
    if not pct > 0:
        return ""
    return f", within {fmt_pct(100 * (1 - ROOF_SHARE))} of the {fmt_pct(pct)} cuBLAS attains for this math ({att.get('source')})"


def tensor_cure(s: Signals) -> str | None:
    """The tensor bound's cure for a kernel that already feeds wgmma by TMA (the usual cure would
    prescribe what it does): the rest of the way is the pipe's idle cycles. None: the usual cure."""
    t = s.techniques or {}
    if not (t.get("wgmma") and t.get("tma")):
        return None
    idle = 100.0 - number(s.launch.get("pipe_tensor_active_pct"))
    gap = f"the {fmt_pct(idle)} of active cycles the tensor pipe idles" if idle > 0 else "the tensor pipe's idle cycles"
    return (f"Already wgmma fed by TMA; what is left is {gap}: keep a wgmma group in flight while the next "
            "one's operands are prepared (wgmma.wait_group 1, double-buffered operands), and move non-MMA work "
            "(operand conversion, partial sums, the epilogue) off the warps that issue the MMAs or under the next "
            "tile's MMAs. Past that, only fewer MMAs per result (a lower precision) go faster.")


def uses_tensor_cores(u: dict) -> bool:
    """Whether a launch's utilisation (a row of `utilisation`) shows tensor-core work: then its
    math is measured against the tensor peak of its input type (`tensor_peak_name`), not the FP32 pipe."""
    return not pd.isna(u.get("tensor", np.nan)) and u["tensor"] > 0


def tensor_peak_name(u: dict) -> str:
    """'TF32' or 'FP16': the input type whose tensor peak `u['tensor']` is a share of (an older
    utilisation row without the column: FP16, what it was measured against)."""
    name = u.get("tensor_input")
    return name if isinstance(name, str) else "FP16"


def math_share(u: dict) -> str:
    """'FP32 at 61% of peak', or for a launch that used tensor cores, their share of the peak of
    their input type ('of their TF32 peak' for the fp32-tc tier)."""
    if uses_tensor_cores(u):
        return f"tensor cores at {fmt_pct(u['tensor'])} of their {tensor_peak_name(u)} peak"
    return f"FP32 at {fmt_pct(u['fp32'])} of peak"


def dram(s: Signals) -> Verdict:
    u = s.util
    summary = f"DRAM moves {fmt_pct(u['dram'])} of its peak bandwidth."
    evidence = [_traffic_sentence(s, "DRAM", "dram_bytes"), s.sides(), *_stall_evidence(s, ("long_scoreboard",), 1)]
    return _verdict("dram", "DRAM bandwidth", summary, evidence, None, s)


def l2(s: Signals) -> Verdict:
    """The L2 is the busiest memory unit: the operands come from L2 again and again, or (busy by
    ncu's count well beyond its bytes) in more sectors than bytes: rows that start mid-sector."""
    u, k = s.util, s.launch
    busy = number(k.get("l2_throughput_pct"))
    l1 = fmt_pct(number(k.get("l1_throughput_pct")))
    evidence = [_traffic_sentence(s, "L2", "l2_bytes"), _traffic_sentence(s, "DRAM", "dram_bytes"), s.sides(),
                *_stall_evidence(s, ("long_scoreboard", "lg_throttle"), 2)]
    if busy >= SECTOR_WORK_RATIO * u["l2"]:
        rows = off_sector_rows(k)
        problem = "rows that start inside a 32-byte sector" if rows else "more L2 sector work than bytes"
        summary = (f"The L2 is {fmt_pct(busy)} busy by ncu's count, more than L1 ({l1}) and DRAM ({fmt_pct(u['dram'])}), "
                   f"while the bytes it serves are {fmt_pct(u['l2'])} of its peak: it handles more sectors and requests "
                   f"than those bytes need" + (f". {rows}." if rows else "."))
        cure = ("Read whole sectors: leading dimensions padded to a multiple of 64 elements (rows on whole 128-byte "
                "lines), or an operand copied once to such a pitch, so that each row of a tile or TMA box is whole "
                "sectors; then, if the L2 stays busy, more reuse per byte (larger tiles, clusters with TMA multicast)."
                if rows else
                "Fewer, whole-sector requests: 16-byte accesses aligned to the sectors they read, and more reuse per "
                "byte fetched from L2 (larger tiles, clusters with TMA multicast).")
        return _verdict("l2", problem, summary, evidence, cure, s, "l2_bandwidth")
    summary = (f"The L2 serves {fmt_pct(u['l2'])} of its peak bandwidth, more than L1 ({l1}) and DRAM "
               f"({fmt_pct(u['dram'])}): the blocks fetch their operands from L2 many times over.")
    cure = ("More reuse per byte fetched from L2: larger tiles per block (each operand byte feeds more math), or "
            "blocks that share their tiles (thread-block clusters with TMA multicast).")
    return _verdict("l2", "L2 bandwidth", summary, evidence, cure, s, "l2_bandwidth")


def off_sector_rows(launch) -> str:
    """Which operand's rows start inside a 32-byte sector, read as row-major A (M x K) and B
    (K x N) of the launch's element size; "" when none is, or without a shape."""
    K, N = number(launch.get("K")), number(launch.get("N"))
    if not (K > 0 and N > 0):
        return ""
    e = input_bytes(launch)
    off = [f"{name} ({d} = {int(n)}: rows of {int(n * e)} bytes)" for name, d, n in (("A", "K", K), ("B", "N", N))
           if (n * e) % L2_SECTOR_BYTES]
    return ("Stored row-major, " + " and ".join(off) + " are not whole 32-byte sectors a row, so rows start inside "
            "sectors: a 128-byte row of a tile that starts there reads five sectors, not four") if off else ""


def global_memory(s: Signals) -> Verdict:
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
    t = s.techniques or {}
    if cure is None and (t.get("shared_tiling") or t.get("cp_async") or t.get("tma")):
        # the usual cure stages tiles in shared memory, which this kernel already does
        cure = ("Its tiles are already staged in shared memory: more reuse per global byte needs larger tiles (more "
                "math per byte loaded: a larger block tile, more results per thread), and 16-byte loads or copies "
                "where they are narrower.")
    stall_part = (f"warps wait on the LG queue ({fmt_num(lg)} cycles per issued instruction, {fmt_pct(lg_share)} of all "
                  f"cycles)" if lg_share >= STALL_NOTABLE_PCT else "the global-memory path is the busiest unit")
    why = (f"its global accesses are uncoalesced: {fmt_pct(excess)} of the L2 sectors they request are excess"
           if uncoalesced else
           f"every {_math_op(s)} issues {fmt_num(loads)} global loads" if problem.endswith("no reuse on chip") else
           f"memory is {fmt_pct(u['memory'])} busy")
    summary = f"Bound by global-memory access through L1: {stall_part}, because {why}."
    evidence = [
        s.sides(),
        *_stall_evidence(s, ("lg_throttle", "long_scoreboard"), 2),
        where(s, "lg_throttle" if lg_share >= STALL_NOTABLE_PCT else None),
        (f"Global loads per {_math_op(s)}: {fmt_num(loads)}." if not pd.isna(loads) else ""),
        (f"Coalescing: {fmt_pct(excess)} of the {fmt_count(c['sectors'])} L2 sectors requested by global accesses are "
         f"excess." if not pd.isna(excess) else ""),
        _traffic_sentence(s, "L1", "l1_bytes"),
        _traffic_sentence(s, "L2", "l2_bytes"),
        f"DRAM at {fmt_pct(u['dram'])} of its peak: bandwidth is not the limit." if u["dram"] < SOL_BUSY_PCT else "",
    ]
    cause = "uncoalesced_load" if uncoalesced else "global_reuse" if problem.endswith("no reuse on chip") else "global_traffic"
    return _verdict("global", problem, summary, evidence, cure, s, cause)


def shared(s: Signals) -> Verdict:
    u = s.util
    conflicts = access_conflicts(s)
    loads = _per_math(s, "shared_load")
    mio, mio_share = s.stall("mio_throttle")
    short, short_share = s.stall("short_scoreboard")
    if conflicts:
        worst = conflicts[0]
        problem = f"{fmt_way(worst['n_way'])} bank conflicts on {KIND_NOUNS[worst['kind']]}"
        why = f"{fmt_pct(worst['excess_pct'])} of the {KIND_NOUNS[worst['kind']]}' wavefronts are conflict replays"
        cure = ("Change the layout so a warp's accesses fall in distinct banks: pad or transpose the tile, or give each "
                "lane contiguous float4s (conflict-free LDS.128).")
    elif u.get("shared_wgmma_bytes", 0) > 0:  # wgmma's operand reads and the kernel's own shared traffic
        reads, counted = u["shared_wgmma_bytes"], u["shared_counted_bytes"]
        problem = "shared-memory bandwidth (wgmma's operand reads plus the kernel's own shared loads and stores)"
        why = (f"wgmma reads about {fmt_bytes(reads)} of operands (estimated from its SASS: no counter sees them) "
               f"beside {fmt_bytes(counted)} of counted shared loads and stores")
        cure = ("Less shared traffic per MMA: keep operands that are staged in shared memory only to be "
                "converted or transposed out of that round trip (convert in registers, or feed wgmma's A "
                "from registers), and larger tiles per warpgroup so each operand byte feeds more MMAs.")
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
        s.sides() + f" Shared memory is {fmt_pct(u['shared'])} of its peak wavefront rate.",
        *_stall_evidence(s, ("mio_throttle", "short_scoreboard", "barrier"), 2),
        where(s, "mio_throttle" if mio >= short else "short_scoreboard"),
        f"Shared loads per {_math_op(s)}: {fmt_num(loads)}." if not pd.isna(loads) else "",
        *[_conflict_sentence(c) for c in conflicts],
    ]
    return _verdict("shared", problem, summary, evidence, cure, s, "bank_conflicts" if conflicts else "shared_throughput")


def issue(s: Signals) -> Verdict:
    u = s.util
    summary = (f"The schedulers issue on {fmt_pct(u['issue'])} of cycles, but only {fmt_pct(u['ffma_share'])} of the "
               f"instructions are FFMA: {math_share(u)}.")
    return _verdict("issue", f"instruction overhead ({fmt_pct(100 - u['ffma_share'])} non-FFMA)", summary,
                    [s.sides(), *_stall_evidence(s)], None, s, "issue")


def _few_warps(s: Signals) -> str:
    """' at 2.0 warps per scheduler' where so few are left to hide latency that a latency problem
    should say so; "" otherwise."""
    warps = s.occupancy["warps_per_scheduler"]
    return f" at {fmt_num(warps, 2)} warps per scheduler" if not pd.isna(warps) and warps <= 4 else ""


def latency(s: Signals) -> Verdict:
    u, t = s.util, s.techniques or {}
    real = s.real_stalls()
    top = real["reason"].iloc[0] if len(real) else None
    problem, cause, cure = _latency_cure(top, s)
    problem += _few_warps(s)
    busy = max(u["sm"], u["memory"])
    summary = (f"Latency bound: the schedulers issue on only {fmt_pct(u['issue'])} of cycles"
               + (f", the top stall being {BY_REASON[top].label} ({fmt_num(s.stall(top)[0])} cycles per instruction)"
                  if top else "")
               + f"; no unit is saturated (busiest {fmt_pct(busy)}), {math_share(u)}.")
    evidence = [
        s.sides() + (" Both below 60%: ncu reads that as latency." if busy < SOL_BUSY_PCT else ""),
        f"Issue slots busy {fmt_pct(u['issue'])} of cycles (a warp instruction every "
        f"{fmt_num(100.0 / u['issue'], 2)} cycles per scheduler)." if u["issue"] > 0 else "",
        _occupancy_sentence(s),
        hopper_sentence(s),
        *_stall_evidence(s, n=3),
        where(s, top),
        (f"Already uses: {', '.join(t['already_uses'])}." if t.get("already_uses") else ""),
    ]
    return _verdict("latency", problem, summary, evidence, cure, s, cause)


REGISTER_BANK_CURE = ("Give each FFMA's fresh operands banks of their own. Where accumulators leave as float4s, store "
                      "the quads rotated (column (q + 1) % 4 in slot q, as regbank128x256x8 does): the epilogue's "
                      "staging and a split's partial sums alike (streamk128x256x8's put_slot_rotated).")


def _bank_conflicts(s: Signals) -> tuple[float, float, float] | None:
    """(share of the FFMAs in conflict, share of the dispatch-stall samples on them, dispatch
    stalls' share of the cycles) where register-bank conflicts hold the FFMAs at dispatch
    (`register_banks`); None where they do not."""
    banks = s.banks or {}
    conflicting, on_them = number(banks.get("ffma_bank_conflict_pct")), number(banks.get("dispatch_on_conflicts_pct"))
    _, dispatch = s.stall("dispatch_stall")
    if conflicting >= BANK_CONFLICT_NOTE_PCT and on_them >= BANK_DISPATCH_SAMPLES_PCT and dispatch >= BANK_DISPATCH_STALL_PCT:
        return conflicting, on_them, dispatch
    return None


def _bank_sentence(conflicting: float, on_them: float, dispatch: float) -> str:
    return (f"{fmt_pct(conflicting)} of the FFMAs read two operands from one register bank (register number mod 4) "
            f"that the reuse cache does not hold, and they carry {fmt_pct(on_them)} of the dispatch-stall samples "
            f"({fmt_pct(dispatch)} of the cycles): each waits a cycle. ptxas keeps a quad of accumulators written by "
            f"one 128-bit store in an aligned register quadruple, as it does a fragment loaded by LDS.128, so "
            f"acc[i][j] lands in b[j]'s bank.")


def register_banks(s: Signals) -> Verdict | None:
    """Latency led by the FFMAs' register-bank conflicts where the dispatch stalls at conflicting
    FFMAs (the cycles rotating the registers removes) are within noise of the largest other stall
    or above it. Why not the top stall alone: cutlass128x256x8's MIO throttle (9.4% of the
    cycles) and its dispatch stalls at conflicting FFMAs (6.7%) are within noise, and the two
    cures measured apart: rotating the accumulator quads (regbank128x256x8) x1.16, spreading the
    shared loads after that (spread128x256x8) x1.01. A dispatch stall is an issue slot lost
    outright, where a throttled warp's slot may go to another warp. The stall it displaced is
    ranked beside it."""
    banks = _bank_conflicts(s)
    if banks is None:
        return None
    real = s.real_stalls()
    rivals = real[real["reason"] != "dispatch_stall"]  # the stalls another cure would remove
    at_conflicts = banks[2] * banks[1] / 100.0
    if len(rivals) and at_conflicts < float(rivals["share_pct"].iloc[0]) - NOISE_PCT:
        return None
    top, top_share = real["reason"].iloc[0], float(real["share_pct"].iloc[0])
    problem = "FFMAs waiting at dispatch on register-bank conflicts" + _few_warps(s)
    summary = (f"Latency bound: the schedulers issue on only {fmt_pct(s.util['issue'])} of cycles; FFMAs reading two "
               f"operands from one register bank lose {fmt_pct(at_conflicts)} of the cycles at dispatch"
               + ("." if top == "dispatch_stall" else
                  f", within noise of the top stall ({BY_REASON[top].label}, {fmt_pct(top_share)})."))
    tied = ("dispatch_stall", *rivals["reason"].head(1))
    evidence = [s.sides(), _occupancy_sentence(s), *_stall_evidence(s, tied), _bank_sentence(*banks),
                where(s, "dispatch_stall")]
    verdict = _verdict("latency", problem, summary, evidence, REGISTER_BANK_CURE, s, "register_banks")
    return replace(verdict, ranked=() if top == "dispatch_stall" else (_latency_cure(top, s)[1],), confidence="high")


def _latency_cure(top: str | None, s: Signals) -> tuple[str, str, str]:
    """(problem, cause, cure) for a latency-bound launch from its top stall, never prescribing what
    the kernel already does (`s.techniques`): where the usual cure is there, what is left."""
    t = s.techniques or {}
    capped = _occupancy_cap(s)
    if top == "long_scoreboard":
        return _global_latency_cure(t, s, capped)
    if top == "barrier":
        return ("waits at barriers", "barrier", barrier_cure(s))
    full = _tile_at_register_limit(s)
    if top == "short_scoreboard":
        per = (s.mix or {}).get("shared_load_per_math", np.nan)
        wide = "" if t.get("vector_shared_loads") else " Use 128-bit shared loads (LDS.128)."
        if full:
            return ("shared-load latency not hidden", "latency_shared",
                    f"{full} Load each k step's fragments while the step before is multiplied (fragments "
                    f"double-buffered in registers), and look for bank conflicts in the notes.{wide}")
        return ("shared-load latency not hidden", "latency_shared",
                f"Fewer shared loads per math instruction ({fmt_num(per)} now): a larger register micro-tile reuses "
                f"each loaded fragment more.{wide} Conflicts, if any, are in the notes." + capped)
    if top == "gmma":
        return ("waiting for wgmma results", "latency_pipeline",
                "Keep more wgmma groups in flight before waiting (wgmma.wait_group with a larger count), and give "
                "the consumer warpgroups more independent tiles.")
    if top in ("mio_throttle", "lg_throttle"):
        return _queue_cure(top, t, s, capped)
    if full:
        # Fragments loaded a k step ahead are advice only where shared-load waits still show.
        _, shared_waits = s.stall("short_scoreboard")
        ahead = shared_waits >= STALL_NOTABLE_PCT
        return ("instruction latencies not hidden by few warps", "latency",
                f"{full} What is left is the instruction stream itself: FFMAs ordered so that consecutive ones "
                "write different accumulators and share an operand register (not only its register bank), "
                + ("fragments loaded a k step ahead, " if ahead else "")
                + "and little else in the loop."
                + ("" if ahead else f" The fragments already arrive in time (shared-load waits: {fmt_pct(shared_waits)} "
                                    f"of the cycles)."))
    return ("too little independent work per warp", "latency",
            "More independent work per warp: a larger micro-tile per thread (more accumulators and FMAs per loaded "
            "value) issues FMAs back to back with fewer warps." + capped)


def _occupancy_cap(s: Signals) -> str:
    """The sentence (with a leading space) saying what caps occupancy, and for kernels whose
    registers the user sets, how many would fit one more block; "" when nothing caps it."""
    o = s.occupancy
    if not (o.get("limiter") and o.get("theoretical_pct", 100) < 100):
        return ""
    capped = f" Occupancy is capped by {o['limiter']} at {count_of(o['blocks_per_sm'], 'block')} per SM"
    if "registers" in o["limiter"] and not pd.isna(o.get("registers_for_next_block")) and s.origin in ("gemmprof", "cuda"):
        capped += (f" ({fmt_num(o['registers_per_thread'])} registers per thread; at most "
                   f"{fmt_num(o['registers_for_next_block'])} would fit one more block per SM)")
    return capped + "."


def _global_latency_cure(t: dict, s: Signals, capped: str) -> tuple[str, str, str]:
    """Long-scoreboard waits: global-memory latency, cured by what the kernel does not do yet
    (an async pipeline's stages, a deeper cp.async pipeline, a longer prefetch, a prefetch)."""
    if (t.get("tma") or t.get("wgmma")) and waits_at_mbarrier(s):
        return ("pipeline stages not ready in time (warps wait at mbarriers)", "latency_pipeline",
                "Most long-scoreboard samples are in the mbarrier wait, so the time goes to one side of the "
                "pipeline waiting for the other: consumers for a stage their producer has not filled (TMA "
                "latency, or the producer warps' own work on the stage: a split, a transpose), or the producer "
                "for a stage the consumers have not released. Give the late side more: more producer warps or "
                "less work per stage, more stages in flight, stages released as soon as their MMAs retire. Give "
                "each barrier its own wait call site, so the samples say which one.")
    if t.get("tma") or t.get("wgmma"):
        return ("global-memory latency in the async pipeline", "latency_pipeline",
                "The loads are already asynchronous (TMA into shared memory, mbarriers): keep more stages in "
                "flight (deeper pipeline), and look at where the long-scoreboard samples sit: in a TMA kernel "
                "they are plain global loads, usually C in the epilogue.")
    if t.get("cp_async_pipeline"):
        return ("global-load latency not hidden by the cp.async pipeline", "latency_global",
                f"cp.async already keeps {int(t.get('async_groups_in_flight', 0))} group(s) in flight: add a stage "
                f"(more shared memory per block), or issue the copies earlier in the k loop; check the samples' "
                f"line: loads outside the pipeline (the epilogue's C) are not covered by it." + capped)
    if t.get("register_prefetch") or t.get("cp_async"):
        return ("global-load latency not hidden", "latency_global",
                "The next tile is already loaded while this one is computed: make the prefetch distance longer "
                "(a multi-stage cp.async pipeline, two or three tiles ahead) or run more warps per SM." + capped)
    return ("global-load latency not hidden", "latency_global",
            "Prefetch the next tile (into registers, or with cp.async into a second shared buffer) while "
            "computing this one, so global loads overlap the FMAs." + capped)


def _queue_cure(top: str, t: dict, s: Signals, capped: str) -> tuple[str, str, str]:
    """A full memory instruction queue (MIO for shared, LG for global): fewer, wider instructions;
    where they are 128-bit already, issued spread among the math, or fewer per math instruction."""
    kind = "shared" if top == "mio_throttle" else "global"
    problem = f"{BY_REASON[top].label}: memory instruction queue full"
    if not t.get(f"vector_{kind}_loads"):
        return (problem, "latency_queue",
                f"Fewer, wider memory instructions. Use 128-bit {kind} loads, and more math per loaded value." + capped)
    # Already 128-bit (cutlass128x256x8: MIO throttle at its fragment loads, issued four LDS.128 at a
    # time): what is left is how they are issued, or a larger micro-tile where one still fits.
    per = number((s.mix or {}).get(f"{kind}_load_per_math"))
    full = _tile_at_register_limit(s)
    return (problem, "latency_queue",
            f"The {kind} loads are already 128-bit" + ("" if full else f" ({fmt_num(per)} per math instruction)")
            + ". The queue fills when a warp issues them in a burst: spread them among the math, a few in a row "
            "at most (the next k step's fragments loaded in parts between this step's FMAs)"
            + (f". {full}" if full else ", or need fewer of them per math instruction: a larger micro-tile.")
            + capped)


def _tile_at_register_limit(s: Signals) -> str:
    """The sentence saying the register micro-tile is already as large as it can be (few shared
    loads per FFMA and most of the register file), or "" when it can still grow."""
    per = number((s.mix or {}).get("shared_load_per_math"))
    registers = number(s.occupancy.get("registers_per_thread"))
    if not (per > 0 and per <= LARGE_TILE_SHARED_PER_MATH and registers >= REGISTER_TILE_FULL):
        return ""
    return (f"Each thread already holds a micro-tile at the register limit ({fmt_num(1.0 / per, 2)} FFMAs per "
            f"shared load, {fmt_num(registers)} registers): a larger one would spill, and more warps per SM "
            f"would need a smaller one.")


def notes(key: str, cause: str, s: Signals, covered: tuple[str, ...] = ()) -> list[str]:
    """Problems worth knowing that are not the bound: in memory accesses, in how the blocks fill
    the GPU, in the code itself; not those the verdict's cure already names (`covered`)."""
    return [*_access_notes(key, s), *_fill_notes(cause, s), *_code_notes(key, (cause, *covered), s)]


def _access_notes(key: str, s: Signals) -> list[str]:
    """Bank conflicts (all of them unless shared memory is the bound, whose verdict says them),
    conflicted lines, extra wavefronts no address explains, uncoalesced global accesses."""
    notes = []
    if key != "shared":
        for c in _conflicted(s):
            notes.append(_conflict_sentence(c))
    elif s.conflicts is not None:
        for c in s.conflicts[s.conflicts["kind"] == "cp.async"].to_dict("records"):
            if c["status"] == "conflicts" and c["excess_pct"] >= CONFLICT_NOTABLE_PCT:
                notes.append(_conflict_sentence(c))
    if s.conflicts is not None:
        for c in s.conflicts[s.conflicts["status"] == "lines"].to_dict("records"):
            if c["excess_pct"] >= CONFLICT_NOTABLE_PCT:
                notes.append(_lines_sentence(c))
        for c in s.conflicts[s.conflicts["status"] == "unexplained"].to_dict("records"):
            notes.append(f"The hardware counts {fmt_pct(c['excess_pct'])} extra wavefronts for {KIND_NOUNS[c['kind']]} "
                         f"that no instruction's addresses explain (the source counters show no conflicts there): "
                         f"not a layout problem.")
    c = s.coalescing or {}
    if key != "global" and not pd.isna(c.get("excess_pct", np.nan)) and c["excess_pct"] >= CONFLICT_NOTABLE_PCT:
        notes.append(f"{fmt_pct(c['excess_pct'])} of the L2 sectors requested by global accesses are excess "
                     f"(partly uncoalesced access).")
    return notes


def _fill_notes(cause: str, s: Signals) -> list[str]:
    """Achieved occupancy well below the theoretical, a costly partial last wave, blocks of one
    wave that end unevenly."""
    notes = []
    o = s.occupancy
    if o.get("achieved_gap"):
        notes.append(f"Achieved occupancy {fmt_pct(o['achieved_pct'])} is well below the theoretical "
                     f"{fmt_pct(o['theoretical_pct'])}: uneven blocks or a partial last wave.")
    cost = s.launch.get("tail_cost_pct")
    if cause != "tail" and cost is not None and not pd.isna(cost) and cost >= TAIL_NOTE_PCT:
        unit = "clusters" if waves_of_clusters(s) else "blocks"
        notes.append(f"{fmt_num(s.util['waves'], 3)} waves of {unit}: the partial last wave leaves about "
                     f"{fmt_pct(cost)} of the SMs' time idle (tail effect).")
    if cause != "uneven_end" and ends_unevenly(s):
        busy, fill = number(s.launch.get("sm_busy_pct")), number(s.util.get("sm_fill"))
        notes.append(f"The grid gives {fmt_pct(fill)} of the SMs a block, in one wave, yet the SMs are busy "
                     f"{fmt_pct(busy)} of the launch: the blocks end unevenly, and an SM whose blocks are done idles "
                     f"until the last one ends" + (" (K is split along the grid's z: the blocks that sum a tile's "
                                                   "partials end last)." if split_along_z(s) else "."))
    return notes


def _code_notes(key: str, causes: tuple[str, ...], s: Signals) -> list[str]:
    """What the code costs beside the bound: math on tile padding, issue slots spent off the
    FFMAs, register-bank conflicts, a serial epilogue, lone loads outside the loop, shared reads
    of wgmma no counter sees."""
    notes = []
    ratio = executed_per_gemm_flop(s.launch)
    if "wasted_math" not in causes and s.launch.get("math_pipe") == "fp32" and ratio >= WASTED_MATH_NOTE_RATIO:
        notes.append(f"It executed {fmt_times(ratio)} the GEMM's 2MNK FLOPs: {fmt_pct(100.0 * (1.0 - 1.0 / ratio))} of "
                     f"its FP32 math multiplies the zeros that fill tiles past M, N or K.")
    share = number(s.util.get("ffma_share"))
    issuing = number(s.util.get("issue")) >= ISSUE_NOTE_PCT  # else the slots are not what is short
    if key != "issue" and issuing and s.launch.get("math_pipe") == "fp32" and share < FFMA_SHARE_NOTE_PCT:
        notes.append(f"Only {fmt_pct(share)} of the issued instructions are FFMA: the others (address arithmetic, "
                     f"predicates, copies, loop control) take issue slots, so even with every stall hidden the FP32 "
                     f"pipe stays under {fmt_pct(share)} of its peak. Fewer instructions per FFMA raise that ceiling: "
                     f"addresses moved by an add per copy, no predicates in whole tiles, more FFMAs per loaded value.")
    banks = _bank_conflicts(s)
    if "register_banks" not in causes and banks:
        notes.append(f"{_bank_sentence(*banks)} {REGISTER_BANK_CURE}")
    serial = number((s.regions or {}).get("epilogue_serial_load_wait_pct"))
    if "serial_epilogue" not in causes and SERIAL_EPILOGUE_NOTE_PCT <= serial:
        notes.append(f"{fmt_pct(serial)} of the warps' samples wait in the epilogue for loads of C issued right after "
                     f"a store (C read and written by turns). " + serial_epilogue_cure(s))
    lone, at = number((s.regions or {}).get("lone_load_wait_pct")), (s.regions or {}).get("lone_load_at")
    if "lone_loads" not in causes and LONE_LOADS_NOTE_PCT <= lone:
        notes.append(f"{fmt_pct(lone)} of the warps' samples wait outside the main loop at the first use of global loads "
                     f"issued one or two at a time, a memory latency each" + (f" (most at {at})" if at else "") + ". "
                     + lone_loads_cure())
    if shared_unmeasured(pd.DataFrame([s.launch])).iloc[0]:
        notes.append("wgmma reads its operands from shared memory through descriptors, which the shared-memory "
                     "wavefront counters do not see: shared traffic is not measured for this kernel" +
                     (f" (the verdict adds an estimate of those reads from the SASS, "
                      f"{fmt_bytes(s.util['shared_wgmma_bytes'])})." if s.util.get("shared_wgmma_bytes", 0) > 0 else "."))
    return notes
