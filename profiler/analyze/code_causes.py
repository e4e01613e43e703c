"""Cause checks for pathologies in the kernel's code that no amount of tiling cures: math past the
matrix's edges (tiles that do not fit the shape), math done in double, arrays or spills in local
memory, atomics to a few addresses, divergent warps, scattered global accesses, bank conflicts on
every shared load, an epilogue that holds most of the time, loads waited for one or two at a time,
barriers, code fetched faster than it is reused. Each returns a `Verdict` naming its cause, or None (`causes`, the table, orders them).
Thresholds are module constants, each with the reason for its value; cures never prescribe a
technique the kernel already uses (`Signals.techniques`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..stall_table import BY_REASON
from ..numbers import fmt_bytes, fmt_count, fmt_num, fmt_pct, fmt_times, fmt_way
from .bounds import Verdict
from .cause_text import cause, class_samples, hopper_sentence, math_instructions, math_name, stall_lines
from .gemm_shape import executed_per_gemm_flop, gemm_flop, math_flop
from .shared_memory import wavefront_share_pct
from .signals import Signals
from .values import number

# FP32 FLOPs executed at this multiple of the GEMM's 2MNK: the math on padding is the cause (a fifth
# of it wasted). splitk128x256x8rs at 16384x128x4096, tiles 256 wide over N = 128: 2.0x, FP32 pipe
# 76% busy and twice the time of the same tile turned to 256x128 (shapes-profile-5). From
# WASTED_MATH_NOTE_RATIO a note: 128x256 tiles over 1000^3, 2500^3 or 5000^3 execute 1.05x.
WASTED_MATH_RATIO = 1.25
WASTED_MATH_NOTE_RATIO = 1.04
# Local-memory instructions per math instruction from which local memory is the cause (a spill or
# an array access every few FMAs), or local-memory samples from this share of all samples.
LOCAL_PER_MATH_MIN = 0.05
LOCAL_SAMPLES_MIN_PCT = 10.0
# Spilled requests from this share of local-memory requests: spills rather than an array.
SPILL_SHARE_MIN_PCT = 50.0
# Samples at atomic instructions from this share: the atomics are the cause. Or atomic sectors at
# this many per L2 cycle (one slice serves about one same-address atomic per few cycles) while the
# L2 as a whole is mostly idle: the atomics serialise on a few addresses.
ATOMIC_SAMPLES_MIN_PCT = 20.0
ATOMIC_SERIAL_RATE_MIN = 0.05
ATOMIC_L2_BUSY_MAX_PCT = 25.0
# ... and no faster than one slice serves them (about one sector a cycle): a faster stream of atomics
# is spread over many addresses and slices, not waiting on each other. A split-K SGEMM adding its
# partials to C with RED (the held-out corpus, v_atomic_splitk) ran 2.9 a cycle and was bound by its
# loads; the probe that adds to a few addresses runs one every 3 cycles.
ATOMIC_SERIAL_RATE_MAX = 1.0
# Threads active per instruction below this (of 32): divergence. The branch-uniformity counter is
# evidence, not a gate: one divergent branch before two uniform loops (odd lanes walking K
# backwards) halves the active threads at 99.6% uniform branch targets.
DIVERGENT_THREADS_MAX = 26.0
# Global accesses requesting this many times the sectors a coalesced access needs are scattered
# (one 4-byte element per 32-byte sector is 8x).
SCATTERED_RATIO_MIN = 3.0
# A scattered access is the cause when its kind moves at least this share of the global sectors.
SCATTERED_SHARE_MIN_PCT = 20.0
# Bank-conflict replays on this share of shared-load wavefronts (2-way on average): the cause.
CONFLICT_CAUSE_PCT = 50.0
# ... and only when the replays take at least this share of what the shared pipe could pass over the
# launch: 56% replays of an epilogue's few loads cost about 1% (wgmma_tmastore).
CONFLICT_COST_MIN_PCT = 5.0
# The epilogue is the cause when it holds this share of the samples and its hottest line this share.
EPILOGUE_MIN_PCT = 40.0
EPILOGUE_LINE_MIN_PCT = 20.0
# Long-scoreboard samples at the epilogue's loads issued between stores (`regions.waits_on_loads_after_store`)
# from this share of all samples: the cause (splitk64x64x8 at 1023^3 before its epilogue read C
# ahead: 31%, and 24 points of cuBLAS came back with the cure).
SERIAL_EPILOGUE_MIN_PCT = 20.0
# ... and a note from this share (splitk64x64x8 at 1024^3: 12%, worth about 1% of its time there).
SERIAL_EPILOGUE_NOTE_PCT = 10.0
# Long-scoreboard samples outside the main loop at the first use of global loads issued one or
# two at a time (`regions.waits_on_lone_loads`) from this share of all samples: the cause (the
# probe reading C a row at a time behind an edge check: 61%). A note from LONE_LOADS_NOTE_PCT:
# streamk128x256x8's fix-up summing its partials a load at a time held 1.5% at 4096^3, and issued
# together +1.3 to +3.5% of cuBLAS came back (3072-4096^3); the rungs without such chains hold 0.4%
# at most.
LONE_LOADS_MIN_PCT = 20.0
LONE_LOADS_NOTE_PCT = 1.0
# Barrier stalls from this share of all cycles between issues: barrier-bound.
BARRIER_MIN_PCT = 30.0
# "No instruction" stalls (a warp waiting for its next instruction to be fetched) from this share of
# all cycles between issues: instruction fetch is the cause. The corpus's decode_unrolled, a split-K
# kernel whose loops the compiler unrolled (each instruction run about twice a warp): 63%; the same
# kernel rolled (skinny): 7%, and 64% -> 92% of cuBLAS. Every other launch of the corpus and of the
# committed ladder runs: 10% at most (cuBLAS's split-K reduction kernel, 9.4%).
NO_INSTRUCTION_MIN_PCT = 30.0
# Runs of each instruction a warp below this: the code is fetched for a use or two, so rolling the
# loops is the cure (a main loop reuses its body hundreds of times; decode_unrolled: 2).
FETCHED_FOR_FEW_RUNS_MAX = 4.0
# Bytes of one SASS instruction (sm_70 and later).
SASS_INSTRUCTION_BYTES = 16
# Math instructions in double from this share of FLOPs: the kernel computes in FP64.
FP64_FLOP_SHARE_MIN = 0.5


def wasted_math(s: Signals) -> Verdict | None:
    """A kernel whose tiles reach far past M or N multiplies the zeros that fill them: its pipe is
    busy, yet much of the math is not the GEMM's, and the bound that shows (FP32 pipe, latency)
    is not the cause. Only where FP32 does the math: a tensor-core tier may run several MMAs a
    product by design (3xTF32), which the counters cannot tell from padding. Only for gemmprof's
    own kernels, whose grid of tiles over C the manifest fixes: another kernel may do more math
    than 2MNK for reasons of its own, which the page states as counted FLOPs, not as a cause."""
    k = s.launch
    ratio = executed_per_gemm_flop(k)
    if k.get("math_pipe") != "fp32" or not ratio >= WASTED_MATH_RATIO or s.origin != "gemmprof":
        return None  # only where the tiles are known to reach past C: another kernel's extra math may be its own
    M, N, K = (int(k[d]) for d in "MNK")
    short, side = ("M", M) if M < N else ("N", N)
    wasted = 100.0 * (1.0 - 1.0 / ratio)
    cure = (f"Tiles that fit C: {short} = {side} is its short side, so a tile at most {side} along {short} (the "
            f"same warp tiles arranged longer along the other side), or a dispatcher that chooses the tile per shape, "
            f"wastes nothing there.")
    return cause("waste", "wasted math", "wasted_math", f"{fmt_pct(wasted)} of its math is past the matrix's edges",
                 f"It executed {fmt_times(ratio)} the {M}x{N}x{K} GEMM's 2MNK FLOPs: {fmt_pct(wasted)} of its FP32 "
                 f"math multiplies the zeros that fill tiles past M, N or K.",
                 [f"FP32 FLOPs executed {fmt_count(math_flop(k))}; the GEMM's 2MNK {fmt_count(gemm_flop(k))}.",
                  f"FP32 pipe {fmt_pct(s.util['fp32'])} of peak, of which {fmt_pct(s.util['fp32'] / ratio)} is the "
                  f"GEMM's math.", s.sides()], cure)


def fp64(s: Signals) -> Verdict | None:
    k = s.launch
    flop64, flop32 = number(k.get("fp64_flop")), number(k.get("fp32_flop"))
    if not flop64 > 0 or flop64 < FP64_FLOP_SHARE_MIN * (flop64 + np.nan_to_num(flop32)):
        return None
    peak = number(k.get("peak_fp64_flops"))
    rate = flop64 / (number(k.get("duration_ns")) * 1e-9)
    cure = ("Keep the math in FP32: a double literal (1.0 instead of 1.0f) or a double accumulator promotes every "
            "multiply-add to DFMA; write float literals and float accumulators (or FP32 tensor-core paths).")
    return cause("fp64", "FP64 pipe", "fp64", "math in double precision (DFMA on the FP64 pipe)",
                 f"{fmt_pct(100 * flop64 / (flop64 + np.nan_to_num(flop32)))} of the FLOPs are FP64: "
                 f"{fmt_num(rate / 1e9)} GFLOP/s against an FP64 peak of {fmt_num(peak / 1e9)} GFLOP/s, where FP32 "
                 f"would have {fmt_num(number(k.get('peak_fp32_flops')) / 1e9)}.",
                 [f"FP64 pipe busy {fmt_pct(number(k.get('pipe_fp64_pct')))} of active cycles; FMA pipe "
                  f"{fmt_pct(number(k.get('pipe_fma_pct')))}.",
                  class_samples(s, "fp64", "FP64 instructions")], cure)


def local_memory(s: Signals) -> Verdict | None:
    k = s.launch
    inst = np.nansum([number(k.get("local_load_inst")), number(k.get("local_store_inst"))])
    math = math_instructions(s)
    per_math = inst / math if math > 0 else np.nan
    sampled = np.nansum([number(s.regions.get(f"local_{d}_samples_pct")) for d in ("load", "store")]) if s.regions else 0.0
    if not inst > 0 or not (per_math >= LOCAL_PER_MATH_MIN or sampled >= LOCAL_SAMPLES_MIN_PCT):
        return None
    spill_pct = number(k.get("local_spill_pct"))
    spills = not np.isnan(spill_pct) and spill_pct >= SPILL_SHARE_MIN_PCT
    evidence = [f"{fmt_count(inst)} local loads and stores ({fmt_num(per_math)} per {math_name(s)}), "
                f"{fmt_bytes(number(k.get('local_bytes')))} through L1; stack frame {fmt_num(number(k.get('stack_bytes')))} "
                f"bytes per thread.",
                f"{fmt_pct(spill_pct)} of the local requests are register spills." if not np.isnan(spill_pct) else "",
                f"{fmt_pct(sampled)} of the warps' samples wait at local-memory instructions." if sampled else ""]
    if spills:
        cure = ("Give the compiler the registers it needs (lift -maxrregcount or __launch_bounds__' minimum blocks) "
                "or shrink the register tile, so nothing spills; ptxas -v reports the spill bytes.")
        return cause("local", "local memory", "spills", "register spills to local memory",
                     f"Registers spill: {fmt_num(per_math)} local-memory accesses per {math_name(s)} go through L1 "
                     f"instead of staying in registers ({fmt_num(number(k.get('registers_per_thread')))} registers per "
                     f"thread).", evidence, cure)
    cure = ("Keep the array in registers: index it only with compile-time constants (fully unrolled loops), or "
            "stage it in shared memory if it must be indexed at run time.")
    return cause("local", "local memory", "local_memory", "a per-thread array in local memory",
                 f"A per-thread array lives in local memory: {fmt_num(per_math)} local accesses per {math_name(s)}, "
                 f"indexed at run time, so the compiler cannot keep it in registers.", evidence, cure)


def atomics(s: Signals) -> Verdict | None:
    k = s.launch
    share = number((s.regions or {}).get("atomic_samples_pct"))
    sectors = np.nansum([number(k.get("atomic_l2_sectors")), number(k.get("reduction_l2_sectors"))])
    l2_cycles = number(k.get("duration_ns")) * 1e-9 * number(k.get("l2_clock_hz"))
    rate = sectors / l2_cycles if l2_cycles > 0 else np.nan
    l2_busy = number(k.get("l2_throughput_pct"))
    serialised = (ATOMIC_SERIAL_RATE_MIN <= rate <= ATOMIC_SERIAL_RATE_MAX
                  and (np.isnan(l2_busy) or l2_busy < ATOMIC_L2_BUSY_MAX_PCT))
    if not (share >= ATOMIC_SAMPLES_MIN_PCT or serialised):
        return None
    requests = np.nansum([number(k.get("atomic_requests")), number(k.get("reduction_requests"))])
    math = math_instructions(s)
    cure = ("Accumulate privately first (registers, then one atomic per block or per warp after a shuffle "
            "reduction) and spread the target addresses; atomics to one address serialise at one L2 slice.")
    return cause("atomics", "atomics", "atomics", "atomics serialised on a few addresses",
                 f"{fmt_count(sectors)} atomic sectors in {fmt_num(number(k.get('duration_ns')) / 1e6)} ms: one every "
                 f"{fmt_num(1 / rate if rate > 0 else np.nan)} L2 cycles, the pace of one L2 slice, while the L2 as a whole "
                 f"is {fmt_pct(l2_busy)} busy: the atomics wait on each other.",
                 [f"{fmt_count(requests)} atomic requests ({fmt_num(requests / math)} per {math_name(s)})." if math > 0 else "",
                  f"{fmt_pct(share)} of the warps' samples are at atomic instructions; the queues behind them back up "
                  f"(see the stalls)." if share > 0 else "",
                  *stall_lines(s, ("mio_throttle", "lg_throttle", "long_scoreboard")), s.sides()], cure)


def divergence(s: Signals) -> Verdict | None:
    k = s.launch
    threads, uniform = number(k.get("threads_per_inst")), number(k.get("branch_uniform_pct"))
    if np.isnan(threads) or threads >= DIVERGENT_THREADS_MAX:
        return None
    cure = ("Make the branch uniform per warp: map the two paths to different warps (branch on the warp index, not "
            "the lane), or make both paths one path with predication or arithmetic selection.")
    return cause("divergence", "warp divergence", "divergence", f"{fmt_num(threads)} of 32 threads active per instruction",
                 f"Warps run divergent: {fmt_num(threads)} of 32 threads are active per executed instruction, so each warp "
                 f"issues its paths one after the other.",
                 [f"{uniform:.1f}% of branch targets are uniform (all of a warp's threads went the same way): one "
                  f"divergent branch before a long path is enough." if not np.isnan(uniform) else "",
                  f"Divergent branch targets: {fmt_count(number(k.get('branch_targets_divergent')))}."
                  if not pd.isna(k.get("branch_targets_divergent")) else "", s.sides()], cure)


def scattered(s: Signals) -> Verdict | None:
    c = s.coalescing or {}
    total = np.nansum([number(c.get("load_sectors")), number(c.get("store_sectors"))])
    for kind in ("store", "load"):
        ratio, sectors = number(c.get(f"{kind}_ratio")), number(c.get(f"{kind}_sectors"))
        if np.isnan(ratio) or ratio < SCATTERED_RATIO_MIN or not total > 0 or 100 * sectors / total < SCATTERED_SHARE_MIN_PCT:
            continue
        noun = "stores" if kind == "store" else "loads"
        what = "C" if kind == "store" else "the operands"
        k = s.launch
        cure = (f"Map consecutive threads to consecutive addresses of {what} (threadIdx.x along the contiguous, "
                f"row-major dimension), or transpose through shared memory, so a warp's {noun[:-1]} covers a few "
                f"whole 32-byte sectors.")
        return cause("global", "global memory (L1/LSU)", f"uncoalesced_{kind}", f"uncoalesced global {noun}",
                     f"Global {noun} are scattered: they request {fmt_num(ratio)}x the L2 sectors a coalesced access "
                     f"would ({fmt_num(number(k.get(f'global_{kind}_sectors_per_request')))} sectors per request), and move "
                     f"{fmt_pct(100 * sectors / total)} of the global sectors.",
                     [f"Sectors over the coalesced ideal: loads {fmt_num(number(c.get('load_ratio')))}x, stores "
                      f"{fmt_num(number(c.get('store_ratio')))}x.",
                      class_samples(s, "global_store", "global stores") if kind == "store" else "",
                      *stall_lines(s, ("lg_throttle", "long_scoreboard")), s.sides()], cure)
    return None


def bank_conflicts(s: Signals) -> Verdict | None:
    if s.conflicts is None or s.conflicts.empty:
        return None
    rows = s.conflicts[(s.conflicts["kind"] == "load") & (s.conflicts["status"] == "conflicts")
                       & (s.conflicts["excess_pct"] >= CONFLICT_CAUSE_PCT)]
    if rows.empty:
        return None
    c = rows.iloc[0]
    if wavefront_share_pct(s.launch, c["wavefronts"] - c["ideal"]) < CONFLICT_COST_MIN_PCT:
        return None  # real replays, but too few to bound the kernel: a note, not the verdict
    cure = ("Change the shared layout so a warp's loads fall in distinct banks: pad each row by one access width, "
            "swizzle (XOR the column with the row), or have each lane read contiguous float4s.")
    return cause("shared", "shared memory / MIO", "bank_conflicts", f"{fmt_way(c['n_way'])} bank conflicts on shared loads",
                 f"{fmt_pct(c['excess_pct'])} of the shared-load wavefronts are bank-conflict replays "
                 f"({fmt_way(c['n_way'])} at the worst instruction): every shared load takes several passes.",
                 [f"Shared loads: {fmt_count(c['wavefronts'])} wavefronts where {fmt_count(c['ideal'])} would do.",
                  *stall_lines(s, ("mio_throttle", "short_scoreboard")), s.sides()], cure)


def epilogue(s: Signals) -> Verdict | None:
    """Most of the samples after the main loop, warps asleep there left out (`regions`)."""
    r = s.regions or {}
    share = number(r.get("epilogue_pct")) - np.nan_to_num(number(r.get("epilogue_parked_pct")))
    line_share = number(r.get("epilogue_line_pct"))
    if np.isnan(share) or share < EPILOGUE_MIN_PCT or np.isnan(line_share) or line_share < EPILOGUE_LINE_MIN_PCT:
        return None
    if (serial := serial_epilogue(s) or lone_loads(s)) is not None:  # the epilogue's time is its loads, waited for by turns
        return serial
    t, c = s.techniques or {}, s.coalescing or {}
    line = f"line {int(r['epilogue_line'])}" if number(r.get("epilogue_line")) == number(r.get("epilogue_line")) else "one instruction"
    reason = r.get("epilogue_top_reason")
    waiting = f", mostly {BY_REASON[reason].label}" if reason in BY_REASON else ""
    worst = np.nanmax([number(c.get("load_ratio")), number(c.get("store_ratio")), 0.0])
    fix_c = (f"Read and write C coalesced first (its accesses request {fmt_num(worst)}x the sectors of coalesced "
             f"ones): consecutive threads on consecutive columns, through shared memory if the fragment layout needs "
             f"it. Then " if worst >= SCATTERED_RATIO_MIN else "")
    if t.get("tma") or t.get("wgmma"):
        cure = fix_c + ("overlap the epilogue with the next tile's main loop: a persistent kernel whose consumer "
                        "warpgroups alternate (one stores while the other computes), or load C early with TMA into "
                        "shared memory and store through TMA, so the tensor cores do not wait for C.")
    else:
        cure = fix_c + ("make the epilogue cheap or overlap it: load C early (before the last k tiles), and give the "
                        "grid enough blocks per SM that one block's epilogue overlaps another's main loop.")
    cure = cure[:1].upper() + cure[1:]
    return cause("latency", "latency and occupancy", "epilogue", f"epilogue-bound: {fmt_pct(line_share)} of the samples "
                 f"at the epilogue's {line}", f"{fmt_pct(line_share)} of the warps' samples sit at {line}, after the main "
                 f"loop{waiting} ({fmt_pct(share)} after the loop in all{_asleep(r)}): the epilogue, not the loop, is "
                 f"where the time goes.",
                 [f"Samples: prologue {fmt_pct(number(r.get('prologue_pct')))}, main loop {fmt_pct(number(r.get('loop_pct')))}, "
                  f"epilogue {fmt_pct(share)}.",
                  f"Hottest epilogue instruction: `{r['epilogue_code']}`." if r.get("epilogue_code") else "",
                  f"Global accesses request {fmt_num(worst)}x the sectors of coalesced ones (C)." if fix_c else "",
                  hopper_sentence(s), s.sides()], cure)


def _asleep(regions: dict) -> str:
    parked = number(regions.get("epilogue_parked_pct"))
    return f", besides {fmt_pct(parked)} of warps asleep there" if parked > 0 else ""


def serial_epilogue(s: Signals) -> Verdict | None:
    """C read and written by turns. Not the verdict when C's accesses are scattered too: reading
    scattered C ahead would only queue more of its excess sectors, so the coalescing comes first
    (the epilogue and scattered checks say so; the note still names the order)."""
    r, c = s.regions or {}, s.coalescing or {}
    share = number(r.get("epilogue_serial_load_wait_pct"))
    scattered_c = np.nanmax([number(c.get("load_ratio")), number(c.get("store_ratio")), 0.0]) >= SCATTERED_RATIO_MIN
    if not share >= SERIAL_EPILOGUE_MIN_PCT or scattered_c:
        return None
    line = f" (line {int(r['epilogue_line'])})" if number(r.get("epilogue_line")) == number(r.get("epilogue_line")) else ""
    return cause("latency", "latency and occupancy", "serial_epilogue",
                 "the epilogue's loads of C wait one at a time behind its stores",
                 f"{fmt_pct(share)} of the warps' samples wait in the epilogue{line} for global loads issued right "
                 f"after a store: C is read and written by turns, and each read waits a whole memory latency.",
                 [f"Samples: main loop {fmt_pct(number(r.get('loop_pct')))}, epilogue {fmt_pct(number(r.get('epilogue_pct')))}; "
                  f"long-scoreboard waits in the epilogue {fmt_pct(number(r.get('epilogue_long_scoreboard_pct')))} of all.",
                  f"Hottest epilogue instruction: `{r['epilogue_code']}`." if r.get("epilogue_code") else "",
                  s.sides()], serial_epilogue_cure(s))


def serial_epilogue_cure(s: Signals) -> str:
    """Read C ahead of its stores (also the note's advice, where the order is not the bound)."""
    why = ("The compiler keeps each load behind the stores before it, since it cannot prove that a store to one "
           "row of C misses a later load of another; loads issued together wait one latency in all.")
    t = s.techniques or {}
    if t.get("tma") or t.get("wgmma"):
        return ("Load C ahead of the epilogue: by TMA into shared memory during the last k tiles, so its latency "
                "hides behind the MMAs, or into registers a few rows at a time before any of their stores. " + why
                + (" The kernel already prefetches into L2, which shortens each wait but keeps them in a row."
                   if t.get("l2_prefetch") else ""))
    return ("Read all of the thread's C into registers before its first store of C (or a few rows at a time where "
            "registers are short). " + why)


def lone_loads(s: Signals) -> Verdict | None:
    """Global loads outside the main loop issued one or two at a time, each waited for before the
    next goes out (no store between them: that is `serial_epilogue`)."""
    r = s.regions or {}
    share = number(r.get("lone_load_wait_pct"))
    if not share >= LONE_LOADS_MIN_PCT:
        return None
    at = f" (most at {r['lone_load_at']})" if r.get("lone_load_at") else ""
    return cause("latency", "latency and occupancy", "lone_loads",
                 "global loads outside the main loop wait one or two at a time",
                 f"{fmt_pct(share)} of the warps' samples wait outside the main loop at the first use of global loads "
                 f"issued one or two at a time{at}: each group waits a whole memory latency before the next goes out.",
                 [f"Samples: main loop {fmt_pct(number(r.get('loop_pct')))}, epilogue {fmt_pct(number(r.get('epilogue_pct')))}; "
                  f"long-scoreboard waits in the epilogue {fmt_pct(number(r.get('epilogue_long_scoreboard_pct')))} of all.",
                  f"Hottest epilogue instruction: `{r['epilogue_code']}`." if r.get("epilogue_code") else "",
                  s.sides()], lone_loads_cure())


def lone_loads_cure() -> str:
    """Issue the loads together (also the note's advice)."""
    return ("Issue the loads together, then use them: a loop of run-time length leaves its loads one a trip, and a "
            "branch between two loads (an edge check) keeps the second behind the first's use. Unroll to a fixed "
            "count with the loads past the end predicated off, and check edges by predicating each load, not by "
            "leaving the loop; 8-16 loads in flight wait one latency where a chain waits one each.")


def instruction_fetch(s: Signals) -> Verdict | None:
    cycles, share = s.stall("no_instruction")
    if share < NO_INSTRUCTION_MIN_PCT:
        return None
    mix = s.mix or {}
    warps = number(s.util.get("blocks")) * np.ceil(number(s.launch.get("threads_per_block")) / 32)
    distinct = number(mix.get("distinct_run"))
    per_warp = number(mix.get("total")) / warps if warps > 0 else np.nan
    runs = per_warp / distinct if distinct > 0 else np.nan
    code = (f"{fmt_bytes(distinct * SASS_INSTRUCTION_BYTES)} of code ran, {fmt_count(per_warp)} instructions a warp: "
            f"each instruction about {fmt_num(runs)} times per warp." if runs > 0 else "")
    if runs < FETCHED_FOR_FEW_RUNS_MAX:
        cure = ("Roll the loops each warp runs only a few times (#pragma unroll 1 on the k-tile loop, the copy loops and "
                "the epilogue's; unroll only the innermost MMA or FMA steps), so one copy of the body is fetched and "
                "then reused from the instruction cache.")
    else:
        cure = ("The code is reused, so the waits follow branches and barriers: fewer, longer branch-free stretches in "
                "the hot loop (edge checks hoisted out of it or predicated instead of branched around).")
    return cause("fetch", "instruction fetch", "instruction_fetch", "warps waiting for their instructions",
                 f"Warps wait for their next instruction {fmt_pct(share)} of the time ({fmt_num(cycles)} cycles per "
                 f"issued instruction)" + (": each is fetched for a use or two and not reused." if runs < FETCHED_FOR_FEW_RUNS_MAX
                                           else ", though each runs many times: after branches and barriers."),
                 [*stall_lines(s, ("no_instruction",)), code, s.sides()], cure)


def barrier(s: Signals) -> Verdict | None:
    cycles, share = s.stall("barrier")  # without the waits for the warp's own wgmmas
    if share < BARRIER_MIN_PCT:
        return None
    per_tile = number((s.techniques or {}).get("barriers_per_tile"))
    return cause("latency", "latency and occupancy", "barrier", "warps wait at barriers",
                 f"Warps spend {fmt_pct(share)} of their cycles waiting at __syncthreads ({fmt_num(cycles)} cycles per "
                 f"issued instruction)" + (f"; {fmt_num(per_tile)} barriers per shared tile." if not np.isnan(per_tile) else "."),
                 [class_samples(s, "barrier", "barriers"), *stall_lines(s, ("barrier",)), s.sides()], barrier_cure(s))


def barrier_cure(s: Signals) -> str:
    """What cures barrier waits, given whether the tile is already double-buffered."""
    if (s.techniques or {}).get("double_buffer"):
        return ("The tile is already double-buffered (one barrier per tile): do more math per barrier (a deeper "
                "k tile), even out the warps' work before the barrier, or wait per pipeline stage (cp.async groups, "
                "mbarriers) instead of on the whole block.")
    return ("Fewer barriers per unit of work: double-buffer the shared tiles (one __syncthreads per tile instead "
            "of two) and deepen the k tile, so each barrier is paid for by more FMAs.")
