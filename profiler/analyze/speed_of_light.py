"""Nsight Compute's Speed Of Light reading, made specific to a GEMM (the verdict's last stages,
where no specific cause was found): the math pipe at its roof (or, for the tensor cores, below
what cuBLAS attains), the busy memory unit, instruction issue, and latency by its top stall.

1. math pipe: the FMA pipe (FP32) or the tensor cores run near their peak: the compute roof,
   said only within `specs.ROOF_SHARE` of what cuBLAS attains for that math (`roofs`);
2. memory side busy (the busiest memory unit at or above the SM's level, and busy): DRAM if DRAM
   is near its peak; shared memory / MIO if shared-memory wavefronts are most of the busiest
   unit's load; L2 if it is busier than L1 (by its bytes or by ncu's throughput, which also counts
   its sector work); otherwise global-memory access through L1 (LSU);
3. SM busy but not on math: instruction issue if the schedulers issue nearly every cycle;
4. nothing busy: latency, by its top stall.
Each returns a `Verdict` or None; `sentences` writes them.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from . import sentences
from .bounds import Verdict
from .loop_causes import below_roof, l2_busy, tensor_gap
from .roofs import math_kind
from .signals import Signals
from .thresholds import (BALANCE_MARGIN_PCT, DRAM_BOUND_PCT, FP32_BOUND_PCT, ISSUE_BUSY_PCT, SHARED_SHARE_MIN,
                         SOL_BUSY_PCT, TENSOR_BOUND_PCT)
from .values import number


def math_roof(s: Signals) -> Verdict | None:
    """The FP32 pipe or the tensor cores at the roof; tensor cores busiest yet below what cuBLAS
    attains for their math (`tensor_gap`)."""
    u = s.util
    if u["fp32"] >= FP32_BOUND_PCT and not (below_roof(s) and math_kind(u) == "FP32"):
        return sentences.fp32(s)
    if u["tensor"] >= TENSOR_BOUND_PCT:
        return sentences.tensor(s) if not below_roof(s) else tensor_gap(s)
    return None


def memory_unit(s: Signals) -> Verdict | None:
    """The memory side busy: DRAM, shared memory, L2, or global access through L1."""
    u = s.util
    if not (u["memory"] >= SOL_BUSY_PCT and u["memory"] >= u["sm"] - BALANCE_MARGIN_PCT):
        return None
    if u["dram"] >= DRAM_BOUND_PCT:
        return sentences.dram(s)
    if u["shared"] >= SHARED_SHARE_MIN * u["memory"]:
        return sentences.shared(s)
    busy = l2_busy(s)  # by its bytes, or by ncu's own count
    if busy >= SOL_BUSY_PCT and busy > number(s.launch.get("l1_throughput_pct")) + BALANCE_MARGIN_PCT:
        return sentences.l2(s)  # the L2, not L1, is the busy memory unit: operands refetched from it
    v = sentences.global_memory(s)
    if pd.isna(u["shared"]):  # the shared-memory share could not be measured: it may be the busy one
        return replace(v, confidence="low", evidence=v.evidence + (
            "Shared-memory utilisation is not measured in this report: the busy unit may be shared memory.",))
    return v


def issue(s: Signals) -> Verdict | None:
    """The SM busy and the schedulers issuing nearly every cycle, mostly not the math."""
    u = s.util
    return sentences.issue(s) if u["sm"] >= SOL_BUSY_PCT and u["issue"] >= ISSUE_BUSY_PCT else None


def register_banks(s: Signals) -> Verdict | None:
    """Latency whose top stalls are the FFMAs' register-bank conflicts at dispatch."""
    return sentences.register_banks(s)


def latency(s: Signals) -> Verdict:
    """Nothing saturated: latency, named by the top stall (always a verdict: the last stage)."""
    return sentences.latency(s)
