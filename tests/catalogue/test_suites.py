"""Shape suites: the committed file's suites, and one-line errors for a bad suites file."""

import pytest
from typer.testing import CliRunner

from profiler.cli import app
from profiler.errors import GemmprofError
from profiler.catalogue.suites import load_suite, parse_suites

ISSUE_SQUARES = [256, 512, 768, 1000, 1023, 1024, 1536, 2048, 2500, 3000, 4095, 4096, 5000, 6000, 7168, 8192]


def test_default_suite_covers_the_issues_shape_families_at_a_benchable_size():
    shapes = load_suite("default")
    assert 30 <= len(shapes) <= 40
    squares = {m for m, n, k in shapes if m == n == k}
    assert set(ISSUE_SQUARES) <= squares
    assert any(k in (4096, 11008, 14336) and m >= 512 and m != n for m, n, k in shapes)  # projections
    assert any(m >= 16 * n for m, n, k in shapes)  # tall-skinny
    assert any(k <= 512 and m >= 2048 for m, n, k in shapes)  # K-small
    assert any(k >= 8192 and m <= 1024 and n <= 1024 for m, n, k in shapes)  # K-large
    assert len(set(shapes)) == len(shapes)


def test_quick_suite_is_a_small_subset_of_the_default():
    quick = load_suite("quick")
    assert len(quick) <= 8 and set(quick) <= set(load_suite("default"))


def test_small_suite_is_the_defaults_small_squares_k_large_and_tall_skinny_shapes():
    small, default = load_suite("small"), load_suite("default")
    assert set(small) <= set(default) and len(small) == 16
    assert {m for m, n, k in small if m == n == k} == {256, 512, 768, 1000, 1023, 1024, 1536}
    assert {(m, n, k) for m, n, k in default if k >= 8192 and m <= 1024 and n <= 1024} <= set(small)  # every K-large shape
    assert {(m, n, k) for m, n, k in default if max(m, n) >= 16 * min(m, n)} <= set(small)  # every tall-skinny shape


@pytest.mark.parametrize("text,fragment", [
    ("[suite.a]\nshapes = ['1x2']", "is not MxNxK"),
    ("[suite.a]\nshapes = ['1x2x2147483648']", "outside"),
    ("[suite.a]\nshapes = []", "non-empty list"),
    ("shapes = 1", r"no \[suite"),
    ("[suite.a\n", "not valid TOML"),
])
def test_bad_suites_are_one_clear_error(text, fragment):
    with pytest.raises(GemmprofError, match=fragment):
        parse_suites(text)


def test_parse_keeps_order_and_drops_repeats():
    assert parse_suites("[suite.a]\nshapes = ['3x2x1', '1x1x1', '3x2x1']") == {"a": [(3, 2, 1), (1, 1, 1)]}


def test_unknown_suite_names_the_choices():
    with pytest.raises(GemmprofError) as err:
        load_suite("nope")
    assert "default" in err.value.hint


@pytest.mark.parametrize("args", [["--suite", "quick", "--sizes", "512"], ["--suite", "quick", "--mnk", "1", "2", "3"],
                                  ["--suite", "nope"], ["--tier", "fp64"]])
def test_bench_refuses_bad_suite_and_tier_options_before_any_gpu_work(args):
    result = CliRunner().invoke(app, ["bench", *args])
    assert isinstance(result.exception, GemmprofError), result.output


def test_bench_suite_writes_its_summary_to_the_run(tmp_path, monkeypatch):
    import json

    import pandas as pd
    from helpers.bench_fakes import patch

    patch(monkeypatch.setattr)
    result = CliRunner().invoke(app, ["bench", "--suite", "quick", "--tier", "fp32", "-k", "naive", "-k", "wmma", "-k", "smem",
                                      "--out", str(tmp_path), "--run-id", "r"])
    assert result.exit_code == 0, result.output
    summary = pd.read_csv(tmp_path / "r" / "suite.csv")
    assert sorted(summary["kernel"]) == ["naive", "smem"]  # wmma is fp16: --tier fp32 leaves it out
    assert list(summary["passed"]) == [6, 6] and list(summary["geomean_pct_cublas"]) == pytest.approx([50.0, 50.0])
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert meta["suite"]["name"] == "quick" and len(meta["suite"]["shapes"]) == 6
    assert "suite quick" in result.output and "geomean" in result.output
