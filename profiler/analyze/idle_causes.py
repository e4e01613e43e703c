"""Cause checks for SMs and schedulers left idle: a grid smaller than the GPU, a partial last wave
that costs a large share of the time, one wave whose blocks end unevenly, occupancy capped so low
that latency cannot hide. Each returns a `Verdict` naming its cause, or None (`causes`, the table,
orders them)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..numbers import count_of, fmt_bytes, fmt_num, fmt_pct
from .bounds import Verdict
from .cause_text import cause, stall_lines
from .signals import Signals
from .values import number

# A grid that gives blocks to fewer than this share of the SMs is bound by its size.
LAUNCH_FILL_MIN_PCT = 50.0
# The partial last wave is the cause when it leaves at least this share of SM time idle (1.01 waves:
# about half); below, from TAIL_NOTE_PCT, it is a note.
TAIL_CAUSE_PCT = 25.0
TAIL_NOTE_PCT = 5.0
# In one wave, SMs busy this many points below the share given a block: blocks end unevenly (a note);
# from UNEVEN_CAUSE_PCT, the SMs' time left idle as in a costly tail, the cause.
UNEVEN_NOTE_PCT = 10.0
UNEVEN_CAUSE_PCT = TAIL_CAUSE_PCT
# Warps per scheduler at or below this leave latency exposed when occupancy is capped.
FEW_WARPS_PER_SCHEDULER = 2.0
# cp.async groups a thread leaves in flight while it computes, from which the pipeline's stages, not
# its warps, cover memory latency (three stages or more; a double buffer leaves one).
DEEP_PIPELINE_GROUPS = 2


def small_grid(s: Signals) -> Verdict | None:
    u, k = s.util, s.launch
    if pd.isna(u["sm_fill"]) or u["sm_fill"] >= LAUNCH_FILL_MIN_PCT:
        return None
    sms = int(k["sm_count"])
    busy = int(s.busy_sms())
    cure = ("Give every SM work: split K across blocks (split-K or stream-K, reducing the partial sums) or use "
            "smaller tiles, so the grid has at least one block per SM.")
    return cause("launch", "launch size", "small_grid", f"grid too small: {busy} of {sms} SMs busy",
                 f"{sms} SMs, {fmt_num(u['blocks'])} blocks: {fmt_pct(100.0 * (sms - busy) / sms)} of the GPU idle "
                 f"for the whole launch ({fmt_num(u['waves'], 2)} waves).",
                 [f"Only {fmt_pct(u['sm_fill'])} of the SMs run a block.", s.sides()], cure)


def _clusters(s: Signals) -> tuple[float, float]:
    """(blocks a cluster, clusters the GPU holds at once) of the launch; 0 or NaN without clusters."""
    return number(s.launch.get("cluster_size")), number(s.launch.get("cluster_max_active"))


def waves_of_clusters(s: Signals) -> bool:
    """Whether the launch's waves are counted in clusters: it runs clusters, and those the GPU holds
    at once make more waves than ncu's count of blocks (`metrics.launch_waves`)."""
    size, held = _clusters(s)
    return size > 1 and held > 0 and number(s.util.get("waves")) > number(s.launch.get("waves_per_sm"))


def ends_unevenly(s: Signals) -> bool:
    """One wave of blocks, yet the SMs are busy well below the share of them given a block: some
    blocks end long after the others (split-K's last arrivals summing their tiles)."""
    busy, fill, waves = number(s.launch.get("sm_busy_pct")), number(s.util.get("sm_fill")), number(s.util.get("waves"))
    return waves <= 1.0 and busy < fill - UNEVEN_NOTE_PCT


def uneven_end(s: Signals) -> Verdict | None:
    """One wave of blocks whose SMs idle a large share of the launch: the SMs given more blocks
    than others, or the blocks that sum split-K's partials, end last (splitk64x64x8t4 at
    1362x925x247, H200: 330 blocks, 66 SMs running three and 66 two, SMs busy 70% of the launch;
    on four times the blocks, each a quarter the size, 67 -> 77% of cuBLAS)."""
    if not ends_unevenly(s):
        return None
    busy, fill = number(s.launch.get("sm_busy_pct")), number(s.util.get("sm_fill"))
    if fill - busy < UNEVEN_CAUSE_PCT:
        return None
    blocks, sms = number(s.util.get("blocks")), number(s.launch.get("sm_count"))
    held = number(s.occupancy.get("blocks_per_sm"))
    evidence = [f"SMs busy {fmt_pct(busy)} of the launch, {fmt_pct(fill)} of them given a block."]
    if blocks > sms and blocks % sms:
        most, fewer = int(np.ceil(blocks / sms)), int(np.floor(blocks / sms))
        fullest = int(blocks - fewer * sms)
        evidence.insert(0, f"One wave of {fmt_num(blocks)} blocks over {fmt_num(sms)} SMs"
                        + (f" (up to {fmt_num(held)} an SM)" if held > 0 else "")
                        + f": {fullest} SMs run {most} blocks, the other {int(sms) - fullest} {fewer}.")
    if split_along_z(s):
        why = (f"K is split {fmt_num(number(s.launch.get('grid_z')))} ways along the grid's z: the blocks that sum a "
               "tile's partials end last")
        cure = (f"Have the splits of a tile end together: {SLICE_SUM}, or split less; blocks spread evenly over the "
                "SMs (a multiple of their count, or a persistent stream-K schedule).")
    else:
        why = "the SMs given more blocks end last"
        cure = ("Spread the work evenly over the SMs: smaller blocks, so many that each SM holds nearly the same "
                "number (or a multiple of the SM count), or a persistent stream-K schedule that shares the work "
                "out in equal parts.")
    return cause("launch", "launch size", "uneven_end", f"blocks that end unevenly (the SMs idle {fmt_pct(fill - busy)} "
                 "of the launch)",
                 f"One wave of blocks, yet the SMs are busy {fmt_pct(busy)} of the launch: {why}, and an SM whose "
                 "blocks are done idles until then.", [*evidence, s.sides()], cure)


