"""Units of ncu's metrics (profiler.extract.units): factors within a dimension, refusals across."""

from __future__ import annotations

import pytest

from profiler.extract.units import parse_unit, unit_factor


@pytest.mark.parametrize(
    "source, target, factor",
    [
        ("ns", "ns", 1.0),
        ("us", "ns", 1e3),
        ("msecond", "ns", 1e6),
        ("nsecond", "ns", 1.0),
        ("Ghz", "Hz", 1e9),
        ("hz", "Hz", 1.0),
        ("cycle/nsecond", "Hz", 1e9),
        ("Mbyte", "byte", 1e6),
        ("Kbyte/block", "byte/block", 1e3),
        ("Gbyte/s", "byte/s", 1e9),
        ("Tbyte/s", "byte/s", 1e12),
        ("sector/ns", "sector/s", 1e9),
        ("sector/us", "sector/s", 1e6),
        ("inst", "cycle/inst", 1.0),  # ncu labels the stall ratios 'inst'
        ("", "count", 1.0),
        ("block", "count", 1.0),
        ("1/cycle", "wavefront/cycle", 1.0),
        ("%", "%", 1.0),
    ],
)
def test_unit_factor(source, target, factor):
    assert unit_factor(source, target) == factor


@pytest.mark.parametrize("source, target", [("byte", "ns"), ("byte/s", "byte"), ("%", "count"), ("Hz", "byte")])
def test_unit_factor_refuses_other_dimensions(source, target):
    with pytest.raises(ValueError):
        unit_factor(source, target)


def test_unknown_unit():
    with pytest.raises(ValueError):
        parse_unit("furlong")
