"""Cells of the tables as numbers and flags (profiler.analyze.values): missing is NaN or no, and
numpy's own bools count as yes."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from profiler.analyze.values import flag, number, numeric_column


def test_numeric_column_coerces_and_fills_a_missing_column_with_nan():
    frame = pd.DataFrame({"a": ["1.5", "x", None]})
    assert numeric_column(frame, "a").tolist()[0] == 1.5 and numeric_column(frame, "a").isna().tolist() == [False, True, True]
    missing = numeric_column(frame, "b")
    assert missing.dtype == "float64" and missing.isna().all() and len(missing) == 3


def test_number_and_flag():
    assert number(3) == 3.0 and math.isnan(number(None)) and math.isnan(number(pd.NA)) and math.isnan(number(np.nan))
    assert flag(np.True_) and flag(1) and flag(True)
    assert not flag(np.False_) and not flag(None) and not flag(np.nan) and not flag(pd.NA) and not flag(0)
