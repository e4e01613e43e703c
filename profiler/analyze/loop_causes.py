"""Causes read off where the sampled time goes (`attribution`) and what the launch can reach
(`roofs`): a launch too small for the GPU, a memory roof (by nature or by refetching), and in the
main loop, loads not pipelined, wgmma waited for synchronously, tiles too small, copies too
narrow; and for a tensor-core kernel below what cuBLAS attains, what is left.

Each main-loop cause returns a `Finding`: its verdict and its cost, the share of the samples it
explains (the time removing it could win at most). `verdict.decide` lets the costliest lead and
names the others within `NOISE_PCT` beside it (`causes.LOOP` is their table). Each is checked against the evidence first: none
fires where the math is at its roof (`roofs.attainable`), and none prescribes what the kernel
already does (`techniques`). The cures name the knob the kernel's `origin` gives its author.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..numbers import count_of, fixed, fmt_bytes, fmt_num, fmt_pct, fmt_times, si_rate
from .bounds import Verdict
from .cause_text import cause
from .code_causes import SERIAL_EPILOGUE_NOTE_PCT, serial_epilogue_cure
from .gemm_shape import gemm_flop
from .idle_causes import SLICE_SUM, ends_unevenly, split_along_z
from .global_memory import input_bytes
from .roofs import intensity, math_kind, math_share
from .signals import Signals
from .techniques import uses
from .timeline import DramStream
from .thresholds import NOISE_PCT
from .values import number

# A launch shorter than this, with no unit busy, is too small for the GPU: its fixed costs (the
# launch, the prologue, a tile per block) are the time (cuBLAS FP16 at 256^3: 4 us, 287 samples).
TOO_SMALL_NS = 10_000
# Verdicts that rest on where samples sit need at least this many of them.
MIN_SAMPLES = 1_000
# Units below this share of their peak are not saturated (ncu's own reading).
BUSY_PCT = 60.0
# DRAM this busy with traffic above the ridge point's worth: the traffic bounds the launch.
DRAM_REFETCH_BUSY_PCT = 60.0
# Tiles whose operand reuse (from L2 traffic) is under this many elements along a side are too
# small for tensor cores: a warpgroup MMA alone is 64 rows.
SMALL_TILE = 64
# A narrow side caps the reuse any tile reaches: tiles that read each operand once are 2MN / (M + N)
# wide (126 at a 64-row decode step). Tiles reaching this share of that are as large as the shape
# allows, however narrow: a tile as tall as M reached about half at 64x4096x4096 (cuBLAS 0.52, a
# 64x128 mma.sync tile 0.47, H200), 32x32 tiles there would reach a quarter; squares' small tiles
# reach a few hundredths.
SHAPE_REUSE_SHARE = 0.35
# A memory-bound launch below the DRAM peak whose grid gives blocks to fewer than this share of the
# SMs reads from too few of them: its evidence says how fast each reads and would have to, its cure
# gives every SM a stream (wgmma_decode_fullk at 8x5120x5120, H200: 80 of 132 SMs, 47% of the
# peak; skinny's 240 blocks there, all SMs, read at 91-100% of it between ramp and tail).
STREAM_FILL_PCT = 90.0
# A DRAM stream (its timeline's plateau) at this share of the peak or more is at the roof while it
# runs: what is left is before and after it (skinny at 8x5120x5120, H200: 56% on average, 97% from
# 4.5 to 15.0 us of 20.4; cuBLAS's stream there ends at 15.0 of 16.6).
STREAM_PEAK_PCT = 90.0
# The time after such a stream is worth winning back from this share of the launch on (skinny there:
# 27%; cuBLAS 10%, 7% at 64x4096x4096).
ENDS_NOTABLE_PCT = 15.0
# A main-loop cause costs at least this share of the samples to be named.
LOOP_CAUSE_MIN_PCT = 20.0


@dataclass(frozen=True)
class Finding:
    verdict: Verdict
    cost: float  # % of the samples it explains


def below_roof(s: Signals) -> bool:
    """The math pipe is below the roof of what is attainable for its math on this GPU."""
    roof = number((s.attainable or {}).get("roof"))
    return not math_share(s.util) >= roof


def _share(s: Signals, bucket: str) -> float:
    """The bucket's share of the samples (0 where the attribution names none)."""
    value = number((s.attribution or {}).get(f"{bucket}_pct"))
    return 0.0 if np.isnan(value) else value


