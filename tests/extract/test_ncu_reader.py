"""Finding and opening ncu_report (profiler.extract.ncu_reader): the copy bundled with ncu is found, and the accessor table matches ncu_report's methods."""

from __future__ import annotations

import math

import pytest

from helpers.ncu_fixtures import fixtures, no_fixtures_reason
from profiler.errors import GemmprofError

FIXTURES = fixtures()


def test_bundled_ncu_report_is_found(tmp_path, monkeypatch):
    """GEMMPROF_NCU (or PATH) leads to <install>/extras/python/ncu_report.py through symlinks."""
    from profiler.extract import ncu_reader

    install = tmp_path / "opt" / "nsight-compute" / "2025.3.1"
    (install / "extras" / "python").mkdir(parents=True)
    (install / "extras" / "python" / "ncu_report.py").write_text("")
    (install / "ncu").write_text("#!/bin/sh\n")
    (install / "ncu").chmod(0o755)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "ncu").symlink_to(install / "ncu")
    monkeypatch.setattr(ncu_reader, "NCU_INSTALL_GLOB", str(tmp_path / "none" / "*"))
    expected = (install / "extras" / "python").resolve()
    assert ncu_reader.candidate_dirs({"GEMMPROF_NCU": str(bin_dir / "ncu"), "PATH": ""}) == [expected]
    assert ncu_reader.candidate_dirs({"PATH": str(bin_dir)}) == [expected]
    assert ncu_reader.candidate_dirs({"GEMMPROF_NCU": str(install), "PATH": ""}) == [expected]
    assert ncu_reader.candidate_dirs({"PATH": ""}) == []
    monkeypatch.setattr(ncu_reader, "NCU_INSTALL_GLOB", str(tmp_path / "opt" / "nsight-compute" / "*" / "extras" / "python"))
    assert ncu_reader.candidate_dirs({"PATH": ""}) == [expected]
    assert ncu_reader._bundled(str(expected / "ncu_report.py"))
    assert not ncu_reader._bundled("/usr/lib/python3/site-packages/ncu_report/__init__.py")


@pytest.mark.ncu
@pytest.mark.skipif(not FIXTURES, reason=no_fixtures_reason())
def test_accessors_match_the_methods():
    """The reader's fast path (the extension's own functions) reads what the methods read."""
    from profiler.extract.ncu_reader import accessors, open_report

    fixture = min(FIXTURES, key=lambda f: f.report.stat().st_size)
    access = accessors()
    try:
        report = open_report(fixture.report)
    except GemmprofError as exc:  # only the bundled ncu_report, loaded after numpy: no in-process reads
        pytest.skip(str(exc))
    with report:
        action = next(report.launches()).action
        for name in action.metric_names()[:300]:
            m, fast = action.metric_by_name(name), access.metric_by_name(action, name)
            assert access.kind(fast) == m.kind() and access.unit(fast) == m.unit(), name
            assert access.has_value(fast) == m.has_value(), name
            if m.kind() == m.ValueKind_STRING:
                assert access.as_string(fast) == m.as_string()
            elif m.has_value():
                same = access.as_double(fast) == m.as_double() or math.isnan(m.as_double())
                assert same and access.as_uint64(fast) == m.as_uint64(), name
