"""The report workflow (profiler.workflows.report) called as a library on the sample run: the
folder written and the diagnosis returned; the verdicts as JSON with nothing written."""

import json

import pytest

from helpers.paths import SAMPLE_RUN
from profiler.errors import GemmprofError
from profiler.outdir import MARKER
from profiler.workflows.progress import Quiet
from profiler.workflows.report import ReportOptions, report


def test_the_report_of_the_sample_run(tmp_path):
    result = report(ReportOptions(paths=[SAMPLE_RUN], out=tmp_path / "report"), Quiet())
    assert result.target == tmp_path / "report" and result.json is None
    assert (result.target / "index.html").is_file() and (result.target / "diagnosis.json").is_file()
    assert result.written == len([p for p in result.target.iterdir() if p.is_file() and p.name != MARKER])
    assert "spread128x256x8" in [d.name for d in result.diagnosis.kernels]


def test_json_only_writes_nothing(tmp_path):
    result = report(ReportOptions(paths=[SAMPLE_RUN], out=tmp_path / "report", as_json=True), Quiet())
    assert result.target is None and not (tmp_path / "report").exists()
    assert {k["kernel"] for k in json.loads(result.json)["kernels"]} == {d.name for d in result.diagnosis.kernels}


def test_a_folder_without_launches_is_one_line(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(GemmprofError):
        report(ReportOptions(paths=[tmp_path / "empty"], out=tmp_path / "report"), Quiet())
