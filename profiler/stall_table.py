"""THE table of warp-stall reasons: each reason once, with the names ncu gives it, a label, what it
means, what usually cures it, its group, and whether it is a cost.

ncu reports stalls twice: the WarpStateStats section gives cycles per issued instruction
(`smsp__average_warps_issue_stalled_<launch>_per_issue_active.ratio`, the `stall_<reason>` columns
of the `kernels` table), and PC sampling gives samples per instruction
(`smsp__pcsamp_warps_issue_stalled_<sampled>`, the `samples_<reason>` columns of `source`/`sass`).
The two spell some reasons differently and each has one the other lacks; this table maps both to
one key. The metric table, the stall analysis, the verdict, the charts and `analyze` read it; no
other module lists stall reasons.

Two reasons are no cost: 'selected' (the warp issued: the productive cycle) and 'not selected'
(the warp was ready but another warp issued). Neither is ever a "top stall".
"""

from __future__ import annotations

from dataclasses import dataclass

# Groups by what a stalled warp waits for (the stall chart colours by group), in display order.
GROUPS = ("memory", "shared / MIO", "sync", "pipes / issue", "ready (not a cost)")


@dataclass(frozen=True)
class Stall:
    reason: str          # our key, the `stall_<reason>` / `samples_<reason>` column suffix
    launch_name: str | None   # ncu's WarpStateStats spelling (None: not reported per launch)
    sampled_name: str | None  # ncu's PC-sampling spelling (None: not sampled)
    label: str
    meaning: str
    cure: str
    group: str
    cost: bool = True    # False for the issue cycle and 'not selected'

    def __post_init__(self) -> None:
        assert self.group in GROUPS, self.group


