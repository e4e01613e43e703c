"""Where chart labels go: spread crowded labels apart, thin tick labels that would overlap,
measure text before drawing, and place values on a log axis by fraction."""

from __future__ import annotations

import math

import numpy as np


def spread_labels(positions, gap: float, low: float = -math.inf, high: float = math.inf) -> list[float]:
    """Move 1-D label positions apart so neighbours are at least `gap` apart, keeping each group
    of crowded labels centred on where its members want to be (least squares), and all inside
    [low, high] when they fit. Returns the new positions in the input order."""
    want = np.asarray(positions, dtype=float)
    order = np.argsort(want, kind="stable")
    # Clusters of consecutive labels: (first index in sorted order, count, start position).
    clusters: list[list[float]] = []
    for rank, i in enumerate(order):
        clusters.append([rank, 1, want[i]])
        while len(clusters) > 1:
            prev, last = clusters[-2], clusters[-1]
            if prev[2] + prev[1] * gap <= last[2]:
                break
            first, count = prev[0], prev[1] + last[1]
            members = want[order[first:first + count]] - gap * np.arange(count)
            start = float(members.mean())
            clusters[-2:] = [[first, count, start]]
    out = np.empty(len(want))
    for first, count, start in clusters:
        out[order[first:first + count]] = start + gap * np.arange(count)
    # Keep inside the bounds: shift the lowest up / the highest down, pushing neighbours along.
    ranked = out[order]
    if len(ranked) and ranked[-1] > high:
        ranked[-1] = high
        for k in range(len(ranked) - 2, -1, -1):
            ranked[k] = min(ranked[k], ranked[k + 1] - gap)
    if len(ranked) and ranked[0] < low:
        ranked[0] = low
        for k in range(1, len(ranked)):
            ranked[k] = max(ranked[k], ranked[k - 1] + gap)
    out[order] = ranked
    return out.tolist()


def thin_labels(centres, widths, pad: float = 0.0) -> list[bool]:
    """Which of the labels (centre positions and widths along one axis, in order) to show so
    that no two shown overlap: greedy from both ends towards the middle, so the first and the
    last label always show."""
    n = len(centres)
    keep = [False] * n
    if not n:
        return keep
    keep[0] = keep[-1] = True
    left_edge = centres[0] + widths[0] / 2
    right_edge = centres[-1] - widths[-1] / 2
    if n > 1 and left_edge + pad > right_edge:
        keep[-1] = False
        right_edge = math.inf
    for i in range(1, n - 1):
        lo, hi = centres[i] - widths[i] / 2, centres[i] + widths[i] / 2
        if lo >= left_edge + pad and hi + pad <= right_edge:
            keep[i] = True
            left_edge = hi
    return keep


def text_width_pt(text: str, size: float) -> float:
    """How wide `text` is at font size `size`, in points, before any figure is drawn."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    width, _height, _descent = TextToPath().get_text_width_height_descent(text, FontProperties(size=size), ismath=False)
    return float(width)


def log_fraction(value: float, low: float, high: float) -> float:
    if not (value > 0 and low > 0 and high > low):  # no place on a log axis (a zero or negative peak)
        return math.nan
    return (math.log10(value) - math.log10(low)) / (math.log10(high) - math.log10(low))


def from_log_fraction(fraction: float, low: float, high: float) -> float:
    if not (low > 0 and high > low):
        return math.nan
    return 10 ** (math.log10(low) + fraction * (math.log10(high) - math.log10(low)))
