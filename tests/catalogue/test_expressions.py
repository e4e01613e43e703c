"""Conditions of the manifest (profiler.catalogue.expressions): arithmetic over M, N, K and the SM count."""

import pytest

from profiler.catalogue.expressions import evaluate


@pytest.mark.parametrize("expr,value", [("M * N * K >= 1000000", 1), ("M * N * K >= 1000001", 0), ("M > 64 and K % 4 == 0", 1),
                                        ("M < 64 or N == 100", 1), ("1 < K <= 99", 0)])
def test_conditions(expr, value):
    assert evaluate(expr, 100, 100, 100) == value


def test_the_sm_count_is_a_name_only_where_it_is_given():
    assert evaluate("cdiv(M, 128) * cdiv(N, 128) <= SMS", 1024, 1024, 1024, 132) == 1
    assert evaluate("cdiv(M, 128) * cdiv(N, 128) <= SMS", 1024, 1024, 1024, 32) == 0
    with pytest.raises(ValueError, match="SMS"):
        evaluate("SMS", 1, 1, 1)  # e.g. a contract: no GPU in it


def test_a_persistent_grid_follows_the_gpu_it_runs_on():
    """Launch geometry takes the SM count of the GPU (132 where none is at hand): a persistent
    grid is one CTA an SM on an H100 SXM and on a 114-SM H100 PCIe alike."""
    from profiler.catalogue.manifest import load_manifest

    persist = next(s for s in load_manifest() if s.name == "wgmma_persist128")
    assert persist.launch(4096, 4096, 4096).grid == (132, 1, 1)
    assert persist.launch(4096, 4096, 4096, sms=114).grid == (114, 1, 1)
    assert persist.launch(1024, 1024, 1024, sms=114).grid == (64, 1, 1)  # fewer tiles than SMs


@pytest.mark.parametrize("expr,value", [("cdiv(M, 32)", 32), ("cdiv(N, 128) * 2", 16), ("max(M, K) // 8", 256), (7, 7)])
def test_evaluate(expr, value):
    assert evaluate(expr, 1000, 1000, 2048) == value


@pytest.mark.parametrize("expr", ["__import__('os')", "M ** 2", "open('x')", "M if N else K"])
def test_evaluate_rejects_anything_but_arithmetic(expr):
    with pytest.raises(ValueError):
        evaluate(expr, 1, 1, 1)
