"""Profiling a function (profiler.measure.function): what is said before any ncu run, in one
line: nothing to call, a function that cannot be sent to the profiled process, no ncu."""

from __future__ import annotations

import threading

import pytest

from profiler.errors import GemmprofError
from profiler.measure.function import profile_function


def test_not_a_function(tmp_path):
    with pytest.raises(GemmprofError, match="is not a function"):
        profile_function(42, None, tmp_path)


def test_a_function_holding_what_cannot_be_pickled(tmp_path):
    lock = threading.Lock()
    with pytest.raises(GemmprofError, match="cannot be sent to the profiled process") as raised:
        profile_function(lambda: lock.acquire(), None, tmp_path)
    assert "inside the function" in raised.value.hint


def test_no_ncu(tmp_path):
    with pytest.raises(GemmprofError, match="Nsight Compute not found"):
        profile_function(lambda n: n, [(1,)], tmp_path, ncu=str(tmp_path / "no-ncu"))


def test_an_output_folder_that_is_a_file(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(GemmprofError):
        profile_function(lambda: None, None, tmp_path / "file")
