"""What one verdict looks at: each unit's utilisation per launch, and the `Signals` of one launch
(its row, utilisation, occupancy, stalls, instruction mix, conflicts, coalescing, source lines,
the techniques it uses and where its time goes)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..metrics import tensor_input
from ..stall_table import BY_REASON
from .shared_memory import shared_utilisation_pct
from ..numbers import fmt_num, fmt_pct
from .occupancy import SCHEDULERS_PER_SM
from .timeline import DramStream
from .values import number, numeric_column

# Warp schedulers per SM (one issue slot each per cycle).
ISSUE_SLOTS_PER_SM = SCHEDULERS_PER_SM


def utilisation(kernels: pd.DataFrame) -> pd.DataFrame:
    """Per launch, in % of each unit's peak: sm, memory (ncu's Speed Of Light), dram, l2, shared
    (wavefront rate), fp32 (FP32 FLOPs on the FMA pipe), tensor (tensor-core FLOPs against the dense
    peak of the input type that fed them, named by tensor_input: 'TF32' or 'FP16'), issue (issue
    slots used); ffma_share (FFMAs among issued warp instructions); blocks, waves and sm_fill (share
    of SMs given a block)."""
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
        "tensor": 100.0 * col("tensor_flop").fillna(0.0) / seconds
                  / col("peak_tensor_flops").fillna(col("peak_tensor_fp16_flops")),  # older tables: FP16
        "issue": 100.0 * col("inst_executed") / issue_slots,
        "ffma_share": 100.0 * (col("ffma_thread_inst") / 32.0) / col("inst_executed"),
        "blocks": blocks, "waves": col("launch_waves").fillna(col("waves_per_sm")),  # older tables: ncu's
        "sm_fill": 100.0 * np.minimum(1.0, blocks / col("sm_count")),
    }, index=kernels.index)
    # ncu's own DRAM throughput where it has one (same definition, its rounding).
    out["dram"] = col("dram_throughput_pct").where(col("dram_throughput_pct").notna(), out["dram"])
    out = out.astype({c: "float64" for c in out.columns if c not in ("report", "launch")})
    flops = pd.DataFrame({"tensor_tf32_flop": col("tensor_tf32_flop"), "tensor_flop": col("tensor_flop")})
    out["tensor_input"] = tensor_input(flops) if len(flops) else []
    return out


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
    techniques: dict | None = None  # this launch's row of `techniques.techniques`
    regions: dict | None = None  # this launch's row of `regions.time_regions`
    banks: dict | None = None  # this launch's row of `register_banks.register_bank_conflicts`
    attribution: dict | None = None  # this launch's row of `attribution.attribute`: where its samples go
    attainable: dict | None = None  # `roofs.attainable`: what its math can reach on this GPU, and from where
    origin: str = "cuda"  # who compiled it (`roofs.origin`): gemmprof, triton, library or cuda
    stream: DramStream | None = None  # when it reads DRAM at its plateau (`timeline.dram_stream`)

    def stall(self, reason: str) -> tuple[float, float]:
        """(cycles per issued instruction, share of all cycles in %) of one reason, as `own_stalls`."""
        stalls = self.own_stalls()
        row = stalls[stalls["reason"] == reason]
        if row.empty:
            return 0.0, 0.0
        return float(row["cycles_per_inst"].iloc[0]), float(row["share_pct"].iloc[0])

    def own_stalls(self) -> pd.DataFrame:
        """The stall table with barrier stalls net of those at WARPGROUP instructions
        (`regions.barrier_stall_at_wgmma_wait_pct`): ncu files a warp waiting in wgmma.wait_group
        for its own MMAs as a barrier stall, which is the tensor pipe at work, not a __syncthreads."""
        at_wgmma = number((self.regions or {}).get("barrier_stall_at_wgmma_wait_pct"))
        if not at_wgmma > 0:
            return self.stalls
        net = self.stalls.copy()
        barrier = net["reason"] == "barrier"
        net.loc[barrier, ["cycles_per_inst", "share_pct"]] *= 1 - at_wgmma / 100
        return net

    def real_stalls(self) -> pd.DataFrame:
        """Stall reasons that are a cost (not 'not selected'), largest first."""
        stalls = self.own_stalls()
        s = stalls[~stalls["benign"] & (stalls["cycles_per_inst"] > 0)]
        return s.sort_values("cycles_per_inst", ascending=False, kind="stable")



    def busy_sms(self) -> float:
        """SMs the grid gives a block (at most all of them)."""
        return min(number(self.util.get("blocks")), number(self.launch.get("sm_count")))

    def at_clock(self) -> str:
        """' at 1.58 GHz': the SM clock every % of peak of this launch is measured at ("" unknown)."""
        clock = number(self.launch.get("sm_clock_hz"))
        return f" at {fmt_num(clock / 1e9, 3)} GHz" if clock > 0 else ""

    def sides(self) -> str:
        """The Speed Of Light in one sentence: how busy the memory side and the SM are."""
        return f"Speed Of Light: memory {fmt_pct(self.util['memory'])} busy, SM {fmt_pct(self.util['sm'])}."


def stall_sentence(row: dict) -> str:
    """One row of `stall_breakdown` as evidence: 'Long scoreboard: 3.1 stall cycles per ...'."""
    return (f"{upper(BY_REASON[row['reason']].label)}: {fmt_num(row['cycles_per_inst'])} stall cycles per issued "
            f"instruction ({fmt_pct(row['share_pct'])} of all cycles between issues).")


def upper(text: str) -> str:
    """The sentence with its first letter capitalised."""
    return text[:1].upper() + text[1:]
