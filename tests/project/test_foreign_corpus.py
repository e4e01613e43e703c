"""The foreign corpus (tests/programs/corpus/, captured into tests/data/foreign-h200/): kernels
gemmprof did not write, each graded against the truth decided for it (truth.toml, and
holdout.toml for the cases the diagnosis was not tuned on; reference.toml for such kernels
captured by gemmprof's own commands, its cuBLAS reference). Every verdict that is right is held
here; the gaps the corpus was built to show are held one by one."""

from __future__ import annotations

import ast
import functools
import re

import pytest

from helpers.ncu_fixtures import opened_copy
from helpers.paths import DATA, REPO

from profiler.analyze.accuracy import RIGHT, grade, parse_truth, verdict_words

CORPUS = DATA / "foreign-h200"
PROGRAM = REPO / "tests" / "programs" / "corpus" / "corpus.py"
TABLES = ("truth.toml", "holdout.toml")  # the corpus program's cases
REFERENCE = "reference.toml"  # launches of gemmprof's own runs


def truths(tables: tuple[str, ...] = TABLES) -> list:
    return [t for name in tables for t in parse_truth((CORPUS / name).read_text(), name)]


def cases_of_the_program() -> set[str]:
    """The case functions corpus.py lists in CASES (read, not imported: it needs a GPU)."""
    tree = ast.parse(PROGRAM.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "CASES":
            return {elt.id for elt in node.value.generators[0].iter.elts}
    raise AssertionError("no CASES in corpus.py")


def test_every_case_of_the_program_has_its_truth_and_every_truth_a_case():
    named = {t.range.split("/")[1] for t in truths()}
    assert named == cases_of_the_program()
    held_out = {t.name for t in parse_truth((CORPUS / "holdout.toml").read_text())}
    assert held_out == {c for c in cases_of_the_program() if c.startswith("v_")}
    assert len(truths()) >= 16


@functools.cache
def diagnosis(run: str):
    path = CORPUS / run
    if path.is_file():  # a report of its own: opened where it is, its tables cached outside the tree
        from profiler.run import open_run
        return open_run(path).diagnose()
    return opened_copy(path).diagnose()


def launch_of(truth):
    for d in diagnosis(truth.run).kernels:
        nvtx, function = (d.launch or {}).get("nvtx"), str((d.launch or {}).get("function"))
        if isinstance(nvtx, str) and nvtx.startswith(truth.range) and (not truth.kernel or re.search(truth.kernel, function)):
            return d
    raise AssertionError(f"no launch in {truth.run} ran in {truth.range}")


@pytest.mark.ncu
@pytest.mark.parametrize("truth", truths((*TABLES, REFERENCE)), ids=lambda t: t.name)
def test_the_verdict_is_right(truth):
    v = launch_of(truth).verdict
    g = grade(truth, v.cause, v.ranked, verdict_words(v.problem, v.summary, v.cure))
    assert g.grade == RIGHT, (g.why, v.problem, v.cure)


@pytest.mark.ncu
def test_a_foreign_kernel_named_like_a_rung_inherits_nothing_of_the_ladder():
    for name in ("naive", "smem"):
        d = next(k for k in diagnosis("cuda").kernels if k.name == name)
        assert (d.rung, d.tier, d.idea, d.predecessor, d.successor) == (None, None, None, None, None)


@pytest.mark.ncu
def test_a_batched_product_counts_the_whole_batch():
    d = next(k for k in diagnosis("torch").kernels if (k.launch or {}).get("nvtx", "").startswith("corpus/torch_bmm_bf16/"))
    assert d.own_shape == (128, 128, 128) and d.launch["batch"] == 4096
    assert 150_000 < d.gflops < 250_000  # 4096 x 2 x 128^3 in 93 us, not one product's 45 GFLOP/s
    assert "(0.956x the least)" in d.verdict.summary


@pytest.mark.ncu
def test_a_plain_full_set_report_still_measures_shared_memory():
    d = diagnosis("plain/smem.ncu-rep").kernels[0]
    assert d.utilisation["shared"] == pytest.approx(
        next(k for k in diagnosis("cuda").kernels if k.name == "smem").utilisation["shared"], rel=0.05)


@pytest.mark.ncu
def test_no_register_advice_for_kernels_the_user_does_not_compile():
    from profiler.render.page_tables import occupancy_view

    for d in diagnosis("torch").kernels + diagnosis("triton").kernels:
        assert d.origin in ("library", "triton")
        view = occupancy_view(d)
        assert view is None or view["registers_next"] is None


@pytest.mark.ncu
def test_a_memory_bound_launch_reads_its_dram_timeline():
    """Captured beside cuBLAS at 64x4096x4096: wgmma_decode's 12-stage build reads DRAM at 86% of
    the peak from 3.0 to 10.5 us of its 16.0, then ends; the 5.5 us after the stream cost more than
    the stream's shortfall from the peak, and the cure names them. cuBLAS reads at the peak and ends
    0.9 us after its stream."""
    kernels = {k.name: k for k in diagnosis("cublas-decode").kernels}
    r12 = kernels["wgmma_decode_r12"].verdict
    assert r12.cause == "dram" and "DRAM timeline (PM sampling): 86% of the peak from 3.0 to 10.5 us" in " ".join(r12.evidence)
    assert "the 5.5 us after the stream" in r12.cure and "deeper ring" not in r12.cure
    assert "its end is short (0.9 us)" in kernels["cublas-fp16"].verdict.cure
