"""User-facing errors (profiler.errors): one line, the hint in parentheses, the exit code the CLI
uses; warnings go through the warnings machinery, never print."""

from __future__ import annotations

import warnings

import pytest

from profiler.errors import GemmprofError, GemmprofWarning, warn


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
