"""Grading verdicts against a truth table (profiler.analyze.accuracy)."""

from __future__ import annotations

import pytest

from profiler.analyze.accuracy import PARTLY, RIGHT, WRONG, Truth, grade, parse_truth, probe_truths, tally
from profiler.errors import GemmprofError

TABLE = '''
[case.one_stage]
run = "triton"
range = "corpus/tt_one_stage/"
truth = """No software
pipelining."""
causes = ["no_pipelining"]
must = ["pipelin|stages"]
must_not = ["roof"]
'''


def test_a_truth_table_reads_into_cases():
    (t,) = parse_truth(TABLE)
    assert t == Truth(name="one_stage", causes=("no_pipelining",), run="triton", range="corpus/tt_one_stage/",
                      truth="No software pipelining.", must=("pipelin|stages",), must_not=("roof",))


@pytest.mark.parametrize("text, says", [
    ("[case.x]\nrun = 'r'", "needs a non-empty list of cause keys"),
    ("[case.x]\ncauses = ['a']\nmust = ['(']", "is not a regular expression"),
    ("[other]\nx = 1", r"no \[case\.NAME\] tables"),
    ("[case", "is not valid TOML"),
])
def test_a_broken_truth_table_is_one_line(text, says):
    with pytest.raises(GemmprofError, match=says):
        parse_truth(text)


TRUTH = Truth(name="x", causes=("no_pipelining",), must=("pipelin",), must_not=("roof",))


def test_grades():
    assert grade(TRUTH, "no_pipelining", (), "no software pipelining").grade == RIGHT
    assert grade(TRUTH, "no_pipelining", (), "loads not hidden").grade == PARTLY  # leads, a word missing
    assert grade(TRUTH, "sync_wgmma", ("no_pipelining",), "pipelining and the MMAs").grade == PARTLY  # ranked beside
    assert grade(TRUTH, "sync_wgmma", (), "pipelining").grade == WRONG
    assert grade(TRUTH, "no_pipelining", (), "pipelining, at the roof").grade == WRONG  # says what it must not
    assert grade(TRUTH, None).grade == WRONG


def test_probes_carry_their_truth_in_the_manifest():
    (t,) = probe_truths({"probe-tail": "tail"})
    assert (t.name, t.causes, t.range) == ("probe-tail", ("tail",), "")


def test_tally():
    grades = [grade(TRUTH, "no_pipelining", (), "pipelining"), grade(TRUTH, None)]
    assert tally(grades) == {RIGHT: 1, PARTLY: 0, WRONG: 1}
