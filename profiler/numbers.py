"""Every number gemmprof writes: in a verdict's sentence, a report table, a chart label, a
terminal table. One place, so a number reads the same everywhere; `format_value` picks the
formatter by the unit the metric table (`metrics.UNITS`) gives a column, as nvbench's
printers pick theirs by a summary's hint."""

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



def count_of(n: float, noun: str) -> str:
    """A count and its noun, singular for one: '1 block', '3 launches', '2.5 blocks'."""
    plural = noun + ("es" if noun.endswith(("h", "s")) else "s")
    return f"{fmt_num(n)} {noun if n == 1 else plural}"


# SI prefixes of rates (FLOP/s, byte/s, Hz) and chart ticks, the largest first.
_PREFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def si_rate(value: float, unit: str) -> str:
    """A rate with an SI prefix, three significant digits: 4.81e12, 'byte/s' -> '4.81 TB/s';
    6.65e13, 'FLOP/s' -> '66.5 TFLOP/s'."""
    base = "B/s" if unit == "byte/s" else unit
    for scale, prefix in _PREFIXES:
        if abs(value) >= scale:
            scaled = value / scale
            digits = 2 if scaled < 10 else 1 if scaled < 100 else 0
            return f"{scaled:.{digits}f} {prefix}{base}"
    return f"{value:.3g} {base}"


def si_tick(value: float, _pos=None) -> str:
    """An axis tick with an SI prefix and no unit (the axis label has it): 2e13 -> '20 T'."""
    for scale, prefix in _PREFIXES[:4]:
        if value >= scale:
            return f"{value / scale:g} {prefix}"
    return f"{value:g}"


def fixed(value, spec: str) -> str:
    """`format(value, spec)` for a table column of one fixed format ('.4f', ',.0f'); blank when
    unknown, so an empty cell never reads as a number."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return format(value, spec)


def change(value: float) -> str:
    """A relative change (new / base - 1) as '+3.1%'; blank when unknown."""
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{100 * value:+.1f}%"


def ms_spread(median, p10, p90) -> str:
    """A median time with its 10th-90th percentile spread: '0.412 (0.41–0.415)'."""
    if median is None or (isinstance(median, float) and math.isnan(median)):
        return ""
    spread = "" if any(v is None or math.isnan(v) for v in (p10, p90)) else f" ({p10:.4g}–{p90:.4g})"
    return f"{median:.4g}{spread}"


# The formatter of each unit of the metric table that has its own; the rest are plain numbers.
BY_UNIT = {
    "%": fmt_pct,
    "byte": fmt_bytes,
    "byte/s": lambda v: si_rate(v, "byte/s"),
    "FLOP/s": lambda v: si_rate(v, "FLOP/s"),
    "Hz": lambda v: si_rate(v, "Hz"),
    "FLOP": fmt_count, "inst": fmt_count, "sector": fmt_count, "wavefront": fmt_count, "sample": fmt_count,
    "cycle": fmt_count, "count": fmt_count,
    "ns": lambda v: f"{fmt_num(v)} ns",
}


def format_value(value: float, unit: str) -> str:
    """A value of a metric-table column, written the way its unit reads: a percentage, bytes, a
    rate with an SI prefix, a compact count, else a plain number."""
    if value is None or pd.isna(value):
        return "n/a"
    return BY_UNIT.get(unit, fmt_num)(value)
