"""The figures of a kernel page (profiler.render.kernel_figures, profiler.render.figures) on the sample
run."""

from __future__ import annotations

import pandas as pd
import pytest

from helpers.paths import SAMPLE_RUN
from profiler.catalogue.manifest import load_manifest

SAMPLE = SAMPLE_RUN

pytestmark = pytest.mark.skipif(not (SAMPLE / "kernels.parquet").is_file(), reason="sample run not present")


def test_kernel_figures():
    from profiler.analyze.diagnosis import diagnose_run
    from profiler.render import kernel_figures as kf
    from profiler.render.figures import figure_data_uri, kernel_figures

    tables = {n: pd.read_parquet(SAMPLE / f"{n}.parquet") for n in ("kernels", "source", "sass")}
    naive = diagnose_run(tables, load_manifest()).kernel("naive")
    figures = kernel_figures(naive)
    assert set(figures) == {"stalls", "traffic"}
    stall_bars = [a.get_gid() for a in figures["stalls"].axes[0].patches if a.get_gid()]
    assert stall_bars[-1] == "bar:lg_throttle"  # the largest is drawn last, on top
    traffic_bars = [a for a in figures["traffic"].axes[0].patches if (a.get_gid() or "").startswith("bar:")]
    widths = {a.get_gid(): a.get_width() for a in traffic_bars}
    assert widths["bar:L1"] == pytest.approx(4228.0) and figures["traffic"].axes[0].get_xscale() == "log"
    assert figure_data_uri(figures["traffic"]).startswith("data:image/png;base64,iVBOR")
    assert kf.stall_group("mio_throttle") == "shared / MIO"


def test_figures_of_a_corrupt_table_leave_out_what_is_not_finite():
    """A fuzzed kernels table (inf and NaN stall cycles, traffic ratios) once made `report` raise
    matplotlib's 'Axis limits cannot be NaN or Inf': such values get no bar, the rest draw."""
    import numpy as np
    import pandas as pd

    from profiler.render.kernel_figures import stall_figure, traffic_figure

    stalls = pd.DataFrame({"reason": ["long_scoreboard", "barrier", "wait"], "cycles_per_inst": [np.inf, np.nan, 1.0],
                           "share_pct": [10.0, 20.0, 30.0]})
    assert [p.get_gid() for p in stall_figure(stalls).axes[0].patches][:1] == ["bar:wait"]
    assert stall_figure(stalls.iloc[:2]).axes  # nothing finite at all: an empty chart, no error
    traffic = pd.DataFrame({"level": ["L1", "L2", "DRAM"], "bytes": [np.inf, 2e8, np.nan], "times": [np.inf, 2.0, np.nan]})
    assert [p.get_gid() for p in traffic_figure(traffic).axes[0].patches] == ["bar:L2"]
    assert traffic_figure(traffic.iloc[[0, 2]]).axes