def _sampled(s: Signals) -> bool:
    return number((s.attribution or {}).get("samples")) >= MIN_SAMPLES


# --- the launch and the memory roof: facts that come before the code ------------------------------


def too_small(s: Signals) -> Verdict | None:
    """A launch over in a few microseconds with no unit busy: its fixed costs are the time."""
    k, u = s.launch, s.util
    ns = number(k.get("duration_ns"))
    if not ns < TOO_SMALL_NS or max(number(u.get("sm")), number(u.get("memory"))) >= BUSY_PCT:
        return None
    samples = number((s.attribution or {}).get("samples"))
    return cause("launch", "launch size", "too_small", f"too small for this GPU: {fmt_num(ns / 1e3, 2)} us",
                 f"The launch takes {fmt_num(ns / 1e3, 2)} us on {count_of(u['blocks'], 'block')}: its fixed costs "
                 f"(the launch, each block's prologue and pipeline fill, one tile a block) are most of the time, "
                 f"and no unit is busy (SM {fmt_pct(u['sm'])}, memory {fmt_pct(u['memory'])}).",
                 [f"{fmt_num(samples)} PC samples in all: too few to say where inside the kernel the time goes."
                  if samples < MIN_SAMPLES else "", s.sides()],
                 "Nothing inside the kernel: give each launch more work. Batch such products into one launch (a "
                 "batched or grouped GEMM), fuse the product with its neighbours, or capture the sequence in a CUDA "
                 "graph so the launches follow each other without gaps.")


def no_math(s: Signals) -> Verdict | None:
    """A launch that does no floating-point math at all (a fill, a copy): whatever shape its NVTX
    range names belongs to another launch, and no GEMM cure applies."""
    k, u = s.launch, s.util
    flops = number(k.get("achieved_flops"))
    if not flops == 0.0:
        return None
    units = {"DRAM": number(u.get("dram")), "L2": number(u.get("l2")),
             "L1": number(k.get("l1_throughput_pct"))}
    busiest = max(units, key=lambda n: units[n] if not np.isnan(units[n]) else -1.0)
    return cause("memory", "memory (no math)", "no_math", "no math: a memory operation, not a GEMM",
                 f"The launch does no floating-point math: it moves memory (L1 {fmt_pct(units['L1'])}, L2 "
                 f"{fmt_pct(units['L2'])}, DRAM {fmt_pct(units['DRAM'])} of their peaks, the {busiest} busiest) in "
                 f"{fmt_num(number(k.get('duration_ns')) / 1e3, 3)} us. A GEMM's shape named by its range is another "
                 f"launch's.",
                 [s.sides()],
                 "Nothing of a GEMM applies. Fuse it with the kernel that writes or reads the same memory (a GEMM's "
                 "epilogue can write zeros or scale C; beta = 0 needs no zeroed C), or drop it if nothing needs it.")


def memory_roof(s: Signals) -> Verdict | None:
    """DRAM is the roof: by nature (even the least traffic the GEMM needs is below the ridge point,
    or, no GEMM named, its own FLOPs per byte are) or by refetching (its traffic, not the GEMM,
    pushes it below the ridge while DRAM is busy). Whether a launch memory-bound by nature leads
    with it is `verdict.decide`'s: one that leaves DRAM mostly idle is held back by its code (loads
    waited for one at a time), which leads with the roof named beside it. Tiles too small to reuse
    operands are `small_tiles`."""
    k, u = s.launch, s.util
    i = intensity(k, u)
    dram = number(u.get("dram"))
    if np.isnan(i["ridge"]) or np.isnan(i["measured"]):
        return None
    kind = math_kind(u)
    moved = number(k.get("dram_bytes"))
    if i["least"] < i["ridge"] or (np.isnan(i["least"]) and i["measured"] < i["ridge"]):
        return _by_nature(s, i, dram, kind, moved, library=s.origin == "library")
    if not (i["least"] >= i["ridge"] and i["measured"] < i["ridge"] and dram >= DRAM_REFETCH_BUSY_PCT):
        return None
    tile = effective_tile(s)
    if tile < SMALL_TILE:
        return None  # the small tiles refetch, and their finding says so
    times = moved / i["least_bytes"]
    triton = s.origin == "triton"
    cure = ("Take the tiles in an order that reuses operands from L2: group the tile grid (a few rows of tiles at "
            "a time" + (", Triton's GROUP_M ordering of program ids" if triton else ", CUTLASS's swizzle") +
            "), so the blocks running at once share rows of A and columns of B; a persistent grid can walk such an "
            "order. The tiles themselves are large enough.")
    return cause("dram", "DRAM bandwidth", "tile_order",
                 f"the tile order refetches operands from DRAM ({fmt_times(times)} the least traffic)",
                 f"DRAM moved {fmt_bytes(moved)}, {fmt_times(times)} the {fmt_bytes(i['least_bytes'])} the GEMM needs, at "
                 f"{fmt_pct(dram)} of its peak: {fmt_num(i['measured'])} FLOPs per byte, below the ridge point of its "
                 f"{kind} math ({fmt_num(i['ridge'])}), though the GEMM itself allows {fmt_num(i['least'])}. Its tiles "
                 f"reuse operands on chip (about {fmt_num(tile, 3)} wide, from L2 traffic); the blocks running at once "
                 f"do not share them in L2.",
                 [f"L2 moved {fmt_bytes(number(k.get('l2_bytes')))}; DRAM {fmt_bytes(moved)}.", s.sides()], cure)


