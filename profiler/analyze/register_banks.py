"""Register-bank conflicts of the FFMAs, read from the SASS: how many executed FFMAs read two of
their source operands from one bank of the register file, and how many of the launch's
dispatch-stall samples sit on them.

Why: an FFMA whose fresh source operands (those the operand reuse cache does not hold) share a
bank waits a cycle at dispatch. The counters only say "dispatch stall"; the SASS says which
registers collide. The ladder's own case: cutlass128x256x8 stores each accumulator quad
acc[i][0..3] with one 128-bit instruction, so ptxas keeps the quad in an aligned quadruple of
registers, as it does each B fragment quad loaded by LDS.128: acc[i][j] and b[j] share bank j % 4
in nearly every FFMA of the main loop. regbank128x256x8, the same kernel with the quads stored
rotated, has a tenth of them (reports/sample-h200).

The model (sm_80 and later, as the ladder's regbank rung measured it): four banks, a register's
bank is its number mod 4. ncu's SASS text carries no `.reuse` flags, so a source register read
again in the same operand slot as the FFMA before it counts as served by the reuse cache (ptxas
sets the flag for exactly such repeats in an FFMA block).
"""

from __future__ import annotations

import re

import pandas as pd

from .instruction_mix import opcode, opcodes, operands
from .values import LAUNCH_KEYS

BANKS = 4
COLUMNS = LAUNCH_KEYS + ["ffma_executed", "ffma_bank_conflict_pct", "dispatch_samples", "dispatch_on_conflicts_pct"]

# A source operand that is a register: "R12", "-R12", "|R12|", "R12.reuse" (RZ is no register).
_REGISTER = re.compile(r"^[-|!]*R(\d+)\b")


def ffma_conflicts(texts: list[str], ops: list[str] | None = None) -> list[int | None]:
    """For SASS lines in program order (and their base opcodes, when the caller has them): for each
    FFMA, how many of its fresh source operands repeat a bank another fresh one already uses (0:
    none; 1: two in one bank; 2: all three); None for any other instruction, which also empties
    the reuse model."""
    ops = [opcode(t) for t in texts] if ops is None else ops
    out: list[int | None] = []
    previous: list[int | None] = [None, None, None]
    for text, op in zip(texts, ops):
        if op != "FFMA":
            out.append(None)
            previous = [None, None, None]
            continue
        fresh, now = [], [None, None, None]
        for slot, operand in enumerate(operands(text)[1:4]):
            match = _REGISTER.match(operand)
            if match is None:
                continue
            register = int(match.group(1))
            now[slot] = register
            if previous[slot] != register:
                fresh.append(register % BANKS)
        previous = now
        out.append(len(fresh) - len(set(fresh)))
    return out


def register_bank_conflicts(sass: pd.DataFrame) -> pd.DataFrame:
    """Per launch: FFMAs executed (warp instructions), the share of them with a bank conflict
    (`ffma_bank_conflict_pct`, by executions), the launch's dispatch-stall samples and the share
    of those at the conflicting FFMAs. Launches without FFMAs are left out."""
    rows = []
    if sass is None or sass.empty:
        return pd.DataFrame(columns=COLUMNS)
    for (report, launch), group in sass.groupby(LAUNCH_KEYS, sort=False, dropna=False):
        group = group.sort_values("offset") if "offset" in group.columns else group
        conflicts = pd.Series(ffma_conflicts(group["sass"].astype(str).tolist(), opcodes(group).tolist()),
                              index=group.index, dtype="float")
        ffma = conflicts.notna()
        if not ffma.any():
            continue
        executed = group["inst_executed"].fillna(0.0)
        hit = ffma & (conflicts > 0)
        total = float(executed[ffma].sum())
        dispatch = (group["samples_dispatch_stall"].fillna(0.0) if "samples_dispatch_stall" in group.columns
                    else pd.Series(0.0, index=group.index))
        samples = float(dispatch.sum())
        rows.append({"report": report, "launch": launch, "ffma_executed": total,
                     "ffma_bank_conflict_pct": 100.0 * float(executed[hit].sum()) / total if total > 0 else float("nan"),
                     "dispatch_samples": samples,
                     "dispatch_on_conflicts_pct": 100.0 * float(dispatch[hit].sum()) / samples if samples > 0 else float("nan")})
    return pd.DataFrame(rows, columns=COLUMNS)
