"""ladder.py: predecessors from the manifest, cuBLAS on top, and what changed."""

from __future__ import annotations

import numpy as np
import pandas as pd

from profiler.analyze import ladder
from profiler.catalogue.manifest_parse import parse_manifest

MANIFEST = """
[[kernel]]
name = "a"
file = "a.cu"
entry = "a"
tier = "fp32"
idea = "first"
grid = [1]
block = [32]

[[kernel]]
name = "b"
file = "b.cu"
entry = "b"
tier = "fp32"
idea = "second"
predecessor = "a"
grid = [1]
block = [32]

[[kernel]]
name = "c"
file = "c.cu"
entry = "c"
tier = "fp32"
idea = "third"
predecessor = "b"
grid = [1]
block = [32]
"""
SPECS = parse_manifest(MANIFEST)


def test_order_and_neighbours():
    assert ladder.ladder_order(["cublas", "zz", "c", "a", "b"], SPECS) == ["a", "b", "c", "zz", "cublas"]
    assert ladder.predecessor("b", ["a", "b", "c"], SPECS) == "a"
    assert ladder.predecessor("c", ["a", "c"], SPECS) == "a"  # b missing: the rung below it
    assert ladder.predecessor("a", ["a", "b"], SPECS) is None
    assert ladder.predecessor("cublas", ["a", "b", "cublas"], SPECS) == "b"  # cuBLAS is the top
    assert ladder.successor("a", ["a", "b", "c", "cublas"], SPECS) == "b"
    assert ladder.successor("c", ["a", "b", "c", "cublas"], SPECS) == "cublas"
    assert ladder.successor("cublas", ["a", "cublas"], SPECS) is None


def test_compare_reads_like_the_issue():
    facts = pd.DataFrame({
        "gflops": [1000.0, 1800.0], "dram_bytes": [100e6, 12e6], "load_conflicts": [4.0, 1.0],
        "achieved_occupancy_pct": [67.0, 33.0], "registers_per_thread": [64, 64], "top_stall": ["MIO throttle", "wait"],
        "time_ms": [2.0, np.nan], "sm_busy_pct": [24.0, 97.0],
    }, index=["a", "b"])
    c = ladder.changes(facts, SPECS).set_index("quantity")
    assert c.loc["gflops", "change"].startswith("x1.8 ") and c.loc["gflops", "better"] is True
    assert c.loc["dram_bytes", "change"] == "x0.12 (100.0 MB -> 12.0 MB)" and c.loc["dram_bytes", "better"] is True
    assert c.loc["load_conflicts", "change"] == "4-way -> none" and c.loc["load_conflicts", "better"] is True
    assert c.loc["achieved_occupancy_pct", "change"] == "67% -> 33%"
    assert not c.loc["registers_per_thread", "changed"] and c.loc["registers_per_thread", "change"] == "64 (same)"
    assert c.loc["top_stall", "change"] == "MIO throttle -> wait"
    assert c.loc["sm_busy_pct", "change"] == "24% -> 97%" and c.loc["sm_busy_pct", "better"] is True  # what split-K fixes
    assert "time_ms" not in c.index  # unknown on one side: left out
    assert set(c["predecessor"]) == {"a"}


def test_from_nothing_has_no_factor():
    facts = pd.DataFrame({"shared_load_wavefronts": [0.0, 4e6]}, index=["a", "b"])
    row = ladder.changes(facts, SPECS).iloc[0]
    assert row["change"] == "0 -> 4.0 M" and row["changed"]


def test_tier_rung_counts_steps_within_a_tier():
    # a fp32-tc kernel d on top of c (fp32) starts its own tier's ladder; e branches off a beside b
    extra = MANIFEST + "".join(f"""
[[kernel]]
name = "{name}"
file = "{name}.cu"
entry = "{name}"
tier = "{tier}"
idea = "more"
predecessor = "{pred}"
grid = [1]
block = [32]
""" for name, tier, pred in (("d", "fp32-tc", "c"), ("f", "fp32-tc", "d"), ("e", "fp32", "a")))
    specs = parse_manifest(extra)
    assert {s.name: ladder.tier_rung(s.name, specs) for s in specs} == {"a": 1, "b": 2, "c": 3, "d": 1, "f": 2, "e": 2}
    assert ladder.tier_rung("cublas", specs) is None and ladder.tier_rung("unknown", specs) is None


def test_tier_rung_of_the_manifest_tf32_rungs():
    from profiler.catalogue.manifest import load_manifest

    specs = load_manifest()
    assert [ladder.tier_rung(n, specs) for n in ("tf32x1", "tf32x3", "tf32x3wg")] == [1, 2, 3]


def test_ncus_estimates_for_the_rung_below_beside_the_measured_change():
    from profiler.analyze.ladder import estimates_beside_measured

    rules = pd.DataFrame([
        {"rule": "UncoalescedGlobalAccess", "title": "L1TEX Global Load Access Pattern", "estimated_speedup_pct": 84.0},
        {"rule": "Issue Slot Utilization", "title": float("nan"), "estimated_speedup_pct": 23.0},
        {"rule": "Small", "title": "Small Grid", "estimated_speedup_pct": 0.5},  # under ESTIMATE_MIN_PCT
        {"rule": "None", "title": "Launch Statistics", "estimated_speedup_pct": float("nan")},
    ])
    e = estimates_beside_measured(rules, below_ns=3000.0, here_ns=1000.0)
    assert e == {"measured_pct": 200.0, "estimates": [("L1TEX Global Load Access Pattern", 84.0),
                                                       ("Issue Slot Utilization", 23.0)]}
    assert estimates_beside_measured(rules.iloc[2:], 3000.0, 1000.0) is None
    assert estimates_beside_measured(rules, float("nan"), 1000.0) is None
