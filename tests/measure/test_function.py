"""The payload of a profiled function (profiler.measure.function): made at once, so that a function
that cannot be sent to the profiled process is one line before any ncu run."""

from __future__ import annotations

import pickle
import threading

import pytest

from profiler.errors import GemmprofError
from profiler.measure.function import payload


def test_a_function_holding_what_cannot_be_pickled():
    lock = threading.Lock()
    with pytest.raises(GemmprofError, match="cannot be sent to the profiled process") as raised:
        payload(lambda: lock.acquire(), [None])
    assert "inside the function" in raised.value.hint


def test_the_payload_carries_the_function_its_configurations_and_the_error_file():
    sent = pickle.loads(payload(len, [("ab",)])("/tmp/error.txt"))
    assert sent["configs"] == [("ab",)] and sent["error"] == "/tmp/error.txt" and sent["sys_path"]
    assert pickle.loads(sent["function"])("abc") == 3
