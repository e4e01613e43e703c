"""`gemmprof accuracy` end to end: a truth table over a copy of a committed foreign run, graded
and counted; a broken table or a missing run is one line."""

from __future__ import annotations

import shutil

import pytest
from typer.testing import CliRunner

from helpers.paths import DATA
from profiler.cli import app
from profiler.errors import GemmprofError

TABLE = """
[case.naive]
run = "cuda"
range = "corpus/naive/"
causes = ["uncoalesced_load"]
must = ["coalesc"]

[case.smem_as_global]
run = "cuda"
range = "corpus/smem/"
causes = ["global_traffic"]
"""


@pytest.mark.ncu
def test_grades_and_counts(tmp_path):
    shutil.copytree(DATA / "foreign-h200" / "cuda", tmp_path / "cuda")
    (tmp_path / "truth.toml").write_text(TABLE)
    result = CliRunner().invoke(app, ["accuracy", str(tmp_path / "truth.toml")], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(l.split()[:4] == ["naive", "│", "right", "│"] for l in lines)
    assert any(l.split()[:4] == ["smem_as_global", "│", "wrong", "│"] for l in lines)
    assert lines[-1] == "2 verdicts: 1 right (50%), 0 partly, 1 wrong"


def test_a_truth_table_that_cannot_be_read_is_one_line(tmp_path):
    (tmp_path / "truth.toml").write_text("[case.x]\nrun = 'r'\n")
    result = CliRunner().invoke(app, ["accuracy", str(tmp_path / "truth.toml")])
    assert isinstance(result.exception, GemmprofError) and "needs a non-empty list of cause keys" in str(result.exception)
    result = CliRunner().invoke(app, ["accuracy", str(tmp_path / "none.toml")])
    assert isinstance(result.exception, GemmprofError) and "none.toml: no such file" in str(result.exception)
