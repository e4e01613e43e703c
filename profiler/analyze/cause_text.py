"""Pieces every cause check writes with: the `Verdict` a check returns, its stall lines, the
math instruction it counts per, and the Hopper pipeline sentence the tensor-core verdicts share."""

from __future__ import annotations

from ..numbers import fmt_bytes, fmt_pct
from .bounds import Verdict
from .signals import Signals, stall_sentence
from .values import number


def cause(bound: str, label: str, cause: str, problem: str, summary: str, evidence: list[str], cure: str,
          confidence: str = "high") -> Verdict:
    return Verdict(bound, label, problem, summary, tuple(e for e in evidence if e), cure, cause=cause,
                   confidence=confidence)


def stall_lines(s: Signals, reasons: tuple[str, ...] | None = None, n: int = 2) -> list[str]:
    real = s.real_stalls()
    if reasons is not None:
        real = real[real["reason"].isin(reasons)]
    return [stall_sentence(r) for r in real.head(n).to_dict("records")]


def class_samples(s: Signals, cls: str, noun: str) -> str:
    share = number((s.regions or {}).get(f"{cls}_samples_pct"))
    return f"{fmt_pct(share)} of the warps' samples are at {noun}." if share > 0 else ""


def math_instructions(s: Signals) -> float:
    return number((s.mix or {}).get("math"))


def math_name(s: Signals) -> str:
    return (s.mix or {}).get("math_op", "FFMA")


def hopper_sentence(s: Signals) -> str:
    """Tensor pipe, TMA and mbarrier facts of a Hopper-era kernel, in one sentence."""
    t, k = s.techniques or {}, s.launch
    if not (t.get("wgmma") or t.get("tma")):
        return ""
    parts = [f"tensor pipe busy {fmt_pct(number(k.get('pipe_tensor_active_pct')))} of active cycles"]
    if t.get("tma"):
        parts.append(f"TMA brought {fmt_bytes(number(k.get('tma_load_bytes')))} into shared memory")
    mbar = number((s.regions or {}).get("mbarrier_samples_pct"))
    if mbar > 0:
        parts.append(f"{fmt_pct(mbar)} of the samples wait on mbarriers")
    gmma, gmma_share = s.stall("gmma")
    if gmma_share > 0:
        parts.append(f"wgmma waits {fmt_pct(gmma_share)} of the cycles")
    return "Hopper pipeline: " + ", ".join(parts) + "."
