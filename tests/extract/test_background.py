"""Starting the background readers (profiler.extract.background): the client side of a profile's
reader server never raises into the profile: a server that died takes no report and says so by its
exit code, and the foreground reads what the background did not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from profiler.extract import background
from profiler.extract.background import ExtractServer, ReportReader


def test_a_server_that_died_is_handed_reports_without_an_error(tmp_path):
    server = ExtractServer()
    server.process.kill()
    server.process.wait()
    for i in range(3):  # a pipe with no reader: the write fails, the profile goes on
        server.submit(tmp_path / f"{i}.ncu-rep")
    assert server.wait() != 0


def test_the_server_is_the_prefetch_module_serving_its_input(monkeypatch):
    started = []

    class Popen:
        def __init__(self, argv, **kwargs):
            started.append((argv, kwargs))

    monkeypatch.setattr(background.subprocess, "Popen", Popen)
    ExtractServer()
    ReportReader(Path("r.ncu-rep"))
    (serve, options), (one, _) = started
    assert serve == [sys.executable, "-m", "profiler.extract.prefetch", "--serve"] and options["stdin"] == subprocess.PIPE
    assert one == [sys.executable, "-m", "profiler.extract.prefetch", "r.ncu-rep"]
    assert "PYTHONPATH" in options["env"]  # this checkout first: the child runs the same code


def test_a_report_that_cannot_be_read_ends_its_reader_with_an_error(tmp_path):
    broken = tmp_path / "run" / "ncu" / "broken.ncu-rep"
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"not a report")
    assert ReportReader(broken).wait() != 0


def test_a_server_that_died_answers_nothing_and_is_not_waited_for_forever(tmp_path):
    server = ExtractServer()
    server.submit(tmp_path / "a.ncu-rep")
    server.process.kill()
    server.reports_read()  # the answer never comes: end of output, not a hang
    assert server.wait() != 0
