"""Rows of a report (profiler.extract.rows): gemmprof's NVTX naming read back, rows merged across
workers, a window of launches read alone."""

from __future__ import annotations

import pytest

from helpers.ncu_fixtures import fixtures, no_fixtures_reason
from profiler.extract.rows import parse_nvtx

FIXTURES = fixtures()


@pytest.mark.parametrize(
    "ranges, expected",
    [
        (["gp", "vectorized 4096x4096x4096"], ("vectorized", 4096, 4096, 4096)),
        (["gp", "cublas 2048x1024x512"], ("cublas", 2048, 1024, 512)),
        (["outer", "gp", "naive 512x512x512", "inner"], ("naive", 512, 512, 512)),
        (["gp", "naive"], ("naive", None, None, None)),
        (["gp"], (None, None, None, None)),
        (["gp", "two words 1x1x1"], (None, None, None, None)),
        (["other", "naive 512x512x512"], (None, None, None, None)),
        ([], (None, None, None, None)),
    ],
)
def test_parse_nvtx(ranges, expected):
    assert parse_nvtx(ranges) == expected


def test_extend_appends_rows_and_keeps_the_first_text_of_a_line():
    from profiler.extract.rows import Rows

    a, b = Rows(), Rows()
    a.kernels.append({"launch": 0})
    a.code[("k.cu", 3)] = "first"
    b.kernels.append({"launch": 1})
    b.code.update({("k.cu", 3): "second", ("k.cu", 4): "other"})
    b.metrics["name"].append("sm__cycles")
    a.extend(b)
    assert [k["launch"] for k in a.kernels] == [0, 1]
    assert a.code == {("k.cu", 3): "first", ("k.cu", 4): "other"} and a.metrics["name"] == ["sm__cycles"]


@pytest.mark.ncu
@pytest.mark.skipif(not FIXTURES, reason=no_fixtures_reason())
def test_a_window_of_launches_reads_what_the_whole_report_reads_there():
    """Worker processes read shares of a big report (start..stop): a share's rows are the same
    as the whole read's rows for those launches, and only the asked tables are filled."""
    from profiler.extract.ncu_reader import open_report
    from profiler.extract.rows import read_rows

    fixture = next((f for f in FIXTURES if "many" in f.report.name), min(FIXTURES, key=lambda f: f.report.stat().st_size))
    with open_report(fixture.report) as report:
        whole = read_rows(report, ["kernels", "rules"])
        n = len(whole.kernels)
        start = n // 2
        share = read_rows(report, ["kernels"], start=start, stop=n)
    assert n >= 1 and [k["launch"] for k in whole.kernels] == list(range(n))
    assert share.kernels == whole.kernels[start:]
    assert not share.rules and not share.sass["pc"] and not share.metrics["name"]
