"""Filling a diagnosis from the tables (profiler.analyze.fill): a record's shape, and the status of
a kernel over several bench rows (the worst wins; SKIP only when nothing else ran)."""

from __future__ import annotations

import math

import pytest

from profiler.analyze.fill import _status, shape_of


def test_shape_of_a_record():
    assert shape_of({"M": 512.0, "N": 256, "K": 128}) == (512, 256, 128)
    assert shape_of({"M": 512, "N": None, "K": 128}) is None and shape_of({"M": 1, "N": 1, "K": math.nan}) is None
    assert shape_of({}) is None


@pytest.mark.parametrize("statuses,status", [(["PASS", "FAIL", "PASS"], "FAIL"), (["SKIP", "ERROR"], "ERROR"),
                                             (["SKIP", "PASS"], "PASS"), (["SKIP", "SKIP"], "SKIP"),
                                             ([], None), (["CONTEXT"], None)])
def test_the_worst_status_wins(statuses, status):
    assert _status(statuses) == status
