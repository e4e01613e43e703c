"""diagnosis.py: a whole run -> per-kernel diagnoses (the real sample run, and odd runs)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from helpers.paths import SAMPLE_RUN

from profiler.analyze.diagnosis import diagnose_run
from profiler.catalogue.manifest import load_manifest

SAMPLE = SAMPLE_RUN
TABLES = ("kernels", "rules", "source", "sass", "bench")


@pytest.fixture(scope="module")
def tables():
    if not (SAMPLE / "sass.parquet").is_file():
        pytest.skip("sample run not present")
    return {name: pd.read_parquet(SAMPLE / f"{name}.parquet") for name in TABLES}


@pytest.fixture(scope="module")
def run(tables):
    return diagnose_run(tables, load_manifest(), json.loads((SAMPLE / "run.json").read_text()))


def test_every_kernel_in_ladder_order(run, tables):
    index = {s.name: s.index for s in load_manifest()}
    profiled = set(tables["kernels"]["kernel_key"]) - {"cublas", "cublas-fp16"}
    assert [d.name for d in run.kernels] == sorted(profiled, key=index.get) + ["cublas", "cublas-fp16"]
    assert run.shape == (2048, 2048, 2048) and not run.warnings
    assert all(d.profiled and d.verdict and d.status == "PASS" for d in run.kernels)


def test_neighbours(run):
    assert run.kernel("naive").predecessor is None and run.kernel("naive").successor == "coalesced"
    assert run.kernel("spread128x256x8").successor == "cublas"  # the top FP32 rung
    assert run.kernel("cublas").predecessor == "spread128x256x8" and run.kernel("cublas").successor is None
    # each tier has its own reference: the FP16 rungs lead to GemmEx, not to SGEMM
    assert run.kernel("wgmma").successor == "cublas-fp16" and run.kernel("cublas-fp16").predecessor == "wgmma"
    assert run.kernel("wmma").predecessor is None
    assert run.kernel("naive").successor_idea.startswith("consecutive threads take consecutive columns")


def test_numbers_come_from_the_bench_at_the_profile_shape(run, tables):
    bench = tables["bench"]
    row = bench[(bench["kernel"] == "vectorized") & (bench["M"] == 2048)].iloc[0]
    d = run.kernel("vectorized")
    assert d.gflops == row["gflops"] and d.pct_cublas == row["pct_of_cublas"] and d.gflops_source == "bench"
    assert run.kernel("cublas").pct_cublas == 100.0
    wgmma = bench[(bench["kernel"] == "wgmma") & (bench["M"] == 2048)].iloc[0]
    assert run.kernel("wgmma").pct_cublas == wgmma["pct_of_cublas"] < 100  # against GemmEx, not SGEMM
    summary = run.summary.set_index("kernel")
    assert summary.loc["naive", "bound"] == "global" and summary.loc["cublas", "bound"] == "fp32"


def test_what_changed_from_the_predecessor(run):
    changes = run.kernel("vectorized").changes.set_index("quantity")
    assert changes.loc["load_conflicts", "change"] == "2-way -> none"
    assert changes.loc["gflops", "change"].startswith("x1.27")
    assert run.kernel("blocktile2d").changes.set_index("quantity").loc["load_conflicts", "change"] == "none -> 2-way"
    coalesced = run.kernel("coalesced").changes.set_index("quantity")
    assert coalesced.loc["l1_bytes", "change"].startswith("x0.15")  # 283.7 GB -> 43.0 GB
    assert run.kernel("naive").changes.empty


def test_sections_hold_the_real_numbers(run):
    b2d = run.kernel("blocktile2d")
    assert list(b2d.conflict_lines["line"]) == [62] and b2d.conflict_lines["n_way"].iloc[0] == 2.0
    naive = run.kernel("naive")
    assert naive.hot_lines["line"].iloc[0] == 24 and naive.hot_lines["share_pct"].iloc[0] == pytest.approx(98.8, abs=0.1)
    assert naive.source_file == "01_naive.cu" and naive.hot_lines["reasons"].iloc[0][0][0] == "lg_throttle"
    speedups = naive.rules["estimated_speedup_pct"].dropna().tolist()
    assert speedups == sorted(speedups, reverse=True) and speedups[0] == pytest.approx(96.9, abs=0.1)
    assert run.kernel("warptile").occupancy["limiter"] == "registers"
    assert run.kernel("cublas").hot_lines.empty
    assert not run.kernel("cublas").warnings  # cuBLAS never has line information: not a warning


def test_inputs_are_not_mutated(tables):
    before = {name: frame.copy() for name, frame in tables.items()}
    diagnose_run(tables, load_manifest())
    for name, frame in tables.items():
        pd.testing.assert_frame_equal(frame, before[name])


def test_bench_only_run_has_no_verdicts_and_says_so(tables):
    run = diagnose_run({"bench": tables["bench"]}, load_manifest())
    assert run.warnings and "no profiled kernels" in run.warnings[0]
    assert {d.name for d in run.kernels} == set(tables["bench"]["kernel"])
    assert all(d.verdict is None and not d.profiled for d in run.kernels)
    assert run.shape == (4096, 4096, 4096)  # the largest shape benchmarked
    bench = tables["bench"]
    warptile_4096 = bench[(bench["kernel"] == "warptile") & (bench["M"] == 4096)]["gflops"].iloc[0]
    assert run.kernel("warptile").gflops == warptile_4096


def test_a_failure_anywhere_marks_the_kernel(tables):
    bench = tables["bench"].copy()
    bench.loc[(bench["kernel"] == "smem") & (bench["M"] == 512), "status"] = "FAIL"
    run = diagnose_run({"bench": bench}, load_manifest())
    smem = run.kernel("smem")
    assert smem.status == "FAIL" and smem.status_note == "FAIL at 512x512x512"


def test_an_empty_profile_is_a_warning_not_an_error(tables):
    run = diagnose_run({"kernels": tables["kernels"].iloc[0:0]}, load_manifest())
    assert run.kernels == [] and len(run.warnings) == 2


def test_a_kernel_failing_at_the_profile_shape_shows_no_throughput(tables):
    bench = tables["bench"].copy()
    bench.loc[(bench["kernel"] == "blocktile1d") & (bench["M"] == 2048), "status"] = "FAIL"
    run = diagnose_run({**tables, "bench": bench}, load_manifest())
    d = run.kernel("blocktile1d")
    assert d.status == "FAIL" and d.verdict is not None  # still diagnosed: the counters may explain it
    assert pd.isna(d.gflops) and d.gflops_source == "untimed"  # never the profiler's number instead
    assert "gflops" not in set(run.kernel("blocktile2d").changes["quantity"])


# --- tests/data/tf32-h100: the fp32-tc rungs profiled without a benchmark -------------------------


@pytest.mark.ncu
def test_tf32_rate_is_the_gemms_and_the_executed_rate_apart():
    from helpers.ncu_fixtures import tf32_diagnosis

    run = tf32_diagnosis()
    wg, x3, x1 = (run.kernel(n) for n in ("tf32x3wg", "tf32x3", "tf32x1"))
    gemm = 2.0 * 4096**3
    for d in (wg, x3):
        assert d.gflops_source == "ncu"
        assert d.gflops == pytest.approx(gemm / d.launch["duration_ns"])  # 2MNK / time, in GFLOP/s
        assert d.executed_per_gemm_flop == pytest.approx(3.0, rel=0.01)  # 3xTF32: three MMAs per product
        assert d.executed_gflops == pytest.approx(3 * d.gflops, rel=0.01)
    assert 75_000 < wg.gflops < 90_000  # bench measured ~82 TFLOP/s at 4096^3 on the H100
    assert x1.executed_per_gemm_flop == pytest.approx(1.0, rel=0.01)
    # the ladder delta and the index read the same rate
    change = wg.changes[wg.changes["quantity"] == "gflops"].iloc[0]
    assert change["after"] == pytest.approx(wg.gflops) and change["before"] == pytest.approx(x3.gflops)
    assert run.summary.set_index("kernel").loc["tf32x3wg", "gflops"] == pytest.approx(wg.gflops)


@pytest.mark.ncu
def test_tf32_tensor_share_is_of_the_tf32_peak():
    from helpers.ncu_fixtures import tf32_diagnosis

    wg = tf32_diagnosis().kernel("tf32x3wg")
    assert wg.utilisation["tensor_input"] == "TF32"
    k = wg.launch
    assert wg.utilisation["tensor"] == pytest.approx(100 * k["tensor_flop"] / (k["duration_ns"] * 1e-9)
                                                     / k["peak_tensor_tf32_flops"])
    assert "FP16" not in (wg.verdict.summary + " ".join(wg.verdict.evidence))
    assert (wg.tier, wg.rung) == ("fp32-tc", 3)
