"""How the charts look: one colour and marker per kernel, the same in every chart and far
apart to the eye (CIELAB), the references' greys, the font size, the footnote under a figure."""

from __future__ import annotations

import functools

import numpy as np
from matplotlib import colormaps as mpl_colormaps
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure

from ..catalogue.manifest import REFERENCES
from .escape import mpl_text

LEVEL_MARKERS = {"DRAM": "o", "L2": "s", "shared": "D", "L1": "^"}
CUBLAS_COLOR = "#111111"
CEILING_COLOR = "#555555"
# The references, one per tier in REFERENCES' order: black, then greys dark enough for text, each
# with its own marker and line so that two references on one chart never look alike.
REFERENCE_STYLES = (("#111111", "o", "-"), ("#6e6e6e", "s", (0, (5, 1.5))), ("#3c3c3c", "D", (0, (1.5, 1.2))),
                    ("#959595", "^", (0, (6, 2, 1.5, 2))))
# Markers cycled over the rungs in the ladder charts: a second cue beside colour.
RUNG_MARKERS = ("o", "s", "D", "^", "v", "P", "X", "p")
FONT = 9


def _lab(rgb) -> np.ndarray:
    """sRGB (0..1, rows of three) to CIELAB (D65): distances there follow what the eye tells apart."""
    rgb = np.asarray(rgb, dtype=float).reshape(-1, 3)
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = linear @ np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]).T
    xyz /= [0.95047, 1.0, 1.08883]
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])], axis=1)


def _delta_e94(lab: np.ndarray, others: np.ndarray) -> np.ndarray:
    """CIE94 distances between each row of `lab` and each row of `others` (a matrix): unlike the
    plain Lab distance it discounts chroma and hue differences among saturated colours, which
    the eye tells apart less well (two vivid blues)."""
    lab, others = lab[:, None, :], others[None, :, :]
    chroma_a, chroma_b = np.hypot(lab[..., 1], lab[..., 2]), np.hypot(others[..., 1], others[..., 2])
    d_l, d_c = lab[..., 0] - others[..., 0], chroma_a - chroma_b
    d_h2 = np.maximum(((lab - others)[..., 1:] ** 2).sum(axis=-1) - d_c ** 2, 0.0)
    chroma = np.sqrt(chroma_a * chroma_b)  # symmetric in the two colours
    return np.sqrt(d_l ** 2 + (d_c / (1 + 0.045 * chroma)) ** 2 + d_h2 / (1 + 0.015 * chroma) ** 2)


def color_distance(a, b) -> float:
    """CIE94 distance of two colours (about 1: just noticeable; above 10: clearly different)."""
    return float(_delta_e94(_lab(to_rgb(a)), _lab(to_rgb(b)))[0, 0])


@functools.lru_cache(maxsize=8)
def distinct_colors(n: int) -> tuple[tuple[float, float, float], ...]:
    """`n` colours for kernels: tab10 without its grey first, then each next one the candidate
    farthest (CIELAB) from every colour already taken and from the references' greys and white,
    so any colour differs from all before it, neighbours included (a continuous palette over
    many kernels gives near-identical neighbours). Candidates are mid-lightness and saturated
    enough to colour text on white, on a grid of 16 levels a channel: on 11, the 59th kernel's
    colour came 9.9 from its nearest (CIE94), on 16 with lightness from 30, 11.2."""
    tab = [c for i, c in enumerate(mpl_colormaps["tab10"].colors) if i != 7]
    chosen = [tuple(map(float, c)) for c in tab[:n]]
    if n <= len(chosen):
        return tuple(chosen)
    steps = np.linspace(0.0, 1.0, 16)
    grid = np.array(np.meshgrid(steps, steps, steps, indexing="ij")).reshape(3, -1).T
    lab = _lab(grid)
    usable = (lab[:, 0] >= 30) & (lab[:, 0] <= 70) & (np.hypot(lab[:, 1], lab[:, 2]) >= 25)
    grid, lab = grid[usable], lab[usable]
    avoid = [to_rgb(c) for c, *_ in REFERENCE_STYLES] + [to_rgb(CEILING_COLOR), (1.0, 1.0, 1.0)]
    nearest = _delta_e94(lab, _lab(np.array(chosen + avoid))).min(axis=1)
    while len(chosen) < n:
        pick = int(np.argmax(nearest))
        chosen.append(tuple(map(float, grid[pick])))
        nearest = np.minimum(nearest, _delta_e94(lab, lab[pick:pick + 1])[:, 0])
    return tuple(chosen)


