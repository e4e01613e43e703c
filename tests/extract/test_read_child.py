"""Reading in a child process (profiler.extract.read_child): the request/reply protocol, a count
without rows, rows of a window, a report problem coming back as the same one-line error, and no
request or reply file left behind."""

from __future__ import annotations

import os

import pytest

from helpers.ncu_fixtures import fixtures, no_fixtures_reason
from profiler.errors import GemmprofError
from profiler.extract.ncu_reader import prepare_file
from profiler.extract.read_child import Child

FIXTURES = fixtures()
pytestmark = [pytest.mark.ncu, pytest.mark.skipif(not FIXTURES, reason=no_fixtures_reason())]


def request(path, **changes):
    base = {"path": str(path), "tables": ["kernels"], "sass_text": False, "start": 0, "stop": None}
    return {**base, **changes}


def test_count_only_and_a_window_of_rows(tmp_path):
    fixture = min(FIXTURES, key=lambda f: f.report.stat().st_size).report
    report = prepare_file(fixture, tmp_path, fixture.name)  # the parent unpacks; the child reads
    counted = Child("shown.ncu-rep", **request(report, count_only=True))
    folder = counted.folder
    reply = counted.result()
    assert reply["rows"] is None and reply["count"] >= 1 and not os.path.exists(folder)
    rows = Child("shown.ncu-rep", **request(report, start=0, stop=1)).result()["rows"]
    assert rows.kernels and len(rows.kernels) == 1 and rows.kernels[0]["launch"] == 0


def test_a_report_problem_is_the_same_one_line_error_naming_what_the_user_gave(tmp_path):
    bad = tmp_path / "bad.ncu-rep"
    bad.write_bytes(b"not a report at all" * 100)
    child = Child("the/name/given.ncu-rep", **request(bad))
    with pytest.raises(GemmprofError, match="the/name/given.ncu-rep"):
        child.result()
    assert not os.path.exists(child.folder)


def test_a_worker_started_ahead_serves_the_next_request(tmp_path):
    """`prestart`: the worker imports the reader while the caller waits for ncu; the next Child
    hands it its request instead of starting a process, with the same reply."""
    from profiler.extract import read_child

    fixture = min(FIXTURES, key=lambda f: f.report.stat().st_size).report
    report = prepare_file(fixture, tmp_path, fixture.name)
    cold = Child("shown.ncu-rep", **request(report, start=0, stop=1)).result()["rows"]
    read_child.prestart()
    waiting = read_child._waiting
    warm = Child("shown.ncu-rep", **request(report, start=0, stop=1))
    assert warm.process is waiting and read_child._waiting is None
    assert warm.result()["rows"].kernels == cold.kernels


def test_a_worker_started_ahead_and_never_asked_exits_quietly():
    from profiler.extract import read_child

    read_child.prestart()
    waiting = read_child._take_waiting()
    waiting.stdin.close()  # the caller needed no worker after all
    assert waiting.wait(timeout=60) == 0
