"""Figures embedded in the pages (profiler.render.figures): a PNG data URI, and (data_uri_and_close)
the figure cleared, so a report of many kernels does not pile up drawn figures."""

from __future__ import annotations

import base64

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from profiler.render.figures import data_uri_and_close, figure_data_uri  # noqa: E402


def test_a_figure_becomes_a_png_data_uri_and_is_cleared_after():
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    uri = figure_data_uri(fig)
    prefix = "data:image/png;base64,"
    assert uri.startswith(prefix)
    assert base64.b64decode(uri[len(prefix):])[:8] == b"\x89PNG\r\n\x1a\n"
    assert fig.axes  # the caller may still draw on it
    assert data_uri_and_close(fig).startswith(prefix) and not fig.axes  # cleared: its memory goes
