"""The compare workflow (profiler.workflows.compare) called as a library: the sample run against
itself, a run slowed down, and the --threshold parser."""

import shutil

import pandas as pd
import pytest

from helpers.paths import SAMPLE_RUN
from profiler.errors import GemmprofError
from profiler.workflows.compare import CompareOptions, compare, parse_threshold


def test_a_run_against_itself_has_no_regression():
    result = compare(CompareOptions(SAMPLE_RUN, SAMPLE_RUN))
    assert result.regressions == 0 and result.threshold == pytest.approx(0.03) and result.gpus[0] == result.gpus[1]
    assert len(result.bench) and '"summary"' in result.as_json()


def test_a_slower_run_regresses(tmp_path):
    slower = tmp_path / "slower"
    shutil.copytree(SAMPLE_RUN, slower)
    bench = pd.read_parquet(slower / "bench.parquet")
    for column in ("median_ms", "p10_ms", "p90_ms"):
        bench[column] *= 2
    bench.to_parquet(slower / "bench.parquet")
    bench.to_csv(slower / "bench.csv", index=False)
    assert compare(CompareOptions(SAMPLE_RUN, slower)).regressions > 0


@pytest.mark.parametrize("text, value", [("3%", 0.03), ("3", 0.03), ("0.5 %", 0.005), ("0", 0.0)])
def test_parse_threshold(text, value):
    assert parse_threshold(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["-1%", "abc", "nan"])
def test_parse_threshold_rejects(text):
    with pytest.raises(GemmprofError):
        parse_threshold(text)