# The cure where the splits of a tile end unevenly: every split sums a slice (kernels/reduce_scatter.cuh).
SLICE_SUM = ("let every split of a tile sum a slice of it once all have written their partials (a reduce-scatter) "
             "rather than the last to arrive sum all of it")


def split_along_z(s: Signals) -> bool:
    """K split along the grid's z by blocks that are no cluster: their partials meet in global
    memory, not in a cluster's shared memory (wgmma_decode's 2-CTA clusters along z sum half a tile
    each)."""
    return number(s.launch.get("grid_z")) > 1 and not number(s.launch.get("cluster_size")) > 1


def tail(s: Signals) -> Verdict | None:
    cost = number(s.launch.get("tail_cost_pct"))
    if np.isnan(cost) or cost < TAIL_CAUSE_PCT:
        return None
    waves = s.util["waves"]
    cure = ("Make the block count a multiple of what the GPU holds at once: smaller or larger tiles, split-K for "
            "the last wave, or a persistent (stream-K) schedule that shares the leftover work among all SMs.")
    if waves_of_clusters(s):
        size, held = _clusters(s)
        clusters = number(s.util.get("blocks")) / size
        unit, last = "clusters", clusters - np.floor(waves) * held  # left over once the full waves have run
        evidence = (f"Clusters of {fmt_num(size)} blocks: the GPU holds {fmt_num(held)} at once ({fmt_num(held * size)} "
                    f"blocks, a cluster within one GPC), so {fmt_num(clusters)} clusters take {fmt_num(waves, 3)} "
                    f"waves; ncu's waves per SM ({fmt_num(number(s.launch.get('waves_per_sm')), 3)}) count blocks alone.")
        cure += (f" In clusters, count waves of clusters: the GPU holds {fmt_num(held)} clusters of {fmt_num(size)} "
                 "at once, so the cluster count is what must fit (or smaller clusters).")
    else:
        unit = "blocks"
        last = (waves - np.floor(waves)) * s.occupancy.get("blocks_per_sm", np.nan) * number(s.launch.get("sm_count"))
        evidence = f"Waves per SM {fmt_num(waves, 3)}: {int(np.floor(waves))} full, one {fmt_pct(100 * (waves % 1))} full."
    return cause("launch", "launch size", "tail", f"tail wave: the last of {int(np.ceil(waves))} waves is "
                 f"{fmt_pct(100 * (waves - np.floor(waves)))} full",
                 f"{fmt_num(waves, 3)} waves of {unit}: the partial last wave leaves about {fmt_pct(cost)} of the "
                 f"SMs' time idle" + (f" (about {fmt_num(last, 2)} {unit} run in it)." if not np.isnan(last) else "."),
                 [evidence, s.sides()], cure)


def occupancy_capped(s: Signals) -> Verdict | None:
    o, t = s.occupancy, s.techniques or {}
    limiter = o.get("limiter")
    if not limiter or pd.isna(o.get("warps_per_scheduler")) or o["warps_per_scheduler"] > FEW_WARPS_PER_SCHEDULER:
        return None
    deep_copies = number(t.get("async_groups_in_flight", 0)) >= DEEP_PIPELINE_GROUPS
    if o.get("theoretical_pct", 100) >= 50 or t.get("tma") or t.get("wgmma") or deep_copies:
        return None  # async pipelines hide latency with stages, not warps
    first = limiter.split(",")[0].strip()
    if first == "registers":
        return None  # a large register tile is a choice; the latency verdict says what one block more would need
    key = {"shared memory": "occupancy_shared", "registers": "occupancy_registers", "warps": "occupancy_warps",
           "blocks": "occupancy_blocks", "barriers": "occupancy_barriers"}.get(first, "occupancy")
    if first == "shared memory":
        smem = number(o.get("shared_mem_per_block"))
        lift = (f"Each block reserves {fmt_bytes(smem)} of shared memory; request only what the tiles use (half "
                f"of it would fit {int(o['blocks_per_sm']) * 2} blocks per SM), or give each block more warps.")
    elif first == "registers" and not pd.isna(o.get("registers_for_next_block")) and s.origin in ("gemmprof", "cuda"):
        lift = (f"Occupancy is capped by registers ({fmt_num(o['registers_per_thread'])} per thread); at most "
                f"{fmt_num(o['registers_for_next_block'])} would fit one more block per SM.")
    else:
        lift = "More warps per SM: more threads per block or more blocks per SM."
    return cause("latency", "latency and occupancy", key, f"occupancy capped by {first}: "
                 f"{count_of(o['blocks_per_sm'], 'block')} per SM", f"Latency is exposed: {first} caps the SM at "
                 f"{fmt_num(o['blocks_per_sm'])} block(s), {fmt_num(o['warps_per_scheduler'], 2)} warps per scheduler "
                 f"(theoretical occupancy {fmt_pct(o['theoretical_pct'])}), too few to cover memory latency.",
                 [*stall_lines(s), s.sides()], lift)
