"""The analyze workflow (profiler.workflows.analyze) called as a library on committed reports:
the tables read and exported, the summary's rows and title."""

import pytest

from helpers.paths import DATA
from profiler.workflows.analyze import AnalyzeOptions, analyze, summarize

REPORTS = DATA / "profile-h200"

pytestmark = [pytest.mark.ncu]


def test_tables_read_and_exported_into_one_folder(tmp_path):
    result = analyze(AnalyzeOptions([REPORTS / "naive_512x256x128.ncu-rep.xz"], csv_dir=tmp_path / "t", parquet_dir=tmp_path / "t"))
    assert {"kernels", "rules", "source", "sass", "metrics"} <= set(result.tables)
    assert result.exported == [tmp_path / "t", tmp_path / "t"]
    assert (tmp_path / "t" / "kernels.csv").is_file() and (tmp_path / "t" / "kernels.parquet").is_file()


def test_summary_per_launch_and_per_kernel():
    kernels = analyze(AnalyzeOptions([REPORTS])).tables["kernels"]
    launches = summarize(kernels, "launch", REPORTS)
    assert not launches.per_kernel and len(launches.rows) == len(kernels)
    assert launches.title.endswith(f"in {REPORTS}")
    folded = summarize(kernels, "kernel", REPORTS)
    assert folded.per_kernel and "--rows launch lists each" in folded.title
