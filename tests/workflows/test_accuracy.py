"""The accuracy workflow (profiler.workflows.accuracy) called as a library: the committed run of
the planted probes graded against the causes their manifest plants; nothing to grade is one line."""

import pytest

from helpers.paths import DATA
from profiler.errors import GemmprofError
from profiler.workflows.accuracy import AccuracyOptions, accuracy


@pytest.mark.ncu
def test_every_probe_is_graded_and_counted():
    result = accuracy(AccuracyOptions(probes=[DATA / "probes-h100"]))
    assert result.grades and all(g.name.startswith("probe-") for g in result.grades)
    assert sum(result.counts.values()) == len(result.grades) and result.counts["right"] > 0


def test_nothing_to_grade_is_one_line():
    with pytest.raises(GemmprofError, match="nothing to grade"):
        accuracy(AccuracyOptions())
