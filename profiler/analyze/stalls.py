"""Warp stall reasons: THE table of what each one means and what usually cures it, and the top
stalls of each launch.

ncu's WarpStateStats section reports, per reason, the cycles a warp spends stalled on it per
issued instruction (`stall_<reason>` columns of the `kernels` table); their sum, 'selected'
included, is the average number of cycles between two instructions of one warp. The source page
counts PC samples per reason and instruction (`samples_<reason>` of the `source` table).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..extract.metrics import SAMPLED_STALL_REASONS, STALL_ONLY, STALL_REASONS
from .values import number as _value


@dataclass(frozen=True)
class Stall:
    """One stall reason: a short label, one sentence of meaning, one of the usual cure."""

    reason: str
    label: str
    meaning: str
    cure: str
    # True for reasons that are not a problem in themselves ('not selected': a warp was ready).
    benign: bool = False


STALLS: dict[str, Stall] = {s.reason: s for s in (
    Stall("barrier", "barrier",
          "Waiting at a __syncthreads() for the other warps of the block to arrive.",
          "Do more work per barrier (deeper k tiles, double buffering) and keep the warps of a block evenly loaded."),
    Stall("branch_resolving", "branch resolving",
          "Waiting for a branch target to be computed or for the branch's divergence to be resolved.",
          "Fewer branches in the inner loop: unroll it, hoist bounds checks out of it, prefer predication."),
    Stall("dispatch_stall", "dispatch stall",
          "The warp was picked but the dispatcher could not send its instruction (a pipeline or register-file conflict).",
          "Rarely fixable in source; more independent instructions (ILP) and fewer register bank conflicts help."),
    Stall("drain", "drain",
          "Waiting after EXIT for the warp's outstanding memory writes to drain.",
          "Usually small; it only matters when a short kernel ends with large stores."),
    Stall("gmma", "warpgroup MMA",
          "Waiting for a warpgroup matrix multiply (wgmma) to finish.",
          "Keep more wgmma groups in flight (more pipeline stages) before waiting on them."),
    Stall("imc_miss", "constant-cache miss",
          "Waiting for a miss in the immediate-constant cache.",
          "Avoid per-thread indices into constant memory; keep hot constants few and uniform."),
    Stall("lg_throttle", "LG throttle",
          "The queue for global and local memory instructions is full: the warps issue global loads faster than L1 takes them.",
          "Issue fewer, wider global loads: reuse each loaded value through shared memory or registers, use 128-bit "
          "loads, and check for register spills to local memory."),
    Stall("long_scoreboard", "long scoreboard",
          "Waiting for the result of a global or local memory load (through L1TEX).",
          "Hide the latency: prefetch the next tile into registers while computing this one (double buffering), keep "
          "more loads in flight, or run more warps; or need fewer loads by tiling."),
    Stall("math_pipe_throttle", "math pipe throttle",
          "The math pipe the warp needs (FMA, ALU, ...) is busy with other warps' instructions.",
          "A sign the pipe is used fully; only fewer math instructions, or another pipe (tensor cores), go faster."),
    Stall("membar", "memory barrier",
          "Waiting at a memory fence for earlier memory operations to complete.",
          "Remove fences that are not needed, or narrow their scope (block rather than device)."),
    Stall("mio_throttle", "MIO throttle",
          "The MIO queue (shared memory, special math, dynamic branches) is full: too many shared-memory instructions.",
          "Fewer, wider shared loads (LDS.128), more FMAs per loaded value (register tiling), and no bank conflicts."),
    Stall("misc", "misc",
          "A miscellaneous hardware reason.",
          "Rarely significant; look at the other reasons first."),
    Stall("no_instruction", "no instruction",
          "No instruction to issue: an instruction-cache miss, or just after a branch or barrier.",
          "Keep the hot loop small enough for the instruction cache (less unrolling); usually small."),
    Stall("not_selected", "not selected",
          "The warp was ready, but the scheduler issued another warp's instruction that cycle.",
          "Not a problem in itself: the issue slot was busy. Fewer warps doing more work each can be as fast.",
          benign=True),
    Stall("selected", "selected (issuing)",
          "The warp issued an instruction: the one productive cycle, not a stall.",
          "Nothing to cure.",
          benign=True),
    Stall("short_scoreboard", "short scoreboard",
          "Waiting for the result of an MIO operation: a shared-memory load, or a special-function (MUFU) result.",
          "Load shared-memory fragments a step ahead of their use, fewer shared loads per FMA, no bank conflicts."),
    Stall("sleeping", "sleeping",
          "The warp is asleep (nanosleep, or all its threads are blocked).",
          "Check spin-waits and intentional sleeps."),
    Stall("tex_throttle", "TEX throttle",
          "The texture/L1TEX input queue is full.",
          "Fewer texture or read-only (__ldg) loads, or wider ones."),
    Stall("wait", "wait",
          "A fixed-latency wait on a dependent instruction (e.g. an FFMA waiting for the result of the one before).",
          "More independent instructions between dependent ones: more accumulators per thread (ILP)."),
    Stall("warpgroup_arrive", "warpgroup arrive",
          "Waiting at a warpgroup arrive/wait for wgmma operands.",
          "Overlap more stages so the operands are ready before the wait."),
)}

# Every reason ncu reports must be explained here (checked by the tests).
assert set(STALL_REASONS) <= set(STALLS) and set(SAMPLED_STALL_REASONS.values()) <= set(STALLS)

# The reasons by what they wait for (the report's stall chart colours by group); each reason is in
# exactly one group.
STALL_GROUPS: dict[str, tuple[str, ...]] = {
    "memory": ("lg_throttle", "long_scoreboard", "tex_throttle", "drain", "imc_miss"),
    "shared / MIO": ("mio_throttle", "short_scoreboard"),
    "sync": ("barrier", "membar", "sleeping", "warpgroup_arrive", "gmma"),
    "pipes / issue": ("math_pipe_throttle", "dispatch_stall", "wait", "branch_resolving", "no_instruction", "misc"),
    "ready (not a cost)": ("not_selected", "selected"),
}
assert sorted(r for reasons in STALL_GROUPS.values() for r in reasons) == sorted(STALLS)


def stall_group(reason: str) -> str:
    """The group of a reason; one ncu added after this table is 'pipes / issue'."""
    return next((g for g, reasons in STALL_GROUPS.items() if reason in reasons), "pipes / issue")



def explain(reason: str) -> Stall:
    """The table entry for a reason; an unknown reason gets a neutral entry, never an error."""
    return STALLS.get(reason) or Stall(reason, reason.replace("_", " "), "A stall reason gemmprof has no entry for.",
                                       "See the Nsight Compute profiling guide.")


def stall_breakdown(kernels: pd.DataFrame) -> pd.DataFrame:
    """One row per launch and stall reason: cycles per issued instruction, and its share of all
    cycles between two issues of one warp ('selected' counted in the total, as ncu does).

    Columns: report, launch, reason, cycles_per_inst, share_pct, benign.
    """
    rows = []
    for record in kernels.to_dict("records"):
        values = {r: _value(record.get(f"stall_{r}")) for r in STALL_REASONS}
        total = np.nansum(list(values.values()))
        for reason in STALL_ONLY:
            v = values[reason]
            if np.isnan(v):
                continue
            rows.append({
                "report": record.get("report"), "launch": record.get("launch"), "reason": reason,
                "cycles_per_inst": v, "share_pct": 100.0 * v / total if total > 0 else np.nan,
                "benign": STALLS[reason].benign,
            })
    return pd.DataFrame(rows, columns=["report", "launch", "reason", "cycles_per_inst", "share_pct", "benign"])


def top_stalls(kernels: pd.DataFrame, n: int = 5, include_benign: bool = True) -> pd.DataFrame:
    """The `n` stall reasons costing each launch the most cycles per issued instruction, with
    label, meaning and cure. Reasons costing nothing are left out.

    Columns: report, launch, rank, reason, label, cycles_per_inst, share_pct, benign, meaning, cure.
    """
    stalls = stall_breakdown(kernels)
    if not include_benign:
        stalls = stalls[~stalls["benign"]]
    stalls = stalls[stalls["cycles_per_inst"] > 0]
    stalls = stalls.sort_values(["report", "launch", "cycles_per_inst"], ascending=[True, True, False], kind="stable")
    top = stalls.groupby(["report", "launch"], sort=False, dropna=False).head(n).copy()
    top.insert(2, "rank", top.groupby(["report", "launch"], sort=False, dropna=False).cumcount() + 1)
    top.insert(4, "label", [STALLS[r].label for r in top["reason"]])
    top["meaning"] = [STALLS[r].meaning for r in top["reason"]]
    top["cure"] = [STALLS[r].cure for r in top["reason"]]
    return top.reset_index(drop=True)


def sampled_reasons(source: pd.DataFrame, n: int = 3) -> list[list[tuple[str, float]]]:
    """For each row of a `source` (or `sass`) table, its `n` largest PC-sample reasons as
    (reason, samples), 'selected' included (a hot FFMA line is mostly issuing)."""
    columns = [c for c in source.columns if c.startswith("samples_")]
    out = []
    for record in source[columns].to_dict("records"):
        pairs = [(c[len("samples_"):], _value(v)) for c, v in record.items()]
        pairs = sorted((p for p in pairs if p[1] > 0), key=lambda p: -p[1])
        out.append(pairs[:n])
    return out

