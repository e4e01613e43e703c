"""Unit strings as Nsight Compute writes them, and the factor between two of them.

ncu reports each value in a unit of its choosing ("ns", "hz", "byte", "cycle/nsecond"; its CSV
export scales further: "us", "Ghz", "Mbyte"). gemmprof reports every column in one fixed unit
(see `profiler/metrics.py`), so the reader multiplies each value by `unit_factor(ncu_unit, our_unit)`
instead of trusting that ncu keeps its choice between versions.
"""

from __future__ import annotations

from functools import lru_cache

# SI prefixes as ncu spells them ("Kbyte", "Ghz", "nsecond", "usecond").
# Kept as powers of ten so that factors come out exact ('us' -> 'ns' is 1000.0, not 999.99...).
_PREFIXES = {"n": -9, "u": -6, "m": -3, "k": 3, "K": 3, "M": 6, "G": 9, "T": 12, "P": 15}

# Base tokens with a physical dimension: token -> the base it measures.
_DIMENSIONAL = {
    "byte": "byte",
    "bytes": "byte",
    "s": "s",
    "second": "s",
    "Hz": "Hz",
    "%": "%",
}

# Things ncu counts: they carry no dimension we convert between ('' is a plain count).
_COUNTS = {
    "",
    "1",
    "count",
    "inst",
    "cycle",
    "cycles",
    "warp",
    "warps",
    "thread",
    "threads",
    "block",
    "blocks",
    "sector",
    "sectors",
    "request",
    "requests",
    "register",
    "registers",
    "branches",
    "SM",
    "pass",
    "sample",
    "samples",
    "cluster",
    "wavefront",
    "wavefronts",
    "FLOP",
}


def _token(token: str) -> tuple[int, str]:
    """One unit token ('Kbyte', 'ns', 'warp') -> (power of ten to its base, base); counts -> '1'."""
    token = token.strip()
    if token in _COUNTS:
        return 0, "1"
    if token.lower() == "hz":
        return 0, "Hz"
    if token in _DIMENSIONAL:
        return 0, _DIMENSIONAL[token]
    prefix, rest = token[:1], token[1:]
    if prefix in _PREFIXES and rest:
        if rest.lower() == "hz":
            return _PREFIXES[prefix], "Hz"
        if rest in _DIMENSIONAL:
            return _PREFIXES[prefix], _DIMENSIONAL[rest]
        if rest in _COUNTS:
            return _PREFIXES[prefix], "1"
    raise ValueError(f"unknown unit {token!r}")


@lru_cache(maxsize=None)
def parse_unit(unit: str | None) -> tuple[int, tuple[str, ...], tuple[str, ...]]:
    """'Kbyte/s' -> (3, ('byte',), ('s',)): the power of ten to SI base units and the base
    units above and below the line (counts dropped; Hz written as 1/s)."""
    parts = (unit or "").split("/")
    exponent = 0
    above: list[str] = []
    below: list[str] = []
    for i, part in enumerate(parts):
        e, base = _token(part)
        exponent += e if i == 0 else -e
        if base != "1":
            (above if i == 0 else below).append(base)
    # Hz is 1/s: write it so that 'cycle/ns' and 'Hz' meet.
    above2 = [b for b in above if b != "Hz"]
    below2 = below + ["s"] * above.count("Hz")
    above2 += ["s"] * below.count("Hz")
    below2 = [b for b in below2 if b != "Hz"]
    # cancel what appears on both sides
    for b in list(above2):
        if b in below2:
            above2.remove(b)
            below2.remove(b)
    return exponent, tuple(sorted(above2)), tuple(sorted(below2))


@lru_cache(maxsize=None)
def unit_factor(from_unit: str, to_unit: str) -> float:
    """Multiply a value in `from_unit` by this to get it in `to_unit`.

    Counts ('inst', 'warp', 'sector', '') are interchangeable; bytes, seconds and Hz are not.
    Raises ValueError when the two units measure different things.
    """
    if from_unit == to_unit:
        return 1.0
    e_from, above_from, below_from = parse_unit(from_unit)
    e_to, above_to, below_to = parse_unit(to_unit)
    if (above_from, below_from) != (above_to, below_to):
        raise ValueError(f"cannot convert {from_unit!r} to {to_unit!r}")
    return 10.0 ** (e_from - e_to)