def near_ridge(s: Signals, v: Verdict) -> bool:
    """A memory-bound-by-nature verdict whose GEMM is within noise of the ridge point: the least
    traffic at the DRAM peak takes no longer than its math at the math peak plus NOISE_PCT, so
    neither roof is its nature (skinny at 256x4096x4096, H200: 195 FLOPs a byte against 204, DRAM
    at 24% and the tensor pipe at 23%)."""
    if v.cause != "dram":
        return False
    i = intensity(s.launch, s.util)
    return not np.isnan(i["least"]) and i["least"] >= i["ridge"] / (1.0 + NOISE_PCT / 100.0)


def leads_memory_roof(s: Signals, v: Verdict) -> bool:
    """A memory-bound-by-nature verdict leads when DRAM is busy, or when the launch does next to no
    math (a stream: a tenth of the ridge point's FLOPs per byte or less), whatever else shows."""
    if v.cause != "dram":
        return False
    i = intensity(s.launch, s.util)
    return number(s.util.get("dram")) >= BUSY_PCT or (np.isnan(i["least"]) and i["measured"] < i["ridge"] / 10)


def _by_nature(s: Signals, i: dict, dram: float, kind: str, moved: float, library: bool = False) -> Verdict:
    gemm = not np.isnan(i["least"])
    if gemm:
        why = (f"Even moving only what it must ({fmt_bytes(i['least_bytes'])}), it does {fmt_num(i['least'])} FLOPs "
               f"per DRAM byte, below the {fmt_num(i['ridge'])} at which its {kind} math would be the limit: DRAM "
               f"bandwidth is its roof. It moved {fmt_bytes(moved)} ({fmt_times(moved / i['least_bytes'])} the least)")
        problem = "memory-bound by nature (too few FLOPs a byte)"
    else:
        why = (f"It does {fmt_num(i['measured'], 2)} FLOPs per DRAM byte, far below the {fmt_num(i['ridge'])} at which "
               f"its math would be the limit: DRAM bandwidth is its roof. It moved {fmt_bytes(moved)}")
        problem = "memory-bound (DRAM stream)"
    if dram >= 80.0 or library:  # a library's loads are not the user's to widen
        cure = ("At the DRAM roof: only fewer bytes go faster. Fuse it with what produces or consumes its operands, "
                "keep them in a smaller type (BF16 or FP8), or do more work per byte loaded (several tokens per "
                "weight read, one launch over what is now several).")
        where, covers = f" at {fmt_pct(dram)} of the DRAM peak.", ()
        if dram < 80.0:
            cure = cure.replace("At the DRAM roof: only", f"At {fmt_pct(dram)} of the DRAM peak, near what a library's "
                                                           f"kernel reaches: only")
    elif s.stream is not None and _ends_lead(s.stream):
        cure, covers = _ends_cure(s.stream, s)
        where = f" at {fmt_pct(dram)} of the DRAM peak on average, {fmt_pct(s.stream.plateau)} while it streams."
    else:
        cure, covers = _stream_cure(s, dram), ()
        where = (f" at only {fmt_pct(dram)} of the DRAM peak" +
                 (f", {fmt_pct(s.stream.plateau)} while it streams." if s.stream is not None else "."))
    evidence = [f"DRAM {fmt_pct(dram)} of its peak; L2 {fmt_pct(number(s.util.get('l2')))}.", s.sides()]
    if dram < 80.0 and not library and s.stream is not None:
        st = s.stream
        evidence.insert(1, f"DRAM timeline (PM sampling): {fmt_pct(st.plateau)} of the peak from {fixed(st.start_us, '.1f')} "
                           f"to {fixed(st.end_us, '.1f')} us of the launch's {fixed(st.duration_us, '.1f')}.")
    if dram < 80.0 and not library and _few_streams(s):
        evidence.insert(1, _stream_rates(s, moved))
    v = cause("dram", "DRAM bandwidth", "dram", problem, why + where, evidence, cure)
    return replace(v, covers=covers) if covers else v


