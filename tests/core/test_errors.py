"""User-facing errors (profiler.errors): one line, the hint in parentheses, the exit code the CLI
uses; warnings go through the warnings machinery, never print."""

from __future__ import annotations

import warnings

import pytest

from profiler.errors import Exit, GemmprofError, GemmprofWarning, warn


def test_error_is_message_then_hint_on_one_line():
    err = GemmprofError("no run under reports/", "run gemmprof bench first")
    assert str(err) == "no run under reports/ (run gemmprof bench first)" and "\n" not in str(err)
    assert (err.message, err.hint, err.exit_code) == ("no run under reports/", "run gemmprof bench first", 2)
    assert str(GemmprofError("bare")) == "bare"
    assert GemmprofError("untrusted", exit_code=3).exit_code == 3


def test_warn_raises_a_gemmprof_warning_and_prints_nothing(capsys):
    with pytest.warns(GemmprofWarning, match="stale table"):
        warn("stale table")
    with warnings.catch_warnings():
        warnings.simplefilter("error", GemmprofWarning)
        with pytest.raises(GemmprofWarning):
            warn("as an error")
    assert capsys.readouterr() == ("", "")


def test_each_exit_status_is_its_own():
    assert len({int(code) for code in Exit}) == len(Exit) and Exit.OK == 0 and GemmprofError("x").exit_code == Exit.USAGE
    # what a machine may lack, each its own status: scripts tell them apart by the status alone
    assert len({Exit.NO_GPU, Exit.NO_CUDA, Exit.NO_NCU} - {Exit.OK, Exit.FAILED, Exit.USAGE, Exit.BAD_RUN}) == 3


def test_missing_cupy_nvcc_and_ncu_each_end_with_their_status(monkeypatch, tmp_path):
    import importlib.util

    from profiler.measure import build, device, ncu

    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("GEMMPROF_NCU", raising=False)
    monkeypatch.setattr(build.Path, "is_file", lambda self: False)
    for call, code, words in [(device.require_cupy, Exit.NO_CUDA, "CuPy"), (build.find_nvcc, Exit.NO_CUDA, "nvcc"),
                              (lambda: ncu.resolve_ncu(None), Exit.NO_NCU, "Nsight Compute")]:
        with pytest.raises(GemmprofError, match=words) as err:
            call()
        assert err.value.exit_code == code
