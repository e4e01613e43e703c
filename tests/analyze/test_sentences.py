"""sentences.py on real reports: which problem a latency-bound TMA/wgmma kernel is given depends on
where its long-scoreboard samples sit (the tf32x3ra/raw profiles of the 2026-11-23 H100 run:
66% of them in hopper.cuh's mbarrier wait; wgmma_persist's in its epilogue's C load)."""

from __future__ import annotations

import functools
import shutil
import tempfile
from pathlib import Path

import pytest

from helpers.paths import REPO
from profiler.run import open_run

RESULTS = REPO / "benchmarks" / "results" / "2026-11-23-h100"


@functools.cache
def diagnosed(run: str):
    copy = Path(tempfile.mkdtemp(prefix="gemmprof-sentences-")) / "run"  # the extraction cache stays out of the repo
    shutil.copytree(RESULTS / run, copy, ignore=shutil.ignore_patterns("report"))
    return {d.name: d for d in open_run(copy).diagnose().kernels}


@pytest.mark.ncu
def test_long_scoreboard_in_the_mbarrier_wait_is_a_stage_not_ready_not_global_latency():
    d = diagnosed("tf32-next/profile")["tf32x3raw"]
    assert d.verdict.cause == "latency_pipeline" and d.verdict.problem.startswith("pipeline stages not ready in time")
    assert "mbarrier wait" in d.verdict.cure and "more producer warps" in d.verdict.cure
    assert any("mbar_try_wait" in line for line in d.verdict.evidence)


@pytest.mark.ncu
def test_long_scoreboard_on_a_global_load_keeps_the_global_latency_reading():
    d = diagnosed("fp16-2/profile")["wgmma_persist"]
    assert d.verdict.cause == "latency_pipeline" and d.verdict.problem.startswith("global-memory latency in the async pipeline")
    assert any("beta * c" in line for line in d.verdict.evidence)
