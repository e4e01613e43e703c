"""NVTX ranges from Python (profiler.measure.nvtx): names ncu can filter on, popped on errors."""

from __future__ import annotations

import pytest

from profiler.errors import GemmprofError
from profiler.measure import nvtx


@pytest.mark.parametrize("name", ["", "  ", "gemm/inner", None])
def test_a_name_ncu_cannot_filter_on_is_one_line(name):
    with pytest.raises(GemmprofError, match="without '/'"):
        nvtx.check_range_name(name)


def test_the_range_is_popped_on_an_error(monkeypatch):
    seen = []
    monkeypatch.setattr(nvtx, "_binding", lambda: (lambda name: seen.append(("push", name)), lambda: seen.append("pop")))
    with pytest.raises(RuntimeError):
        with nvtx.nvtx_range("gemm 64x64x64"):
            raise RuntimeError("inside")
    assert seen == [("push", "gemm 64x64x64"), "pop"]


def test_a_capture_opens_gemmprofs_range_around_the_users(monkeypatch):
    seen = []
    monkeypatch.setattr(nvtx, "_binding", lambda: (lambda name: seen.append(name), lambda: seen.append("pop")))
    with nvtx.capture("gemm 64x64x64"):
        pass
    assert seen == [nvtx.CAPTURE, "gemm 64x64x64", "pop", "pop"]
    with pytest.raises(GemmprofError):
        with nvtx.capture("a/b"):
            pass
