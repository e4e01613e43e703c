"""`compare`: verdicts on synthetic bench tables with numbers checkable by hand, the key ncu
metrics, the real sample compared with itself, and `gemmprof compare` end to end (exit codes,
JSON, different GPUs)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from helpers.paths import SAMPLE_RUN
from profiler.analyze.compare import (
    compare_bench,
    compare_kernels,
    environment_differences,
    gpu_of,
    judge_change,
    per_kernel_metrics,
    summarize,
)
from profiler.catalogue.manifest import load_manifest

SAMPLE = SAMPLE_RUN
# rows of the sample sweep that passed verification and were timed (every kernel and size)
SAMPLE_TIMED = int((pd.read_parquet(SAMPLE / "bench.parquet")["status"] == "PASS").sum())


def row(kernel, median, p10, p90, status="PASS", M=1024):
    flop = 2.0 * M ** 3
    return {"kernel": kernel, "M": M, "N": M, "K": M, "status": status,
            "median_ms": median if status == "PASS" else np.nan, "p10_ms": p10, "p90_ms": p90,
            "gflops": flop / (median * 1e-3) / 1e9 if status == "PASS" else np.nan, "pct_of_cublas": np.nan}


BASE = pd.DataFrame([
    row("slow", 1.00, 0.98, 1.02),    # -> 1.10 (1.08-1.12): +10%, spreads apart: slower
    row("noisy", 1.00, 0.90, 1.10),   # -> 1.05 (0.95-1.15): +5%, spreads overlap: noise
    row("small", 1.00, 0.99, 1.01),   # -> 1.02 (1.015-1.025): +2%, under 3%: same
    row("fast", 1.00, 0.98, 1.02),    # -> 0.80 (0.79-0.81): -20%: faster
    row("breaks", 1.00, 0.99, 1.01),  # -> FAIL: broken
    row("mends", np.nan, np.nan, np.nan, status="FAIL"),  # -> PASS: fixed
    row("gone", 1.00, 0.99, 1.01),    # only in the base: removed
])
NEW = pd.DataFrame([
    row("slow", 1.10, 1.08, 1.12),
    row("noisy", 1.05, 0.95, 1.15),
    row("small", 1.02, 1.015, 1.025),
    row("fast", 0.80, 0.79, 0.81),
    row("breaks", np.nan, np.nan, np.nan, status="FAIL"),
    row("mends", 1.00, 0.99, 1.01),
    row("new", 1.00, 0.99, 1.01),     # only in the new run: added
])


def test_verdicts_by_hand():
    table = compare_bench(BASE, NEW, threshold=0.03).set_index("kernel")
    assert table["verdict"].to_dict() == {
        "slow": "slower", "noisy": "noise", "small": "same", "fast": "faster", "breaks": "broken",
        "mends": "fixed", "gone": "removed", "new": "added"}
    assert table.index.tolist() == ["slow", "noisy", "small", "fast", "breaks", "mends", "gone", "new"]
    assert table.loc[table["regression"]].index.tolist() == ["slow", "breaks"]
    assert table.loc["slow", "time_change"] == pytest.approx(0.10)
    assert table.loc["slow", "gflops_change"] == pytest.approx(1 / 1.1 - 1)  # -9.1%
    assert table.loc["fast", "time_change"] == pytest.approx(-0.20)
    assert table.loc["noisy", "time_change"] == pytest.approx(0.05)
    assert np.isnan(table.loc["breaks", "time_change"])
    assert table.loc["breaks", "status_new"] == "FAIL" and pd.isna(table.loc["gone", "status_new"])
    assert summarize(compare_bench(BASE, NEW)) == {
        "slower": 1, "noise": 1, "same": 1, "faster": 1, "broken": 1, "fixed": 1, "removed": 1, "added": 1,
        "regressions": 2}


def test_threshold_moves_the_line():
    table = compare_bench(BASE, NEW, threshold=0.15).set_index("kernel")
    assert table.loc["slow", "verdict"] == "same" and not table.loc["slow", "regression"]
    assert table.loc["fast", "verdict"] == "faster"  # -20% is beyond 15%
    assert table.loc["breaks", "regression"]  # a failure is a regression at any threshold
    with pytest.raises(ValueError):
        compare_bench(BASE, NEW, threshold=-0.1)


def test_spread_edge_and_missing_spread():
    base = {"median_ms": 1.0, "p10_ms": 0.95, "p90_ms": 1.05}
    touching = {"median_ms": 1.1, "p10_ms": 1.05, "p90_ms": 1.15}  # new p10 == base p90: still overlapping
    assert judge_change("PASS", "PASS", base, touching, 0.03) == ("noise", pytest.approx(0.1))
    no_spread = {"median_ms": 1.0, "p10_ms": np.nan, "p90_ms": np.nan}
    slower = {"median_ms": 1.1, "p10_ms": np.nan, "p90_ms": np.nan}
    assert judge_change("PASS", "PASS", no_spread, slower, 0.03)[0] == "slower"
    assert judge_change("PASS", "SKIP", base, no_spread, 0.03)[0] == "broken"  # PASS -> anything else is a regression
    assert judge_change("FAIL", "ERROR", no_spread, no_spread, 0.03)[0] == "not timed"
    assert judge_change("PASS", "ERROR", base, no_spread, 0.03)[0] == "broken"


def test_inputs_are_not_mutated():
    base, new = BASE.copy(), NEW.copy()
    compare_bench(base, new)
    pd.testing.assert_frame_equal(base, BASE)
    pd.testing.assert_frame_equal(new, NEW)


def test_sample_with_itself_is_all_same():
    bench = pd.read_parquet(SAMPLE / "bench.parquet")
    table = compare_bench(bench, bench)
    assert len(table) == (bench["status"] == "PASS").sum() == SAMPLE_TIMED  # every timed row, once
    assert set(table["verdict"]) == {"same"} and not table["regression"].any()
    assert (table["time_change"] == 0).all()


def test_key_metrics_sum_launches_and_compare():
    def launch(key, ns, dram, occupancy):
        return {"kernel_key": key, "function": key, "M": 64, "N": 64, "K": 64, "fp32_flop": 1e6, "tensor_flop": 0.0,
                "duration_ns": ns, "dram_bytes": dram, "l2_bytes": 10.0, "shared_bank_conflicts": 0.0,
                "achieved_occupancy_pct": occupancy, "registers_per_thread": 32, "sm_clock_hz": 1e9}

    base = pd.DataFrame([launch("cublas", 1000, 100, 50), launch("cublas", 3000, 300, 25), launch("naive", 1000, 100, 90)])
    per = per_kernel_metrics(base).set_index("kernel")
    assert per.loc["cublas", "duration_ns"] == 4000 and per.loc["cublas", "dram_bytes"] == 400
    assert per.loc["cublas", "achieved_occupancy_pct"] == 25  # the longest launch's
    assert per.loc["cublas", "achieved_flops"] == pytest.approx(2e6 / 4e-6)
    new = pd.DataFrame([launch("cublas", 1000, 100, 50), launch("cublas", 3000, 300, 25), launch("naive", 2000, 150, 90)])
    metrics = compare_kernels(base, new).set_index(["kernel", "metric"])
    assert metrics.loc[("naive", "duration_ns"), "change"] == pytest.approx(1.0)
    assert metrics.loc[("naive", "achieved_flops"), "change"] == pytest.approx(-0.5)
    assert metrics.loc[("naive", "dram_bytes"), "change"] == pytest.approx(0.5)
    assert metrics.loc[("naive", "dram_bytes"), "unit"] == "byte"
    assert metrics.loc[("cublas", "duration_ns"), "change"] == 0
    # launches read from two reports keep their own row labels (0, 1, 0, 1, ...): still one value
    # a kernel, the longest launch's, and a kernel with no duration has an unknown rate, not inf
    twice = pd.concat([base, base.assign(duration_ns=[500.0, 500.0, None])])
    per = per_kernel_metrics(twice).set_index("kernel")
    assert per.loc["cublas", "achieved_occupancy_pct"] == 25 and per.loc["cublas", "duration_ns"] == 5000
    assert per.loc["naive", "duration_ns"] == 1000 and per.loc["naive", "achieved_flops"] == pytest.approx(2e6 / 1e-6)
    alone = per_kernel_metrics(base.assign(duration_ns=None)).set_index("kernel")
    assert alone["achieved_flops"].isna().all()


def test_sample_kernels_with_itself():
    kernels = pd.read_parquet(SAMPLE / "kernels.parquet")
    metrics = compare_kernels(kernels, kernels)
    # the sample holds the ladder up to wgmma (rungs added since were not captured) and both references
    captured = {s.name for s in load_manifest() if s.index <= next(k.index for k in load_manifest() if k.name == "wgmma")}
    assert set(metrics["kernel"]) == set(kernels["kernel_key"]) == captured | {"cublas", "cublas-fp16"}
    assert (metrics["change"].dropna() == 0).all()


def test_gpu_and_environment():
    meta = json.loads((SAMPLE / "run.json").read_text())
    assert gpu_of(meta) == "NVIDIA H200"
    assert gpu_of({}, pd.DataFrame({"gpu": ["NVIDIA A100"]})) == "NVIDIA A100"
    assert gpu_of({}) is None
    other = {"environment": {**meta["environment"], "driver": "999.0", "gpu_name": "NVIDIA A100"}}
    assert environment_differences(meta, other) == [("GPU", "NVIDIA H200", "NVIDIA A100"),
                                                    ("driver", meta["environment"]["driver"], "999.0")]


# --- gemmprof compare, end to end ---------------------------------------------------------------


# --- runs compare must not trust (exit 3), and regressions it used to miss (issue 12) ------------


def test_pass_to_skip_and_pass_without_a_time_are_regressions():
    base = pd.DataFrame([row("a", 1.0, 0.99, 1.01), row("b", 1.0, 0.99, 1.01), row("c", 1.0, 0.99, 1.01)])
    new = pd.DataFrame([row("a", 1.0, 0.99, 1.01, status="SKIP"), row("b", 1.0, 0.99, 1.01), row("c", 1.0, 0.99, 1.01)])
    new.loc[1, "median_ms"] = np.nan  # b: PASS with no time
    table = compare_bench(base, new).set_index("kernel")
    assert table["verdict"].to_dict() == {"a": "broken", "b": "unmeasured", "c": "same"}
    assert table["regression"].to_dict() == {"a": True, "b": True, "c": False}


def test_zero_base_median_is_no_traceback():
    base = pd.DataFrame([row("a", 1.0, 0.99, 1.01)]).assign(median_ms=0.0, gflops=0.0)
    table = compare_bench(base, pd.DataFrame([row("a", 1.0, 0.99, 1.01)]))
    assert table.loc[0, "verdict"] == "not timed" and np.isnan(table.loc[0, "gflops_change"])
