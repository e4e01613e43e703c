"""Verdicts that hold when the stall samples move a little: each stall reason's cycles moved
independently by up to +-3% (the two captures of one rung at two shapes differ by about 1%), every
launch of the sample run and of the foreign corpus keeps its cause. A verdict that flips here
rests on a threshold's edge, not on the counters. (At +-5% one does flip today: cutlass128x256x8,
register banks against its MIO throttle, 2 trials in 8.)"""

from __future__ import annotations

import random

import pytest
from helpers.paths import DATA, SAMPLE_RUN

import profiler.analyze.verdict as verdict
from profiler.run import open_run

NOISE = 0.03
TRIALS = 3
RUNS = [SAMPLE_RUN, *(DATA / "foreign-h200" / group for group in ("cuda", "triton", "torch", "holdout", "decode", "wgmma", "uneven"))]


def _causes(path) -> dict[str, str | None]:
    return {d.name: d.verdict.cause if d.verdict else None for d in open_run(path).diagnose().kernels}


@pytest.mark.ncu
@pytest.mark.parametrize("path", RUNS, ids=lambda p: p.name)
def test_no_verdict_flips_under_small_stall_noise(path, monkeypatch):
    stalls = verdict.stall_breakdown
    before = _causes(path)
    for seed in range(TRIALS):
        rng = random.Random(seed)

        def jittered(kernels, rng=rng):
            table = stalls(kernels).copy()
            table["cycles_per_inst"] *= [1.0 + rng.uniform(-NOISE, NOISE) for _ in range(len(table))]
            total = table.groupby(["report", "launch"], dropna=False)["cycles_per_inst"].transform("sum")
            table["share_pct"] = 100.0 * table["cycles_per_inst"] / total
            return table

        monkeypatch.setattr(verdict, "stall_breakdown", jittered)
        assert _causes(path) == before, f"seed {seed}"