STALLS: tuple[Stall, ...] = (
    Stall("barrier", "barrier", "barrier", "barrier",
          "Waiting at a __syncthreads() for the other warps of the block to arrive.",
          "Fewer barriers per unit of work (deeper k tiles, one barrier per tile with double-buffered shared "
          "memory) and warps of a block evenly loaded.", "sync"),
    Stall("branch_resolving", "branch_resolving", "branch_resolving", "branch resolving",
          "Waiting for a branch target to be computed or for the branch's divergence to be resolved.",
          "Fewer branches in the inner loop: unroll it, hoist bounds checks out of it, prefer predication.",
          "pipes / issue"),
    Stall("dispatch_stall", "dispatch_stall", "dispatch_stall", "dispatch stall",
          "The warp was picked but the dispatcher could not send its instruction (a pipeline or register-file "
          "conflict).",
          "FFMAs whose fresh operands share a register bank wait a cycle each (a note says so where they "
          "hold these stalls); beyond that, more independent instructions (ILP).",
          "pipes / issue"),
    Stall("drain", "drain", "drain", "drain",
          "Waiting after EXIT for the warp's outstanding memory writes to drain.",
          "Usually small; it only matters when a short kernel ends with large stores.", "memory"),
    Stall("gmma", "gmma", None, "warpgroup MMA",
          "Waiting for a warpgroup matrix multiply (wgmma) to finish.",
          "Keep more wgmma groups in flight (more pipeline stages) before waiting on them.", "sync"),
    Stall("imc_miss", "imc_miss", "imc_miss", "constant-cache miss",
          "Waiting for a miss in the immediate-constant cache.",
          "Avoid per-thread indices into constant memory; keep hot constants few and uniform.", "memory"),
    Stall("lg_throttle", "lg_throttle", "lg_throttle", "LG throttle",
          "The queue for global and local memory instructions is full: the warps issue global or local memory "
          "instructions faster than L1 takes them.",
          "Issue fewer, wider global loads: reuse each loaded value through shared memory or registers, use "
          "128-bit loads, and keep arrays out of local memory.", "memory"),
    Stall("long_scoreboard", "long_scoreboard", "long_scoreboard", "long scoreboard",
          "Waiting for the result of a global, local or texture memory access (through L1TEX).",
          "Hide the latency: have the next tile's loads in flight while computing this one, or run more warps; or "
          "need fewer loads by tiling.", "memory"),
    Stall("math_pipe_throttle", "math_pipe_throttle", "math_pipe_throttle", "math pipe throttle",
          "The math pipe the warp needs (FMA, FP64, ALU, ...) is busy with other warps' instructions.",
          "A sign the pipe is used fully; only fewer math instructions, or another pipe (tensor cores), go faster.",
          "pipes / issue"),
    Stall("membar", "membar", "membar", "memory barrier",
          "Waiting at a memory fence for earlier memory operations to complete.",
          "Remove fences that are not needed, or narrow their scope (block rather than device).", "sync"),
    Stall("mio_throttle", "mio_throttle", "mio_throttle", "MIO throttle",
          "The MIO queue (shared memory, special math, dynamic branches) is full: too many shared-memory "
          "instructions.",
          "Fewer, wider shared loads (LDS.128), more FMAs per loaded value (register tiling), and no bank conflicts.",
          "shared / MIO"),
    Stall("misc", "misc", "misc", "misc", "A miscellaneous hardware reason.",
          "Rarely significant; look at the other reasons first.", "pipes / issue"),
    Stall("no_instruction", "no_instruction", "no_instructions", "no instruction",
          "No instruction to issue: an instruction-cache miss, or just after a branch or barrier.",
          "Roll loops a warp runs only a few times (#pragma unroll 1), so the code it fetches is reused; usually small.",
          "pipes / issue"),
    Stall("not_selected", "not_selected", "not_selected", "not selected",
          "The warp was ready, but the scheduler issued another warp's instruction that cycle.",
          "Not a problem in itself: the issue slot was busy.", "ready (not a cost)", cost=False),
    Stall("selected", "selected", "selected", "selected (issuing)",
          "The warp issued an instruction: the one productive cycle, not a stall.",
          "Nothing to cure.", "ready (not a cost)", cost=False),
    Stall("short_scoreboard", "short_scoreboard", "short_scoreboard", "short scoreboard",
          "Waiting for the result of an MIO operation: a shared-memory load, or a special-function (MUFU) result.",
          "Load shared-memory fragments a step ahead of their use, fewer shared loads per FMA, no bank conflicts.",
          "shared / MIO"),
    Stall("sleeping", "sleeping", "sleeping", "sleeping",
          "The warp is asleep (nanosleep, or all its threads are blocked).",
          "Check spin-waits and intentional sleeps.", "sync"),
    Stall("tex_throttle", "tex_throttle", "tex_throttle", "TEX throttle",
          "The texture/L1TEX input queue is full.", "Fewer texture or read-only (__ldg) loads, or wider ones.",
          "memory"),
    Stall("wait", "wait", "wait", "wait",
          "A fixed-latency wait on a dependent instruction (e.g. an FFMA waiting for the result of the one before).",
          "More independent instructions between dependent ones: more accumulators per thread (ILP).",
          "pipes / issue"),
    Stall("warpgroup_arrive", None, "warpgroup_arrive", "warpgroup arrive",
          "Waiting at a warpgroup arrive/wait for wgmma operands.",
          "Overlap more stages so the operands are ready before the wait.", "sync"),
)

BY_REASON: dict[str, Stall] = {s.reason: s for s in STALLS}
# Reasons with a per-launch metric, and those with PC samples (ncu name -> our key).
LAUNCH_REASONS: tuple[str, ...] = tuple(s.reason for s in STALLS if s.launch_name)
SAMPLED_NAMES: dict[str, str] = {s.sampled_name: s.reason for s in STALLS if s.sampled_name}
# Reasons that are a cost: the only candidates for a "top stall".
COST_REASONS: tuple[str, ...] = tuple(s.reason for s in STALLS if s.cost)


def explain(reason: str) -> Stall:
    """The table entry for a reason; one ncu added after this table gets a neutral entry."""
    return BY_REASON.get(reason) or Stall(reason, None, None, reason.replace("_", " "),
                                          "A stall reason gemmprof has no entry for.",
                                          "See the Nsight Compute profiling guide.", "pipes / issue")
