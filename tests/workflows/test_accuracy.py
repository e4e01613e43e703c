"""The accuracy workflow (profiler.workflows.accuracy) called as a library: a truth table over a
copy of a committed foreign run, graded and counted; nothing to grade is one line."""

import shutil

import pytest

from helpers.paths import DATA
from profiler.errors import GemmprofError
from profiler.workflows.accuracy import AccuracyOptions, accuracy

TABLE = """
[case.naive]
run = "cuda"
range = "corpus/naive/"
causes = ["uncoalesced_load"]
must = ["coalesc"]
"""


@pytest.mark.ncu
def test_grades_and_counts(tmp_path):
    shutil.copytree(DATA / "foreign-h200" / "cuda", tmp_path / "cuda")
    (tmp_path / "truth.toml").write_text(TABLE)
    result = accuracy(AccuracyOptions(truth=[tmp_path / "truth.toml"]))
    assert [(g.name, g.grade) for g in result.grades] == [("naive", "right")]
    assert result.counts == {"right": 1, "partly": 0, "wrong": 0}


def test_nothing_to_grade_is_one_line():
    with pytest.raises(GemmprofError, match="nothing to grade"):
        accuracy(AccuracyOptions())
