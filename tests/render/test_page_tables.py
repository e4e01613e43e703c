"""Table cells of the pages (profiler.render.page_tables): numbers right-aligned, a missing status
shown as n/a with what it rests on, a table without rows is false (so pages leave it out)."""

from __future__ import annotations

import math

from profiler.render.page_tables import Cell, Table, is_missing, num_cell, status_cell


def test_cells():
    assert num_cell("1.5") == Cell("1.5", "num")
    assert status_cell(None, note="no bench") == Cell("n/a", "status", note="no bench")
    assert status_cell("PASS").text == "PASS"


def test_missing_values_and_empty_tables():
    assert is_missing(None) and is_missing(math.nan) and not is_missing(0.0) and not is_missing("")
    assert not Table(["a"]) and Table(["a"], [[Cell("x")]])
