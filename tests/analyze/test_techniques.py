"""Techniques read from the SASS (profiler.analyze.techniques), on the sample run: the rungs that
introduce a technique show it, the naive kernel shows none of the staged ones, and a table
without SASS gives an empty frame with the same columns."""

from __future__ import annotations

import pandas as pd
import pytest

from helpers.paths import SAMPLE_RUN
from profiler.analyze.techniques import LABELS, TECHNIQUES, techniques, uses


@pytest.fixture(scope="module")
def by_kernel():
    sass = pd.read_parquet(SAMPLE_RUN / "sass.parquet")
    kernels = pd.read_parquet(SAMPLE_RUN / "kernels.parquet")[["report", "launch", "kernel_key"]]
    found = techniques(sass).merge(kernels, on=["report", "launch"])
    return {row["kernel_key"]: row for row in found.to_dict("records")}


def test_rungs_show_the_technique_they_introduce(by_kernel):
    assert by_kernel["smem"]["shared_tiling"] and not by_kernel["naive"]["shared_tiling"]
    assert by_kernel["vectorized"]["vector_global_loads"] and not by_kernel["smem"]["vector_global_loads"]
    assert by_kernel["cpasync"]["cp_async"] and not by_kernel["doublebuffer"]["cp_async"]
    assert by_kernel["wgmma"]["wgmma"] and not by_kernel["naive"]["wgmma"]
    assert by_kernel["naive"]["already_uses"] == [LABELS[k] for k, _ in TECHNIQUES if by_kernel["naive"][k]]


def test_no_sass_no_rows_and_uses_is_false_when_unknown():
    empty = techniques(pd.DataFrame())
    assert empty.empty and list(empty.columns)[:2] == ["report", "launch"] and "already_uses" in empty.columns
    assert techniques(None).empty
    assert uses({"cp_async": True}, "cp_async") and not uses(None, "cp_async") and not uses({}, "tma")