def reference_style(name: str) -> tuple[str, str, object]:
    """(colour, marker, line style) of a cuBLAS reference."""
    return REFERENCE_STYLES[list(REFERENCES).index(name) % len(REFERENCE_STYLES)]


def _ladder(names) -> list[str]:
    """The whole manifest ladder in order, then kernels outside it: colours and markers are taken
    by position in it, so a chart of one tier styles a kernel as the roofline of all does."""
    from ..catalogue.manifest import load_manifest

    manifest = [s.name for s in load_manifest()]
    present = [n for n in dict.fromkeys(names) if n not in REFERENCES]
    return manifest + sorted(n for n in present if n not in manifest)


def kernel_colors(names) -> dict[str, tuple]:
    """One colour per kernel, the same in every chart (see `distinct_colors`); the references
    black and greys."""
    names = list(names)
    ladder = _ladder(names)
    palette = distinct_colors(len(ladder))
    present = set(names)
    colors = {name: palette[i] for i, name in enumerate(ladder) if name in present}
    colors.update({name: to_rgb(reference_style(name)[0]) for name in REFERENCES})
    return colors


# Colours closer than this (CIE94) are told apart by their markers as well.
CLOSE_COLORS = 15


def kernel_markers(names) -> dict[str, str]:
    """One marker per kernel for the ladder charts, cycled along the ladder, except that a kernel
    whose colour is close to an earlier kernel's takes the next marker that kernel does not have
    (the palette's nearest pairs are 11-15 apart, and the cycle alone gave some of them one
    marker)."""
    names = list(names)
    ladder = _ladder(names)
    palette = distinct_colors(len(ladder))
    lab = _lab(np.array(palette))
    close = _delta_e94(lab, lab) <= CLOSE_COLORS  # every pair at once (color_distance's measure)
    present = set(names)
    taken: list[str] = []
    for i in range(len(ladder)):
        near = {taken[j] for j in range(i) if close[i, j]}
        cycle = [RUNG_MARKERS[(i + k) % len(RUNG_MARKERS)] for k in range(len(RUNG_MARKERS))]
        taken.append(next((m for m in cycle if m not in near), cycle[0]))
    markers = {name: taken[i] for i, name in enumerate(ladder) if name in present}
    markers.update({name: reference_style(name)[1] for name in REFERENCES})
    return markers


FOOTNOTE_FONT = FONT - 1.5
FOOTNOTE_LINE_IN = 0.16  # the height a footnote line takes, in inches
FOOTNOTE_X = 0.01  # the footnote's left edge, as a fraction of the figure's width


def footnote_lines(notes, fig_width_in: float) -> list[str]:
    """The notes wrapped to a figure `fig_width_in` wide, measured in the font they are drawn in
    (digits and capitals are wider than an average character: an estimate cut lines off at the
    right edge). A chart sizes itself by their number and draws exactly these."""
    from .label_layout import text_width_pt

    room = fig_width_in * 72 * (1 - 2 * FOOTNOTE_X) - 2
    lines: list[str] = []
    for note in notes:
        line = ""
        for word in mpl_text(f"Note: {note}").split():
            longer = f"{line} {word}" if line else word
            if line and text_width_pt(longer, FOOTNOTE_FONT) > room:
                lines.append(line)
                line = word
            else:
                line = longer
        lines.append(line)
    return lines


def add_footnote(fig: Figure, notes, y: float = 0.01) -> None:
    """Notes under the axes (`footnote_lines`)."""
    if notes:
        text = "\n".join(footnote_lines(notes, fig.get_figwidth()))
        fig.text(FOOTNOTE_X, y, text, fontsize=FOOTNOTE_FONT, color="#444444", va="bottom", ha="left", gid="notes")
