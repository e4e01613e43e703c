"""Checking and unpacking a report file before ncu_report sees it (profiler.extract.report_file):
a committed .ncu-rep.xz unpacks to a report; an empty, foreign, truncated or too large file is one
GemmprofError naming the file, and leaves no partial copy behind. No ncu_report needed."""

from __future__ import annotations

import lzma

import pytest
from helpers.paths import DATA

from profiler.errors import GemmprofError
from profiler.extract import report_file
from profiler.extract.report_file import MAX_UNPACKED_ENV, REPORT_MAGIC, max_unpacked_bytes, prepare_file

XZ_REPORT = DATA / "profile-h200" / "naive_512x256x128.ncu-rep.xz"


def error_of(path, folder) -> str:
    with pytest.raises(GemmprofError) as caught:
        prepare_file(path, folder, "shown.ncu-rep")
    return str(caught.value)


def test_an_xz_report_from_the_fixtures_unpacks_into_the_folder(tmp_path):
    local = prepare_file(XZ_REPORT, tmp_path, XZ_REPORT.name)
    assert local == tmp_path / "naive_512x256x128.ncu-rep"
    assert local.read_bytes() == lzma.decompress(XZ_REPORT.read_bytes())
    assert local.read_bytes().startswith(REPORT_MAGIC)


def test_a_plain_report_is_read_where_it_is(tmp_path):
    plain = tmp_path / "r.ncu-rep"
    plain.write_bytes(REPORT_MAGIC + b"\0" * 16)
    unpacked = tmp_path / "unpacked"
    unpacked.mkdir()
    assert prepare_file(plain, unpacked, "r.ncu-rep") == plain
    assert list(unpacked.iterdir()) == []


@pytest.mark.parametrize("name, content, message", [
    ("empty.ncu-rep", b"", "the file is empty"),
    ("text.ncu-rep", b"hello, not a report", "no 'NVR' header"),
    ("fake.ncu-rep.xz", b"NVR\0 but named .xz", "not an xz file"),
    ("foreign.ncu-rep.xz", lzma.compress(b"PK\3\4 a zip inside"), "no 'NVR' header"),
])
def test_files_that_are_no_report_are_one_error_naming_them(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    out = tmp_path / "out"
    out.mkdir()
    text = error_of(path, out)
    assert text.startswith("shown.ncu-rep: ") and message in text
    assert list(out.iterdir()) == []  # no half-unpacked copy left


def test_missing_file_and_folder(tmp_path):
    assert "no such file" in error_of(tmp_path / "missing.ncu-rep", tmp_path)
    assert "is a folder" in error_of(tmp_path, tmp_path)


def test_a_truncated_xz_is_corrupt_and_leaves_nothing(tmp_path):
    cut = tmp_path / "cut.ncu-rep.xz"
    cut.write_bytes(XZ_REPORT.read_bytes()[: XZ_REPORT.stat().st_size // 2])
    out = tmp_path / "out"
    out.mkdir()
    assert "corrupt or truncated xz file" in error_of(cut, out)
    assert list(out.iterdir()) == []


def test_unpacking_stops_at_the_limit(tmp_path, monkeypatch):
    big = tmp_path / "big.ncu-rep.xz"
    big.write_bytes(lzma.compress(REPORT_MAGIC + b"\0" * (3 << 20)))
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setenv(MAX_UNPACKED_ENV, str(2 << 20))
    assert "unpacks to more than 2,097,152 bytes" in error_of(big, out)
    assert list(out.iterdir()) == []
    monkeypatch.setenv(MAX_UNPACKED_ENV, str(4 << 20))
    assert prepare_file(big, out, "big").stat().st_size == len(REPORT_MAGIC) + (3 << 20)


def test_the_limit_from_the_environment(monkeypatch):
    monkeypatch.delenv(MAX_UNPACKED_ENV, raising=False)
    assert max_unpacked_bytes() == report_file.MAX_UNPACKED_BYTES
    monkeypatch.setenv(MAX_UNPACKED_ENV, "1000")
    assert max_unpacked_bytes() == 1000
    monkeypatch.setenv(MAX_UNPACKED_ENV, "lots")
    with pytest.raises(GemmprofError, match="is not a number of bytes"):
        max_unpacked_bytes()
