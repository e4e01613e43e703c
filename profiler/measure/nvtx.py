"""NVTX ranges from Python, through whichever binding the process has (CuPy, PyTorch, or the
`nvtx` package), so gemmprof's own ranges and `gemmprof.capture` need none of them in
particular. Without any, ranges are no-ops: nothing to mark where nothing can launch a kernel."""

from __future__ import annotations

from contextlib import contextmanager
from functools import cache
from typing import Callable, Iterator

from ..errors import GemmprofError


@cache
def _binding() -> tuple[Callable[[str], object], Callable[[], object]]:
    try:
        from cupy.cuda import nvtx as cupy_nvtx

        return cupy_nvtx.RangePush, cupy_nvtx.RangePop
    except Exception:  # noqa: BLE001  (no CuPy, or one without CUDA here)
        pass
    try:
        import torch

        if torch.cuda.is_available():
            return torch.cuda.nvtx.range_push, torch.cuda.nvtx.range_pop
    except Exception:  # noqa: BLE001
        pass
    try:
        import nvtx

        return nvtx.push_range, nvtx.pop_range
    except Exception:  # noqa: BLE001
        return (lambda name: None), (lambda: None)


def check_range_name(name: str) -> str:
    """A range name ncu can filter on: text without a slash (ncu reads '/' as nesting)."""
    if not isinstance(name, str) or not name.strip() or "/" in name:
        raise GemmprofError(f"NVTX range name {name!r} must be non-empty text without '/'",
                            "e.g. 'gemm 4096x4096x4096': ncu filters nested ranges as 'outer/inner/'")
    return name


@contextmanager
def nvtx_range(name: str) -> Iterator[None]:
    """Push an NVTX range named `name` for the block, pop it after, also on an exception."""
    push, pop = _binding()
    push(check_range_name(name))
    try:
        yield
    finally:
        pop()


# The range `capture` opens around the user's own, so that a profiler can take only what was
# captured: `gemmprof-function/config <i>/gemmprof-capture/` (function.py's filter).
CAPTURE = "gemmprof-capture"


@contextmanager
def capture(name: str) -> Iterator[None]:
    """A region marked for the profiler: `gemmprof-capture/<name>` (its shape, if it names one,
    is the launches')."""
    check_range_name(name)
    with nvtx_range(CAPTURE), nvtx_range(name):
        yield
