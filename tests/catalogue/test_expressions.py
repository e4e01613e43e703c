"""Conditions of the manifest (profiler.catalogue.expressions): arithmetic over M, N, K and the SM count."""

import pytest

from profiler.catalogue.expressions import evaluate


@pytest.mark.parametrize("expr,value", [("M * N * K >= 1000000", 1), ("M * N * K >= 1000001", 0), ("M > 64 and K % 4 == 0", 1),
                                        ("M < 64 or N == 100", 1), ("1 < K <= 99", 0)])
def test_conditions(expr, value):
    assert evaluate(expr, 100, 100, 100) == value


def test_conditions_may_use_the_sm_count_and_launch_geometry_may_not():
    assert evaluate("cdiv(M, 128) * cdiv(N, 128) <= SMS", 1024, 1024, 1024, 132) == 1
    assert evaluate("cdiv(M, 128) * cdiv(N, 128) <= SMS", 1024, 1024, 1024, 32) == 0
    with pytest.raises(ValueError, match="SMS"):
        evaluate("SMS", 1, 1, 1)  # a grid expression: no GPU at build time


@pytest.mark.parametrize("expr,value", [("cdiv(M, 32)", 32), ("cdiv(N, 128) * 2", 16), ("max(M, K) // 8", 256), (7, 7)])
def test_evaluate(expr, value):
    assert evaluate(expr, 1000, 1000, 2048) == value


@pytest.mark.parametrize("expr", ["__import__('os')", "M ** 2", "open('x')", "M if N else K"])
def test_evaluate_rejects_anything_but_arithmetic(expr):
    with pytest.raises(ValueError):
        evaluate(expr, 1, 1, 1)
