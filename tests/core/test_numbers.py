"""profiler.numbers: the one formatter, keyed by the metric table's units."""

from __future__ import annotations

import math

import pytest

from profiler import numbers
from profiler.extract.metrics import UNITS


def test_every_unit_with_a_formatter_is_a_unit_of_the_metric_table():
    assert set(numbers.BY_UNIT) <= set(UNITS)


@pytest.mark.parametrize("value,unit,text", [
    (66.4, "%", "66%"),
    (67108864, "byte", "67.1 MB"),
    (4.811925e12, "byte/s", "4.81 TB/s"),
    (6.673758e13, "FLOP/s", "66.7 TFLOP/s"),
    (1.98e9, "Hz", "1.98 GHz"),
    (402801223, "inst", "402.8 M"),
    (35332.1, "ns", "35,332 ns"),
    (0.0625, "cycle/inst", "0.0625"),  # no formatter of its own: a plain number
    (math.nan, "byte", "n/a"),
])
def test_format_value_reads_by_unit(value, unit, text):
    assert numbers.format_value(value, unit) == text


def test_ticks_and_table_cells():
    assert numbers.si_tick(2e13) == "20 T" and numbers.si_tick(5e5) == "500000"
    assert numbers.fixed(1234.5, ",.0f") == "1,234" and numbers.fixed(math.nan, ".1f") == "" and numbers.fixed(None, ".1f") == ""
    assert numbers.change(0.031) == "+3.1%" and numbers.change(-0.5) == "-50.0%" and numbers.change(math.nan) == ""
    assert numbers.ms_spread(0.4123, 0.41, 0.415) == "0.4123 (0.41–0.415)" and numbers.ms_spread(0.4, math.nan, 1) == "0.4"
    assert numbers.ms_spread(None, 1, 2) == ""
