"""Label placement (profiler.render.label_layout): crowded labels spread apart within bounds,
crowded tick labels thinned, text measured before drawing, log-axis fractions; the placement's
promises also held as properties over any positions (hypothesis)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from profiler.render.label_layout import (from_log_fraction, log_fraction, spread_labels, text_width_pt,
                                          thin_labels)

positions = st.lists(st.floats(-100, 100, allow_nan=False), max_size=12)


def test_spread_labels_centres_crowds_and_keeps_bounds():
    assert spread_labels([0.0, 0.01, 0.02], 0.1) == pytest.approx([-0.09, 0.01, 0.11])
    assert spread_labels([0.0, 0.01, 0.02], 0.1, low=0.0) == pytest.approx([0.0, 0.1, 0.2])
    assert spread_labels([0.5, 0.0, 0.9], 0.1) == pytest.approx([0.5, 0.0, 0.9])  # no crowd: unchanged
    assert spread_labels([0.98, 0.99], 0.1, high=1.0) == pytest.approx([0.9, 1.0])
    assert spread_labels([], 0.1) == []


def test_thin_labels_keeps_ends_and_drops_crowded():
    assert thin_labels([0, 10, 12, 100], [8, 8, 8, 8]) == [True, True, False, True]
    assert thin_labels([0, 1], [8, 8]) == [True, False]
    assert thin_labels([], []) == []


@given(positions, st.floats(0.1, 10))
def test_spread_labels_keep_their_order_and_their_gap(want, gap):
    got = spread_labels(want, gap)
    by_want = sorted(range(len(want)), key=lambda i: want[i])
    placed = [got[i] for i in by_want]
    assert all(b - a >= gap * (1 - 1e-9) for a, b in zip(placed, placed[1:]))
    assert sorted(got) == pytest.approx(placed)  # no label jumps over a neighbour


@given(positions, st.floats(0.1, 5), st.floats(-200, 0), st.floats(0, 200))
def test_spread_labels_stay_inside_bounds_they_fit_in(want, gap, low, high):
    if (len(want) - 1) * gap > high - low:
        return
    got = spread_labels(want, gap, low=low, high=high)
    assert all(low - 1e-9 <= y <= high + 1e-9 for y in got)


@given(st.lists(st.tuples(st.floats(0.5, 20), st.floats(0.5, 10)), max_size=15), st.floats(0, 2))
def test_thinned_labels_never_overlap(steps, pad):
    centres, widths, x = [], [], 0.0
    for step, width in steps:
        x += step
        centres.append(x)
        widths.append(width)
    keep = thin_labels(centres, widths, pad)
    shown = [(c - w / 2, c + w / 2) for c, w, k in zip(centres, widths, keep) if k]
    assert all(a_hi + pad <= b_lo + 1e-9 for (_, a_hi), (b_lo, _) in zip(shown, shown[1:]))
    if centres:
        assert keep[0]


def test_text_width_grows_with_text_and_size():
    one, two = text_width_pt("wgmma", 9), text_width_pt("wgmma wgmma", 9)
    assert 0 < one < two
    assert text_width_pt("wgmma", 18) == pytest.approx(2 * one, rel=0.05)


def test_log_fraction_and_back():
    assert log_fraction(100.0, 1.0, 10_000.0) == pytest.approx(0.5)
    assert from_log_fraction(0.5, 1.0, 10_000.0) == pytest.approx(100.0)
    assert from_log_fraction(log_fraction(37.0, 2.0, 900.0), 2.0, 900.0) == pytest.approx(37.0)
    assert math.isnan(log_fraction(0.0, 1.0, 10.0)) and math.isnan(log_fraction(5.0, 10.0, 1.0))
    assert math.isnan(from_log_fraction(0.5, 0.0, 10.0))
