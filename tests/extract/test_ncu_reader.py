"""Opening reports (profiler.extract.ncu_reader, `ncu` tier: ncu_report importable): a Report
counts and yields its launches, unpacks an .ncu-rep.xz into a temporary folder that closing
removes, names the file the user gave in every error, and refuses reads once closed. Only names
are read here, no metric values: test_tables.py's child-process test must see the units fresh."""

from __future__ import annotations

import pytest
from helpers.paths import DATA

from profiler.errors import GemmprofError
from profiler.extract.ncu_reader import open_report
from profiler.extract.report_file import prepare_file

XZ_REPORT = DATA / "profile-h200" / "naive_512x256x128.ncu-rep.xz"  # one launch of the naive rung
MANY = DATA / "many-h200" / "many_20launches.ncu-rep.xz"


@pytest.mark.ncu
def test_an_xz_report_opens_unpacked_and_closing_removes_the_copy():
    with open_report(XZ_REPORT) as report:
        assert report.name == str(XZ_REPORT)
        unpacked = report.local_path
        assert unpacked.is_file() and unpacked.name == "naive_512x256x128.ncu-rep" and unpacked != XZ_REPORT
        launches = list(report.launches())
        assert len(report) == len(launches) == 1
        assert launches[0].index == 0 and "naive" in launches[0].action.name()
    assert not unpacked.exists() and not unpacked.parent.exists()
    with pytest.raises(GemmprofError, match="report is closed"):
        len(report)


@pytest.mark.ncu
def test_launches_in_order_and_a_window_of_them():
    with open_report(MANY) as report:
        assert len(report) == 20
        assert [launch.index for launch in report.launches()] == list(range(20))
        assert [launch.index for launch in report.launches(5, 8)] == [5, 6, 7]
        assert list(report.launches(20)) == []


@pytest.mark.ncu
def test_a_prepared_copy_is_read_in_place_under_the_name_given(tmp_path):
    local = prepare_file(XZ_REPORT, tmp_path, "mine.ncu-rep.xz")
    with open_report(local, shown_as="mine.ncu-rep.xz", prepared=True) as report:
        assert report.name == "mine.ncu-rep.xz" and report.local_path == local and len(report) == 1
    assert local.is_file()  # the caller's copy: not this Report's to remove


@pytest.mark.ncu
def test_a_report_ncu_cannot_load_is_one_error_naming_what_the_user_gave(tmp_path):
    header_only = tmp_path / "header.ncu-rep"
    header_only.write_bytes(b"NVR\0" + b"\0" * 64)
    with pytest.raises(GemmprofError) as caught:
        open_report(header_only, shown_as="given.ncu-rep")
    assert str(caught.value).startswith("given.ncu-rep: ") and "\n" not in str(caught.value)
