"""Chart colours and markers (profiler.render.chart_style): distances in CIE94, a colour of its own
for every kernel, a palette that keeps its order as it grows."""

from __future__ import annotations

import itertools

import pytest

from profiler.catalogue.manifest import REFERENCES, load_manifest
from profiler.render.chart_style import CLOSE_COLORS, color_distance, distinct_colors, kernel_colors, kernel_markers


def test_color_distance_is_cie94():
    assert color_distance("black", "white") == pytest.approx(100.0, abs=0.05)
    assert color_distance("#1f77b4", "#1f77b4") == pytest.approx(0.0, abs=1e-9)
    # lightness counts in full, a chroma step among vivid colours much less
    assert color_distance("#808080", "#a0a0a0") > color_distance("#ff0000", "#e00000")


def test_every_kernel_has_a_colour_of_its_own():
    names = [s.name for s in load_manifest()] + list(REFERENCES)
    colours = kernel_colors(names)
    kernels = [n for n in names if n not in REFERENCES]
    markers = kernel_markers(names)
    pairs = [(color_distance(colours[a], colours[b]), a, b) for a, b in itertools.combinations(kernels, 2)]
    assert min(pairs)[0] > 10  # clearly different (the roofline shows them all); husl gave rungs 8-12 teals 5 apart
    # a ladder chart shows one tier: there, a pair of colours closer than 15 differs in marker too
    tier = {s.name: s.tier for s in load_manifest()}
    close = [(d, a, b) for d, a, b in pairs if d <= CLOSE_COLORS and tier[a] == tier[b] and markers[a] == markers[b]]
    assert not close, close
    refs = [colours[r] for r in REFERENCES]
    assert all(color_distance(a, b) > 20 for a, b in itertools.combinations(refs, 2))  # cuBLAS vs cuBLAS FP16
    assert all(color_distance(colours[k], r) > 15 for k in kernels for r in refs)


def test_distinct_colors_scale_and_keep_their_order():
    many = distinct_colors(40)
    assert distinct_colors(17) == many[:17]  # adding kernels never recolours the ladder
    assert min(color_distance(a, b) for a, b in itertools.combinations(many, 2)) > 10
    assert len(set(many)) == 40
