"""Filling a run's extraction cache in the background (profiler.extract.prefetch): the server
`profile` starts before its first ncu run reads each report it is handed into the same cache
the foreground reads, and a report it cannot read leaves the foreground to say why."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

from helpers.ncu_fixtures import fixtures, no_fixtures_reason
from profiler.extract.background import ExtractServer
from profiler.extract.run import cache_dir_for, extract_report

FIXTURES = fixtures()
pytestmark = [pytest.mark.ncu, pytest.mark.skipif(not FIXTURES, reason=no_fixtures_reason())]


def test_the_server_fills_the_cache_of_each_report_it_is_handed(tmp_path):
    run = tmp_path / "run" / "ncu"
    run.mkdir(parents=True)
    reports = [shutil.copy(f.report, run / f.report.name) for f in FIXTURES[:2]]
    broken = run / "broken.ncu-rep"
    broken.write_bytes(b"not a report" * 10)
    server = ExtractServer()
    for report in [broken, *reports]:
        server.submit(report)
    assert server.wait() == 0
    assert not cache_dir_for(broken).exists()
    for report in reports:
        cached = {t: pd.read_parquet(p) for t, p in ((p.stem, p) for p in cache_dir_for(report).glob("*.parquet"))}
        fresh = extract_report(report, cache=None)
        assert set(cached) == set(fresh)
        pd.testing.assert_frame_equal(cached["kernels"], fresh["kernels"], check_dtype=False)


def test_a_server_handed_nothing_ends_when_its_input_closes():
    assert ExtractServer().wait() == 0


def test_the_server_answers_each_report_before_it_ends(tmp_path):
    """`reports_read()` returns once every report is read, whether or not the server has ended
    yet (its teardown overlaps the profile's last step), and reading the answers again is harmless."""
    run = tmp_path / "run" / "ncu"
    run.mkdir(parents=True)
    report = shutil.copy(FIXTURES[0].report, run / FIXTURES[0].report.name)
    broken = run / "broken.ncu-rep"
    broken.write_bytes(b"not a report")
    server = ExtractServer()
    server.submit(broken)
    server.submit(report)
    server.reports_read()
    assert server.unanswered == 0 and (cache_dir_for(report) / "kernels.parquet").is_file()
    server.reports_read()
    assert server.wait() == 0
