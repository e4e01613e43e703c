"""Finding ncu_report (profiler.extract.ncu_import): the copy bundled with ncu is found through
GEMMPROF_NCU, PATH and symlinks."""

from __future__ import annotations


def test_bundled_ncu_report_is_found(tmp_path, monkeypatch):
    """GEMMPROF_NCU (or PATH) leads to <install>/extras/python/ncu_report.py through symlinks."""
    from profiler.extract import ncu_import

    install = tmp_path / "opt" / "nsight-compute" / "2025.3.1"
    (install / "extras" / "python").mkdir(parents=True)
    (install / "extras" / "python" / "ncu_report.py").write_text("")
    (install / "ncu").write_text("#!/bin/sh\n")
    (install / "ncu").chmod(0o755)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "ncu").symlink_to(install / "ncu")
    monkeypatch.setattr(ncu_import, "NCU_INSTALL_GLOB", str(tmp_path / "none" / "*"))
    expected = (install / "extras" / "python").resolve()
    assert ncu_import.candidate_dirs({"GEMMPROF_NCU": str(bin_dir / "ncu"), "PATH": ""}) == [expected]
    assert ncu_import.candidate_dirs({"PATH": str(bin_dir)}) == [expected]
    assert ncu_import.candidate_dirs({"GEMMPROF_NCU": str(install), "PATH": ""}) == [expected]
    assert ncu_import.candidate_dirs({"PATH": ""}) == []
    monkeypatch.setattr(ncu_import, "NCU_INSTALL_GLOB", str(tmp_path / "opt" / "nsight-compute" / "*" / "extras" / "python"))
    assert ncu_import.candidate_dirs({"PATH": ""}) == [expected]
    assert ncu_import._bundled(str(expected / "ncu_report.py"))
    assert not ncu_import._bundled("/usr/lib/python3/site-packages/ncu_report/__init__.py")
