"""The extraction cache is keyed on the report's content (size + SHA-256), and a launch stored
twice (X.ncu-rep beside X.ncu-rep.xz) is read once."""

from __future__ import annotations

import os
import shutil

import pytest

from profiler.errors import GemmprofWarning
from profiler.extract.run import cache_dir_for, extract_report, fingerprint
from profiler.extract.tables import find_reports
from helpers.paths import DATA

pytestmark = pytest.mark.ncu

FIXTURES = DATA / "profile-h200"


def test_a_report_replaced_by_an_older_file_is_read_again(tmp_path):
    report = tmp_path / "run" / "ncu" / "x_512x256x128.ncu-rep.xz"
    report.parent.mkdir(parents=True)
    shutil.copy(FIXTURES / "naive_512x256x128.ncu-rep.xz", report)
    first = extract_report(report, ("kernels",))["kernels"]
    assert first["kernel_key"].tolist() == ["naive"]
    assert (cache_dir_for(report) / "done").read_text().split()[:2] == fingerprint(report).split()
    shutil.copy(FIXTURES / "smem_512x256x128.ncu-rep.xz", report)
    old = (cache_dir_for(report) / "done").stat().st_mtime_ns - 10**10  # older than the cache
    os.utime(report, ns=(old, old))
    again = extract_report(report, ("kernels",))["kernels"]
    assert again["kernel_key"].tolist() == ["smem"]


def test_an_unchanged_report_is_served_from_the_cache(tmp_path):
    report = tmp_path / "run" / "ncu" / "naive_512x256x128.ncu-rep.xz"
    report.parent.mkdir(parents=True)
    shutil.copy(FIXTURES / "naive_512x256x128.ncu-rep.xz", report)
    extract_report(report, ("kernels",))
    cached = cache_dir_for(report) / "kernels.parquet"
    stamp = cached.stat().st_mtime_ns
    assert extract_report(report, ("kernels",))["kernels"]["kernel_key"].tolist() == ["naive"]
    assert cached.stat().st_mtime_ns == stamp  # not rewritten


def test_twin_reports_are_read_once_with_a_warning(tmp_path):
    import lzma

    folder = tmp_path / "ncu"
    folder.mkdir()
    packed = folder / "naive_512x256x128.ncu-rep.xz"
    shutil.copy(FIXTURES / packed.name, packed)
    plain = folder / "naive_512x256x128.ncu-rep"
    plain.write_bytes(lzma.decompress(packed.read_bytes()))
    os.utime(packed, ns=(plain.stat().st_mtime_ns + 10**9,) * 2)
    shutil.copy(FIXTURES / "smem_512x256x128.ncu-rep.xz", folder)
    with pytest.warns(GemmprofWarning, match="hold the same launch; reading naive_512x256x128.ncu-rep.xz"):
        found = find_reports([folder])
    assert [p.name for p in found] == ["naive_512x256x128.ncu-rep.xz", "smem_512x256x128.ncu-rep.xz"]
