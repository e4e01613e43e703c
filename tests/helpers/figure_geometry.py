"""Matplotlib Figures drawn with the Agg backend and looked at as geometry: artists by gid, a
text's outline on screen (following its rotation), whether two outlines overlap. The roofline's
and the ladder's chart tests share it."""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.legend import Legend
from matplotlib.text import Text


def drawn(fig):
    FigureCanvasAgg(fig)
    fig.canvas.draw()
    return fig, fig.canvas.get_renderer()


def by_gid(fig, prefix: str, kind=object):
    return {a.get_gid(): a for a in fig.findobj(lambda a: isinstance(a, kind) and str(a.get_gid() or "").startswith(prefix))}


def corners(box) -> np.ndarray:
    return np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]])


def text_outline(text: Text, renderer) -> np.ndarray:
    """The four corners of a text on screen, following its rotation: the window extent of a
    rotated text is the upright box around it, which would call parallel slanted labels
    overlapping when their letters are apart."""
    angle = text.get_rotation()
    # Text's own extent: an Annotation's would include its leader line, which may pass near others
    extent = lambda: Text.get_window_extent(text, renderer)  # noqa: E731
    if not angle:
        return corners(extent())
    text.set_rotation(0)
    upright = extent()
    text.set_rotation(angle)
    # rotation_mode "anchor": the text turns about its alignment point
    ax_, ay_ = {"left": upright.x0, "center": (upright.x0 + upright.x1) / 2, "right": upright.x1}[text.get_ha()], \
        {"bottom": upright.y0, "center": (upright.y0 + upright.y1) / 2, "top": upright.y1,
         "baseline": upright.y0, "center_baseline": (upright.y0 + upright.y1) / 2}[text.get_va()]
    if text.get_rotation_mode() != "anchor":
        ax_, ay_ = (upright.x0 + upright.x1) / 2, (upright.y0 + upright.y1) / 2
    theta = np.radians(angle)
    rot = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    return (corners(upright) - [ax_, ay_]) @ rot.T + [ax_, ay_]


def polygons_overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Separating-axis test for two convex quadrilaterals."""
    for poly in (a, b):
        for i in range(4):
            edge = poly[(i + 1) % 4] - poly[i]
            normal = np.array([-edge[1], edge[0]])
            pa, pb = a @ normal, b @ normal
            if pa.max() <= pb.min() or pb.max() <= pa.min():
                return False
    return True


def overlaps(outlines) -> list[tuple[str, str]]:
    return [(a, b) for (a, pa), (b, pb) in itertools.combinations(outlines.items(), 2) if polygons_overlap(pa, pb)]


def text_boxes(fig, renderer, prefixes=("label:", "ceiling-label:")):
    texts = {}
    for prefix in prefixes:
        texts.update(by_gid(fig, prefix, Text))
    return {gid: text_outline(t, renderer) for gid, t in texts.items() if t.get_text()}


def inside(outline: np.ndarray, box) -> bool:
    return bool((outline[:, 0] >= box.x0).all() and (outline[:, 0] <= box.x1).all()
                and (outline[:, 1] >= box.y0).all() and (outline[:, 1] <= box.y1).all())


def legends(fig):
    return [a for a in fig.findobj(Legend)]