FEWER_BYTES = "Past that, only fewer bytes (fusion, smaller types) go faster."


def _ends_lead(st: DramStream) -> bool:
    """Whether the time after a launch's DRAM stream costs it more than the stream's shortfall from
    the peak (its length times the share of the peak it leaves unused), and is worth naming: a
    notable share of the launch, or the stream at the peak. wgmma_decode_fullk at 8x5120x5120
    streams 18 us at 64% (6.5 us short) and ends 2 us after; skinny there 10.5 us at 97% (0.3 us)
    and 5.4 us after."""
    after = st.duration_us - st.end_us
    short = (st.end_us - st.start_us) * (1.0 - st.plateau / 100.0)
    return after >= short and (after >= ENDS_NOTABLE_PCT / 100.0 * st.duration_us or st.plateau >= STREAM_PEAK_PCT)


def _ends_cure(st: DramStream, s: Signals) -> tuple[str, tuple[str, ...]]:
    """The cure of a launch at the DRAM peak while it streams, and the causes it names beside
    (cause keys): what its code can win is the time after the stream, where it is a notable share
    of the launch; the time before it (the launch, the first loads' latency) a reference launch
    pays too (cuBLAS at 8x5120x5120, H200: 4.5 us). Where the epilogue reads C one load at a time
    behind its stores, that comes first: it runs once the stream is over (wgmma_splitk128 at
    79x11008x4096, H200: 12.9 us after the stream, 21% of the samples on those reads; read ahead,
    82 -> 95% of cuBLAS). Where K is split along the grid's z and the blocks end unevenly, the
    splits of a tile summing a slice each comes next (wgmma_swap160 at 143x4096x14336, H200: SMs
    busy 65% of a one-wave launch, the last arrival's sum left 26.0 us after the stream; a slice
    each, 14.1 us and 89% busy; 76.6 -> 87.5% of cuBLAS)."""
    before, after = st.start_us, st.duration_us - st.end_us
    at = "At the DRAM peak" if st.plateau >= STREAM_PEAK_PCT else f"At {fmt_pct(st.plateau)} of the DRAM peak"
    cure = f"{at} while it streams ({fixed(st.start_us, '.1f')} to {fixed(st.end_us, '.1f')} us): "
    covers: tuple[str, ...] = ()
    if after >= ENDS_NOTABLE_PCT / 100.0 * st.duration_us:
        cure += (f"the {fixed(after, '.1f')} us after the stream, while the last blocks finish (their last tiles, the "
                 f"writes of C or of split partials, a split's sum), are what is left to win")
        if split_along_z(s) and ends_unevenly(s):  # the splits that sum a tile end last
            together = (f"have the blocks end together: with K split along the grid's z, {SLICE_SUM}; else even shares "
                        "of the work (stream-K) or partials summed in a cluster's shared memory")
        else:
            together = ("have the blocks end together, with even shares of the work (stream-K) and partials summed in "
                        "fewer round trips or in a cluster's shared memory")
        serial = number((s.regions or {}).get("epilogue_serial_load_wait_pct"))
        if serial >= SERIAL_EPILOGUE_NOTE_PCT:
            cure += (f". First the epilogue: {fmt_pct(serial)} of the warps' samples wait there for loads of C issued "
                     f"right after a store (C read and written by turns). {serial_epilogue_cure(s)} Then {together}")
            covers = ("serial_epilogue",)
        else:
            cure += f": {together}"
    else:
        cure += f"its end is short ({fixed(after, '.1f')} us)"
    return cure + f"; the {fixed(before, '.1f')} us before it are the launch's start and its first loads' latency. " + FEWER_BYTES, covers


