"""Numbers in prose: how the verdicts and the report's tables write a count, a percentage, bytes, a
factor or an n-way conflict. One place, so a number reads the same in a sentence and in a table."""

from __future__ import annotations

import math

import pandas as pd




def fmt_num(value: float, digits: int = 3) -> str:
    """Plain number with thousands separators; small values keep `digits` significant digits."""
    if value is None or pd.isna(value):
        return "n/a"
    if math.isinf(value):
        return "inf"
    if abs(value) >= 1000 or value == int(value):
        return f"{value:,.0f}"
    decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(value)))))
    return f"{value:,.{decimals}f}"


def fmt_pct(value: float) -> str:
    """12.3 -> '12%'; small percentages keep a significant digit ('0.04%')."""
    if value is None or pd.isna(value):
        return "n/a"
    if abs(value) >= 10 or value == 0:
        return f"{value:.0f}%"
    if abs(value) >= 1:
        return f"{value:.1f}%"
    return f"{value:.2g}%"


def fmt_bytes(value: float) -> str:
    """Decimal units, as ncu shows them: 67108864 -> '67.1 MB'."""
    if value is None or pd.isna(value):
        return "n/a"
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.1f} {unit}"
    return f"{value:.0f} B"


def fmt_times(value: float) -> str:
    """A multiplier: 4228.0 -> '4,228x', 0.79 -> '0.79x'."""
    if value is None or pd.isna(value):
        return "n/a"
    return f"{fmt_num(value, 3 if value < 100 else 0)}x"


def fmt_ratio(value: float) -> str:
    """A change by a factor, as the ladder shows it: 0.12 -> 'x0.12', 13.38 -> 'x13.4'."""
    if value is None or pd.isna(value):
        return "n/a"
    text = fmt_num(value, 2 if value < 1 else 3)
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return f"x{text}"


def fmt_count(value: float) -> str:
    """A large count, compact: 402801223 -> '402.8 M'."""
    if value is None or pd.isna(value):
        return "n/a"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.1f} {unit}"
    return fmt_num(value)


def fmt_way(value: float) -> str:
    """n-way of a bank conflict: 2.0 -> '2-way', 1.67 -> '1.67-way', 1.0 -> 'none'."""
    if value is None or pd.isna(value):
        return "n/a"
    if value < 1.005:
        return "none"
    return f"{value:.0f}-way" if abs(value - round(value)) < 0.05 else f"{value:.2f}-way"




def upper(text: str) -> str:
    """The sentence with its first letter capitalised."""
    return text[:1].upper() + text[1:]
