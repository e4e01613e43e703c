"""The roofline workflow (profiler.workflows.roofline) called as a library on the sample run: the
image written, the roofline and each kernel's nearest ceiling returned; the ladder charts."""

import pytest

from helpers.paths import SAMPLE_RUN
from profiler.errors import GemmprofError
from profiler.run import open_run
from profiler.workflows.progress import Quiet
from profiler.workflows.roofline import RooflineOptions, ladder_charts, roofline


def test_the_roofline_of_the_sample_run(tmp_path):
    result = roofline(RooflineOptions(paths=[SAMPLE_RUN], output=tmp_path / "r.svg"), Quiet())
    assert result.output.is_file() and result.output.read_text().lstrip().startswith("<?xml")
    assert set(result.bound["label"]) <= set(result.roofline.points["label"]) and len(result.bound)


def test_an_unknown_image_format_is_refused_before_any_work(tmp_path):
    with pytest.raises(GemmprofError, match="unknown image format"):
        roofline(RooflineOptions(paths=[tmp_path / "missing"], output=tmp_path / "r.gif"), Quiet())


def test_one_ladder_chart_per_tier(tmp_path):
    written = list(ladder_charts(open_run(SAMPLE_RUN), tmp_path / "ladder.png", 50))
    assert written[0] == tmp_path / "ladder.png" and all(p.is_file() for p in written)