def _few_streams(s: Signals) -> bool:
    """The grid gives blocks to fewer than STREAM_FILL_PCT of the SMs."""
    return number(s.util.get("sm_fill")) < STREAM_FILL_PCT


def _stream_rates(s: Signals, moved: float) -> str:
    """How fast each SM with a block reads from DRAM (while it streams, where the timeline says when;
    else on average), against what the peak needs of it and of all."""
    sms, busy = number(s.launch.get("sm_count")), s.busy_sms()
    peak = number(s.launch.get("peak_dram_bytes_per_s"))
    if s.stream is not None:
        rate, when = s.stream.plateau / 100.0 * peak / busy, "while it streams"
    else:
        rate, when = moved / (number(s.launch.get("duration_ns")) * 1e-9) / busy, "on average"
    return (f"{fmt_num(busy)} of {fmt_num(sms)} SMs run a block, each reading {si_rate(rate, 'byte/s')} from DRAM {when}; "
            f"the peak needs {si_rate(peak / busy, 'byte/s')} from each of them, or {si_rate(peak / sms, 'byte/s')} "
            f"from each of all {fmt_num(sms)}.")


def _stream_cure(s: Signals, dram: float) -> str:
    """How a memory-bound launch below the DRAM peak gets nearer it: more bytes in flight, in the
    kernel's own terms (a TMA or cp.async ring deepens; plain loads widen and unroll), and where the
    grid leaves SMs without a block, more SMs streaming."""
    if uses(s.techniques, "tma") or uses(s.techniques, "cp_async_pipeline"):
        deeper = "a deeper ring (more stages, or larger ones) keeps more bytes in flight an SM"
    else:
        deeper = ("16-byte loads, several independent loads per thread before the first is used (unrolled), and "
                  "enough warps per SM keep more bytes in flight")
    if _few_streams(s):
        cure = (f"Memory-bound but at {fmt_pct(dram)} of the DRAM peak, read by too few SMs: split K across blocks "
                f"(or a cluster's CTAs) or take narrower tiles so that every SM streams; {deeper}.")
    else:
        cure = f"Memory-bound but at {fmt_pct(dram)} of the DRAM peak: {deeper}."
    return cure + " " + FEWER_BYTES


def l2_busy(s: Signals) -> float:
    """How busy the L2 is: the share of its peak its bytes make, or ncu's own throughput (which
    also counts its sector work), whichever is larger."""
    return max(number(s.util.get("l2")), number(s.launch.get("l2_throughput_pct")))


def shape_reuse(launch) -> float:
    """The widest reuse the GEMM's shape allows, in effective_tile's terms: tiles that read A and
    B once (2MNK e bytes of MMAs over (MK + KN) e bytes read) are 2MN / (M + N) wide. NaN without
    a shape."""
    M, N = number(launch.get("M")), number(launch.get("N"))
    return 2.0 * M * N / (M + N) if M > 0 and N > 0 else np.nan


def sm_l2_bytes(launch) -> float:
    """The bytes the SMs asked the L2 for (loads, stores, TMA), where the report counts them apart;
    else all of the L2's traffic, which also holds what its partitions exchange and DRAM's side
    (by placement and hit rate, not by the tiles: 34% of wgmma_swap64's at 64x4096x4096)."""
    sm = number(launch.get("l2_sm_bytes"))
    return sm if sm > 0 else number(launch.get("l2_bytes"))


def effective_tile(s: Signals) -> float:
    """How wide the tiles' operand reuse is, read off the SMs' L2 traffic: a GEMM with T x T tiles
    reads 2MNK e / T bytes of A and B through L2 (e bytes an element), so T = 2MNK e / L2 bytes.
    NaN without a shape or the traffic."""
    flop = gemm_flop(s.launch)
    l2 = sm_l2_bytes(s.launch)
    return flop * input_bytes(s.launch) / l2 if l2 > 0 and flop > 0 else np.nan


# --- the main loop: findings with a cost ---------------------------------------------------------


