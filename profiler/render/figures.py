"""Which figures a report embeds and how: the kernel page's small figures, the index's roofline and
ladder charts, each as a PNG data: URI so a page stands alone."""

from __future__ import annotations

import base64
import io
from typing import Any

import pandas as pd

from ..analyze.diagnosis_record import Diagnosis
from ..analyze.suite import SuiteRun


# PNG resolution of embedded figures (shown at 100 dpi size: crisp on high-density screens).
FIGURE_DPI = 144


def figure_data_uri(fig) -> str:
    """A matplotlib Figure as a PNG data: URI."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=FIGURE_DPI, bbox_inches="tight", facecolor="white")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def kernel_figures(d: Diagnosis) -> dict[str, Any]:
    """The small figures of a kernel page (stalls, traffic, timeline), as Figures."""
    from . import kernel_figures as kf

    figures = {}
    name = d.name if len(d.name) <= 60 else d.name[:59] + "…"  # a title, not the whole NVTX range
    if not d.stalls.empty:
        figures["stalls"] = kf.stall_figure(d.stalls, f"{name}: where a warp's cycles go")
    levels = d.traffic[d.traffic["level"].isin(["DRAM", "L2", "L1"])] if not d.traffic.empty else d.traffic
    if not levels.empty:
        figures["traffic"] = kf.traffic_figure(levels, f"{name}: bytes moved against the GEMM minimum")
    if d.timeline is not None:
        figures["timeline"] = kf.timeline_figure(d.timeline, f"{name}: over the launch (ncu's PM sampling)")
    return figures


def index_figures(kernels: pd.DataFrame | None, bench: pd.DataFrame | None, suite: SuiteRun | None = None
                  ) -> tuple[dict[str, Any], list[str]]:
    """The roofline and the ladder charts (one per precision tier, `render.roofline_chart` and
    `render.ladder_chart`), and for a suite run its heatmap per tier (`render.suite_chart`),
    where the tables allow; and a warning for each chart that could not be drawn."""
    try:
        from .ladder_chart import bench_tiers, ladder_figure
        from .roofline_chart import roofline_figure
        from .suite_chart import suite_figure
    except ImportError:
        return {}, []
    figures, problems = {}, []
    drawings = [("roofline", lambda: roofline_figure(kernels), kernels)]
    if bench is not None and not bench.empty:  # one ladder per precision tier: "ladder", "ladder-fp16"
        tiers = bench_tiers(bench)
        if suite is not None:  # a suite's shapes are no line over one size: a heatmap per tier
            drawings += [("suite" if tier == "fp32" else f"suite-{tier}",
                          lambda tier=tier: suite_figure(bench, suite.shapes, f"suite {suite.name}, {tier}: % of cuBLAS",
                                                         tier), bench)
                         for tier in tiers if tier in set(suite.summary["tier"])]
        drawings += [("ladder" if tier == "fp32" else f"ladder-{tier}",
                      lambda tier=tier: ladder_figure(bench, tier=tier), bench) for tier in tiers]
    for name, draw, table in drawings:
        if table is None or table.empty:
            continue
        try:
            figures[name] = draw()
        except Exception as exc:  # a chart must not take the report down with it
            problems.append(f"the {name} chart could not be drawn: {exc}")
    return figures, problems


def data_uri_and_close(fig) -> str:
    uri = figure_data_uri(fig)
    fig.clear()
    return uri
