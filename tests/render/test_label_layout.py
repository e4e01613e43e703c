"""Label placement (profiler.render.label_layout): crowded labels spread apart within bounds,
crowded tick labels thinned."""

from __future__ import annotations

import pytest

from profiler.render.label_layout import spread_labels, thin_labels


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