def no_pipelining(s: Signals) -> Finding | None:
    """Each k step's loads waited for before its math: no stage of the loads runs ahead."""
    t, a = s.techniques or {}, s.attribution or {}
    if not (_sampled(s) and below_roof(s)) or t.get("cp_async_pipeline") or t.get("register_prefetch") or t.get("tma"):
        return None
    if not (t.get("shared_tiling") or t.get("wgmma")):
        return None  # no tiles staged: nothing to pipeline yet (the global-memory verdicts say stage them)
    waits_mma = number(a.get("mma_wait_all_pct")) if a.get("waits_all_mma") else 0.0
    cost = _share(s, "global_wait") + _share(s, "barrier") + waits_mma
    if not cost >= LOOP_CAUSE_MIN_PCT:
        return None
    if s.origin == "triton":
        cure = ("Software-pipeline the k loop: num_stages=3 or 4, so Triton issues the loads of the next k steps "
                "(cp.async or TMA) while this one's MMAs run; each stage holds one tile of A and B in shared memory.")
    else:
        cure = ("Load the next tiles while this one is computed: cp.async into two or three shared buffers (or TMA "
                "with an mbarrier per stage), waiting only for the stage about to be used (cp.async.wait_group with "
                "the later stages still pending).")
    return Finding(cause("latency", "latency and occupancy", "no_pipelining",
                         "no software pipelining: each k step waits for its own loads",
                         f"{fmt_pct(cost)} of the samples wait in the main loop for what this k step loads: global "
                         f"data (long scoreboard {fmt_pct(_share(s, 'global_wait'))}), barriers "
                         f"({fmt_pct(_share(s, 'barrier'))})"
                         + (f" and the MMAs, waited for at once ({fmt_pct(waits_mma)})" if waits_mma > 0 else "")
                         + ". Nothing loads the next tiles while this one is multiplied.",
                         [_where(s), s.sides()], cure), cost)


def sync_wgmma(s: Signals) -> Finding | None:
    """Every wgmma group waited for before the next is issued: no MMA in flight during the wait."""
    a = s.attribution or {}
    cost = number(a.get("mma_wait_all_pct"))
    if not (_sampled(s) and a.get("waits_all_mma") and cost >= LOOP_CAUSE_MIN_PCT and below_roof(s)):
        return None
    if s.origin == "triton":
        cure = ("Keep an MMA in flight: leave the accumulator alone between the tl.dot calls of the loop (an "
                "elementwise op on it makes Triton wait for every group), so it waits for the previous group only "
                "(wgmma.wait_group 1); do that work once after the loop.")
    else:
        cure = ("Wait for all but the newest group (wgmma.wait_group 1), so one MMA runs while the next is issued; "
                "touch the accumulators only after the loop, and keep the next MMA's operands ready (double-buffered "
                "shared tiles).")
    busy = number(s.launch.get("pipe_tensor_active_pct"))
    return Finding(cause("latency", "latency and occupancy", "sync_wgmma",
                         "synchronous wgmma: each MMA is waited for before the next is issued",
                         f"{fmt_pct(cost)} of the samples wait at wgmma.wait_group 0 (WARPGROUP.DEPBAR.LE gsb0, 0x0) in "
                         f"the main loop, and no wait there leaves a group in flight: the tensor cores idle while the "
                         f"warps wait, work on the accumulator and issue the next MMA (tensor pipe busy "
                         f"{fmt_pct(busy)} of active cycles).",
                         [_where(s), s.sides()], cure), cost)


def small_tiles(s: Signals) -> Finding | None:
    """Tensor-core tiles too small: each operand byte feeds few MMAs and each stage too little math
    to hide the next one's copies."""
    tile, t = effective_tile(s), s.techniques or {}
    busy = l2_busy(s)
    if math_kind(s.util) == "FP32" or not (tile < SMALL_TILE) or not (_sampled(s) and below_roof(s)):
        return None
    if tile >= SHAPE_REUSE_SHARE * shape_reuse(s.launch):
        return None  # as large as the shape allows: a narrow side, not the tiles, limits the reuse
    if not (t.get("shared_tiling") or t.get("cp_async") or t.get("tma")):
        return None  # no tiles staged at all: the global-memory verdicts say stage them
    cost = sum(_share(s, b) for b in ("global_wait", "barrier", "shared_pipe", "mbarrier", "copy_queue"))
    if not cost >= LOOP_CAUSE_MIN_PCT:
        return None
    l2 = sm_l2_bytes(s.launch)
    knobs = " (BLOCK_M and BLOCK_N of 128 or more, num_warps 4-8)" if s.origin == "triton" else ""
    bound = ("l2", "L2 bandwidth") if busy >= BUSY_PCT else ("latency", "latency and occupancy")
    return Finding(cause(*bound, "small_tiles", f"tiles too small (about {fmt_num(tile, 2)} wide)",
                         f"It read {fmt_bytes(l2)} through L2: each operand byte fed the MMAs of a tile about "
                         f"{fmt_num(tile, 2)} wide, and each k step holds too little math to cover its copies: "
                         f"{fmt_pct(cost)} of the samples wait in the main loop (loads, barriers, shared memory).",
                         [_where(s), s.sides()],
                         f"Larger tiles: 128x128 or 128x256 a block{knobs}, at least the 64 rows a warpgroup MMA "
                         f"takes, so each byte loaded feeds more MMAs and each stage's math hides the next stage's "
                         f"copies."), cost)


