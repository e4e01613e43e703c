"""The bench workflow (profiler.workflows.bench) called as a library, the GPU parts replaced
(`helpers.bench_fakes`): the run it writes, the result it returns, the words it says."""

import json

import pandas as pd
import pytest

from helpers import bench_fakes
from profiler.catalogue.dispatchers import load_dispatchers
from profiler.catalogue.manifest import select_kernels
from profiler.errors import GemmprofError
from profiler.workflows.bench import BenchOptions, bench, merged_suite, union, yardsticks
from profiler.workflows.progress import Quiet


class Lines(Quiet):
    """A Progress that keeps what it is told to say."""

    def __init__(self):
        self.said: list[str] = []

    def say(self, text, **style):
        self.said.append(text)


def test_bench_returns_its_run_and_rows(tmp_path, monkeypatch):
    bench_fakes.patch(monkeypatch.setattr)
    lines = Lines()
    result = bench(BenchOptions(kernel=["naive"], sizes="64,128", out=tmp_path, run_id="r"), lines)
    assert result.complete and result.failures == 0 and result.run.path == tmp_path / "r"
    assert sorted(set(result.table["kernel"])) == ["cublas", "naive"] and len(result.table) == 4
    assert (tmp_path / "r" / "bench.parquet").is_file() and len((tmp_path / "r" / "bench.jsonl").read_text().splitlines()) == 4
    assert json.loads((tmp_path / "r" / "run.json").read_text())["complete"] is True
    assert lines.said[0].startswith("[bold]NVIDIA H200 (fake)[/] (sm_90, 132 SMs")
    assert lines.said[-1].startswith("4 results, 0 FAIL/ERROR; tables in")


class Counted(Quiet):
    """A Progress whose bar keeps its total and counts its steps."""

    def __init__(self):
        self.total, self.steps = None, 0

    def bar(self, description, total, spinner=False):
        self.total = total
        return super().bar(description, total, spinner)

    def advance(self, description=None):
        self.steps += 1


def test_the_bar_counts_every_cublas_row_of_every_tier(tmp_path, monkeypatch):
    """A bench over two tiers times each tier's cuBLAS reference and its context rows (cuBLAS
    FAST_TF32 beside strict SGEMM for fp32-tc): the bar's total counts them, so it ends full."""
    bench_fakes.patch(monkeypatch.setattr)
    counted = Counted()
    result = bench(BenchOptions(kernel=["naive", "tf32x3bits"], sizes="64,128", out=tmp_path, run_id="r"), counted)
    assert counted.steps == len(result.table) == counted.total > 2 * 3


def test_bad_options_are_one_line_before_any_gpu_work(tmp_path):
    with pytest.raises(GemmprofError, match="--suite names its own shapes"):
        bench(BenchOptions(kernel=["naive"], suite="quick", sizes="64", out=tmp_path), Quiet())
    with pytest.raises(GemmprofError, match="--max-seconds must be positive"):
        bench(BenchOptions(kernel=["naive"], max_seconds=0, out=tmp_path), Quiet())


def test_the_header_names_each_benched_tiers_cublas():
    """An FP16 bench is against GemmEx, not strict SGEMM: the header line says which cuBLAS call
    each benched tier is timed against."""
    fp16 = next(d for d in load_dispatchers() if d.name == "best-fp16")
    assert yardsticks([], [fp16]) == "cuBLAS fp16: GemmEx, FP16 in, FP32 accumulate"
    both = yardsticks(select_kernels(["naive", "tf32x3bits"]), [])
    assert both == "cuBLAS fp32: SGEMM, strict FP32 (no TF32); fp32-tc: SGEMM, strict FP32 (no TF32)"


def test_a_suite_benched_into_a_run_of_another_joins_it(tmp_path, monkeypatch):
    """Two suites benched into one run (a sweep of the sample, then of the default suite): the
    run's suite is both, every shape once, and its summary covers them all, not the last suite's."""
    from profiler.catalogue.suites import load_suite

    bench_fakes.patch(monkeypatch.setattr)
    for suite in ("quick", "small"):
        bench(BenchOptions(kernel=["naive"], suite=suite, out=tmp_path, run_id="r", cublas=False), Quiet())
    meta = json.loads((tmp_path / "r" / "run.json").read_text())["suite"]
    both = union([tuple(s) for s in load_suite("quick")], [tuple(s) for s in load_suite("small")])
    assert meta["name"] == "quick+small" and [tuple(s) for s in meta["shapes"]] == both
    summary = pd.read_parquet(tmp_path / "r" / "suite.parquet")
    assert summary.loc[summary["kernel"] == "naive", "shapes"].iloc[0] == len(both)


def test_merged_suite_of_a_run_without_one_or_of_the_same_suite():
    assert merged_suite(None, "quick", [(1, 2, 3)]) == ("quick", [(1, 2, 3)])
    assert merged_suite({"name": "quick", "shapes": [[4, 5, 6]]}, "quick", [(1, 2, 3)]) == ("quick", [(1, 2, 3)])
    name, shapes = merged_suite({"name": "a+b", "shapes": [[1, 2, 3], "junk"]}, "b", [(4, 5, 6)])
    assert name == "a+b" and shapes == [(1, 2, 3), (4, 5, 6)]


def test_union_keeps_the_earlier_order_once():
    assert union([[64, 64, 64], "a"], ["b", "a", [64, 64, 64]]) == [[64, 64, 64], "a", "b"]
    assert union(None, [1, 1]) == [1]


def test_bench_table_is_titled_by_its_tier():
    """An FP16 bench is not called an SGEMM ladder; a run of several tiers gets a title for all."""
    from profiler.workflows.bench import _title

    assert _title(pd.DataFrame({"tier": ["fp16", "fp16"]})) == "the tensor-core ladder against cuBLAS (FP16 GemmEx, FP32 accumulate)"
    assert "SGEMM" in _title(pd.DataFrame({"tier": ["fp32"]}))
    assert _title(pd.DataFrame({"tier": ["fp32", "fp16"]})) == "the kernels against their tier's cuBLAS"


def test_a_dispatcher_naming_a_dispatcher_has_every_kernel_it_can_reach_built(tmp_path, monkeypatch):
    """`bench -k best-tc` builds tf32x3bits and the strict kernels `best`'s rules choose, which
    best-tc reaches through its rule naming `best`."""
    import profiler.measure.build as build

    bench_fakes.patch(monkeypatch.setattr)
    built = []
    faked = build.build_all
    monkeypatch.setattr(build, "build_all", lambda specs, arch, **kw: built.extend(s.name for s in specs) or faked(specs, arch, **kw))
    bench(BenchOptions(kernel=["best-tc"], sizes="1024", out=tmp_path, run_id="r"), Lines())
    best = next(d for d in load_dispatchers() if d.name == "best")
    assert "tf32x3bits" in built and set(best.kernel_names()) <= set(built)
