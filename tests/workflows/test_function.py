"""Profiling a function (profiler.workflows.function): what is said before any ncu run, in one
line: nothing to call, no ncu, no place to write."""

from __future__ import annotations

import pytest

from profiler.errors import GemmprofError
from profiler.workflows.function import FunctionOptions, profile_function
from profiler.workflows.progress import Quiet


def test_not_a_function(tmp_path):
    with pytest.raises(GemmprofError, match="is not a function"):
        profile_function(42, None, FunctionOptions(out=tmp_path), Quiet())


def test_no_ncu(tmp_path):
    with pytest.raises(GemmprofError, match="Nsight Compute not found"):
        profile_function(lambda n: n, [(1,)], FunctionOptions(out=tmp_path, ncu=str(tmp_path / "no-ncu")), Quiet())


def test_an_output_folder_that_is_a_file(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(GemmprofError):
        profile_function(lambda: None, None, FunctionOptions(out=tmp_path / "file"), Quiet())