def narrow_copies(s: Signals) -> Finding | None:
    """Tiles copied into shared memory a few bytes a copy: many copy instructions fill the queue."""
    a, c = s.attribution or {}, s.coalescing or {}
    share = number(a.get("narrow_copy_pct"))
    scattered = np.nanmax([number(c.get("load_ratio")), 0.0]) >= 3.0
    if not (_sampled(s) and share >= LOOP_CAUSE_MIN_PCT and below_roof(s)) or scattered:
        return None
    cost = max(share, _share(s, "copy_queue"))
    width = int(number(a.get("narrow_copy_bytes"))) if number(a.get("narrow_copy_bytes")) > 0 else 4
    tf32 = math_kind(s.util) == "TF32"
    layout = (" TF32 wgmma reads only K-major operands, so an operand whose rows run along N or M is transposed "
              "element by element on the way in: hold it K-major in memory (B as its transpose), or use a 16-bit "
              "type, which wgmma can transpose." if tf32 else "")
    return Finding(cause("global", "global memory (L1/LSU)", "narrow_copies",
                         f"operands copied {width} bytes at a time",
                         f"{fmt_pct(share)} of the samples sit at main-loop copies into shared memory of {width} bytes "
                         f"each (cp.async narrower than 16 bytes), and {fmt_pct(_share(s, 'copy_queue'))} wait for the "
                         f"load queue they fill (LG throttle): a tile takes {16 // width}x the copies 16-byte ones need.",
                         [_where(s), s.sides()],
                         "Copy 16 bytes at a time: each operand's contiguous dimension along the copy, 16-byte aligned, "
                         "so every copy is LDGSTS.128 or one TMA for the tile." + layout), cost)


def shared_pipe(s: Signals) -> Finding | None:
    """The main loop's time at the shared-memory pipe: too many shared loads per math instruction,
    or bank conflicts (`sentences.shared` says which). A throughput cause, so only where shared
    memory is busy (BUSY_PCT of its wavefront peak), its instruction queue full (MIO throttle
    ahead of short scoreboard) or its accesses conflicted: warps waiting for the data of shared
    loads the pipe serves at a third of its rate wait out their latency, which the memory roof
    and the occupancy verdicts speak to (skinny at 64x4096x4096: 23% of the samples there with
    shared memory 32% busy, short scoreboard 12x MIO throttle; shared-bound kernels of the corpus
    80-88% busy, MIO throttle ahead)."""
    from .sentences import access_conflicts, shared

    cost = _share(s, "shared_pipe")
    if not (_sampled(s) and cost >= LOOP_CAUSE_MIN_PCT and below_roof(s)):
        return None
    queue_full = s.stall("mio_throttle")[0] >= s.stall("short_scoreboard")[0]
    if not (number(s.util.get("shared")) >= BUSY_PCT or queue_full or access_conflicts(s)):
        return None
    return Finding(shared(s), cost)


def occupancy(s: Signals) -> Finding | None:
    """Occupancy capped so low that the loop's waits show (`idle_causes.occupancy_capped`): it
    claims the same waits as a missing pipeline, and goes first among equals, its cure being the
    cheaper (a resource asked for and not used)."""
    from .idle_causes import occupancy_capped

    v = occupancy_capped(s)
    if v is None or not _sampled(s):
        return None
    return Finding(v, _share(s, "global_wait") + _share(s, "barrier") + _share(s, "shared_pipe"))



