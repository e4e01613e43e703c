"""The bounds a verdict can name (each with its usual cure) and the `Verdict` record itself."""

from __future__ import annotations

from dataclasses import dataclass, field


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
    Bound("memory", "memory (no math)",
          "Fuse it with the kernel that reads or writes the same memory, or drop it."),
    Bound("l2", "L2 bandwidth",
          "More reuse per byte fetched from L2: larger tiles per block, or blocks that share tiles."),
    Bound("global", "global memory (L1/LSU)",
          "Stage tiles of A and B in shared memory (or registers) so each global load feeds many FMAs."),
    Bound("shared", "shared memory / MIO",
          "More FMAs per shared load (register tiling, 128-bit loads) and a layout free of bank conflicts."),
    Bound("issue", "instruction issue",
          "Fewer non-FMA instructions: larger register tiles, wider loads, index math hoisted out of the loop."),
    Bound("unknown", "unknown",
          "Profile with gemmprof profile (ncu --set full plus the metrics gemmprof asks for)."),
    Bound("fp64", "FP64 pipe",
          "Keep the math in FP32: float literals and float accumulators."),
    Bound("local", "local memory",
          "Keep per-thread data in registers: constant indices, no spills."),
    Bound("atomics", "atomics",
          "Accumulate privately, then one atomic per block or warp, to spread addresses."),
    Bound("divergence", "warp divergence",
          "Make branches uniform per warp."),
    Bound("waste", "wasted math",
          "Do only the GEMM's math: a tile no larger than the short side of C (M or N), or one per shape chosen "
          "by a dispatcher, so no tile computes far past the matrix's edges."),
    Bound("fetch", "instruction fetch",
          "Keep the code each warp runs small enough to be reused from the instruction cache: roll the loops a "
          "warp runs only a few times."),
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
    # The specific cause, a stable key scripts and tests read (e.g. 'fp64', 'tail', 'epilogue').
    cause: str = ""
    # Techniques the kernel already uses (labels from `techniques.TECHNIQUES`): never the cure.
    already_uses: tuple[str, ...] = ()
    # 'high' when counters name the cause directly, 'medium' for the Speed Of Light reading, 'low'
    # when counters are missing.
    confidence: str = "medium"
    # Other causes within noise of the lead's cost, largest first (cause keys): named beside it,
    # not chosen between at a threshold's edge.
    ranked: tuple[str, ...] = ()
    # Causes the cure already names beside its own (cause keys): not said again as notes.
    covers: tuple[str, ...] = ()


