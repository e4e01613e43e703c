"""Finding the tools (profiler.tools): ncu from --ncu, then $GEMMPROF_NCU, then PATH; a
tool's version read from its --version output."""

from __future__ import annotations

import pytest

from profiler import tools


def fake_tool(folder, name, output):
    exe = folder / name
    exe.write_text(f"#!/bin/sh\nprintf '%s\\n' '{output}'\n")
    exe.chmod(0o755)
    return exe


def test_explicit_ncu_wins_then_the_variable_then_path(tmp_path, monkeypatch):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    on_path = fake_tool(first, "ncu", "x")
    named = fake_tool(second, "ncu", "x")
    monkeypatch.setenv("PATH", str(first))
    monkeypatch.delenv(tools.NCU_ENV, raising=False)
    assert tools.find_ncu() == on_path
    monkeypatch.setenv(tools.NCU_ENV, str(named))
    assert tools.find_ncu() == named
    assert tools.find_ncu(str(on_path)) == on_path
    assert tools.find_ncu(str(tmp_path / "missing")) is None  # a named path that is not there: no guessing


@pytest.mark.parametrize("output,expected", [("NVIDIA (R) Nsight Compute Command Line Profiler\nVersion 2025.3.1.0 (build 1)", "2025.3.1.0"),
                                             ("something else\nlast line", "last line")])
def test_tool_version_reads_the_pattern_or_the_last_line(tmp_path, output, expected):
    exe = tmp_path / "tool"
    exe.write_text("#!/bin/sh\ncat <<'EOF'\n" + output + "\nEOF\n")
    exe.chmod(0o755)
    assert tools.ncu_version(exe) == expected


def test_no_tool_no_version(tmp_path):
    assert tools.tool_version(None, "x") is None
    assert tools.tool_version(tmp_path / "missing", "x") is None