def _where(s: Signals) -> str:
    a = s.attribution or {}
    if not a:
        return ""
    parts = [(b, number(a.get(f"{b}_pct"))) for b in ("math", "mma_wait", "global_wait", "copy_queue", "shared_pipe",
                                                          "barrier", "mbarrier", "issue", "prologue", "epilogue")]
    parts = sorted([p for p in parts if p[1] >= 5.0], key=lambda p: -p[1])
    words = {"math": "math", "mma_wait": "wgmma waits", "global_wait": "global-load waits", "copy_queue": "a full load queue",
             "shared_pipe": "shared memory", "barrier": "barriers", "mbarrier": "mbarriers", "issue": "other instructions",
             "prologue": "before the loop", "epilogue": "after the loop"}
    return "Samples: " + ", ".join(f"{words[b]} {fmt_pct(v)}" for b, v in parts) + "." if parts else ""


# --- the tensor cores below what is attainable ---------------------------------------------------


def _tensor_cure(s: Signals) -> str | None:
    """For a kernel already on wgmma fed by TMA, the pipe's idle cycles (`sentences`' cure): where
    its producer and consumer warps sit in the code is no guide to which region costs what."""
    from .sentences import tensor_cure

    return tensor_cure(s)


def tensor_gap(s: Signals) -> Verdict:
    """Tensor-core bound, but below what cuBLAS attains for the same math: what the warps do
    besides the MMAs is what is left."""
    u, k, att = s.util, s.launch, s.attainable or {}
    a = s.attribution or {}
    gap = number(att.get("pct")) - u["tensor"]
    others = {b: number(a.get(f"{b}_pct")) for b in ("issue", "barrier", "mbarrier", "global_wait", "shared_pipe",
                                                        "mma_wait", "epilogue", "prologue")}
    top = max(others, key=lambda b: others[b] if not np.isnan(others[b]) else -1.0) if a else None
    cures = {
        "issue": "Fewer instructions beside the MMAs: copies by TMA (one instruction a tile, no per-element address "
                 "arithmetic" + ("; in Triton, tensor descriptors" if s.origin == "triton" else "") + "), a deeper k "
                 "tile per stage, and the MMA-issuing warps freed of the copies (a producer warp).",
        "barrier": "Fewer block-wide waits: producer warps that copy, consumers that wait per stage on mbarriers, so "
                   "the MMA warps never wait for every warp.",
        "mbarrier": "More stages in flight, so the consumers find each stage full: deeper pipeline, earlier copies.",
        "global_wait": "More stages in flight, so each k step's operands arrive before its MMAs.",
        "shared_pipe": "Less shared-memory traffic beside the MMAs' own operand reads.",
        "mma_wait": "More MMAs in flight: two consumer warpgroups taking turns, so one issues while the other waits.",
        "epilogue": "Overlap the epilogue with the next tile's MMAs: a persistent kernel whose consumer warpgroups "
                    "take turns, or the store through TMA.",
        "prologue": "Fill the pipeline once for several tiles: a persistent kernel.",
    }
    spent = ", ".join(f"{w} {fmt_pct(others[b])}" for b, w in (("issue", "other instructions"), ("barrier", "barriers"),
                                                                ("mbarrier", "mbarriers"), ("global_wait", "global-load waits"),
                                                                ("shared_pipe", "shared memory"), ("mma_wait", "wgmma waits"),
                                                                ("epilogue", "after the loop"), ("prologue", "before the loop"))
                      if others.get(b, 0) >= 5.0)
    return cause("tensor", "tensor cores", "tensor_gap",
                 f"tensor cores at {fmt_pct(u['tensor'])} of peak, {fmt_num(gap, 2)} points below what cuBLAS attains",
                 f"The tensor cores run at {fmt_pct(u['tensor'])} of their dense {u.get('tensor_input') or 'FP16'} peak"
                 f"{s.at_clock()}: the busiest unit, yet {fmt_num(gap, 2)} points below the {fmt_pct(att.get('pct'))} "
                 f"cuBLAS attains for this math ({att.get('source', '')}). Not the roof: "
                 + (f"besides the MMAs the warps' samples go to {spent}." if spent else "the MMAs wait for their operands."),
                 [f"Tensor pipe busy {fmt_pct(number(k.get('pipe_tensor_active_pct')))} of active cycles.", s.sides()],
                 _tensor_cure(s) or cures.get(top, cures["issue"]), confidence="medium")
