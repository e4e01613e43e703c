"""Where a stall reason's PC samples sit in the source: the line most of them fall on (needs
-lineinfo), the sentence that says so, and what that line tells a verdict (an mbarrier wait: the
warps wait for a pipeline stage, not for a load of their own)."""

from __future__ import annotations

from ..numbers import fmt_pct
from .signals import Signals
from .stalls import BY_REASON


def hot_line(s: Signals, reason: str | None) -> tuple[float, int, str] | None:
    """(share of the reason's PC samples, line, code) of the source line most of them fall on
    (needs -lineinfo); None when the samples do not say."""
    column = f"samples_{reason}"
    lines = s.lines
    if reason is None or lines is None or lines.empty or column not in lines.columns:
        return None
    counts = lines[column].fillna(0)
    have = lines[lines["line"].notna() & (counts > 0)]
    if have.empty or counts.sum() <= 0:
        return None
    top = have.loc[have[column].idxmax()]
    code = top["code"].split("//")[0].strip() if isinstance(top.get("code"), str) else ""
    return 100.0 * top[column] / counts.sum(), int(top["line"]), code


def where(s: Signals, reason: str | None) -> str:
    """Which source line most of a stall reason's PC samples fall on."""
    hot = hot_line(s, reason)
    if hot is None:
        return ""
    share, line, code = hot
    return (f"{fmt_pct(share)} of the {BY_REASON[reason].label} samples are at line {line}"
            + (f": `{code}`." if code else "."))


def waits_at_mbarrier(s: Signals) -> bool:
    """Most long-scoreboard samples sit in an mbarrier wait: warps wait for a pipeline stage,
    not for a global load of their own."""
    hot = hot_line(s, "long_scoreboard")
    return hot is not None and hot[0] >= 40.0 and "mbar" in hot[2]
