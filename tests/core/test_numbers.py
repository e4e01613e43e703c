"""profiler.numbers: the one formatter, keyed by the metric table's units."""

from __future__ import annotations

import math

import pytest

from profiler import numbers
from profiler import numbers as prose
from profiler.metrics import UNITS
from profiler.numbers import count_of
from profiler.numbers import si_rate


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


def test_si_rate():
    assert si_rate(4.811925e12, "byte/s") == "4.81 TB/s"
    assert si_rate(6.673758e13, "FLOP/s") == "66.7 TFLOP/s"
    assert si_rate(1.334752e14, "byte/s") == "133 TB/s"


def test_count_of_agrees_in_number():
    assert count_of(1, "block") == "1 block" and count_of(2, "block") == "2 blocks"
    assert count_of(3, "launch") == "3 launches" and count_of(1, "launch") == "1 launch"


def test_formatting():
    assert prose.fmt_pct(0.0376) == "0.038%" and prose.fmt_pct(7.64) == "7.6%" and prose.fmt_pct(66.4) == "66%"
    assert prose.fmt_bytes(67108864) == "67.1 MB" and prose.fmt_times(4228.0) == "4,228x" and prose.fmt_times(0.786) == "0.786x"
    assert prose.fmt_way(2.0) == "2-way" and prose.fmt_way(1.0001) == "none" and prose.fmt_way(5 / 3) == "1.67-way"
    assert prose.fmt_ratio(0.1234) == "x0.12" and prose.fmt_ratio(13.38) == "x13.4" and prose.fmt_count(402801223) == "402.8 M"
    assert prose.fmt_num(2.0) == "2" and prose.fmt_num(0.0625) == "0.0625" and prose.fmt_num(35332.1) == "35,332"
