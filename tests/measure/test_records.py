"""measure.records: the one constructor of a bench record, and the statuses it accepts."""

from __future__ import annotations

import pytest

from profiler.measure.records import bench_record
from profiler.tiers import ERROR, PASS, SKIP, STATUSES, TIMED_STATUSES


def test_a_finished_record_carries_its_status_and_reason():
    assert bench_record("smem", "fp32", (256, 128, 64), SKIP, "K must be a multiple of 8") == {
        "kernel": "smem", "tier": "fp32", "M": 256, "N": 128, "K": 64, "status": "SKIP",
        "reason": "K must be a multiple of 8"}


def test_an_open_record_has_no_status_yet():
    assert bench_record("cublas", "fp32", [512, 512, 512]) == {"kernel": "cublas", "tier": "fp32", "M": 512,
                                                              "N": 512, "K": 512}


def test_an_unknown_status_is_refused():
    with pytest.raises(ValueError, match="unknown bench status 'OK'"):
        bench_record("smem", "fp32", (1, 1, 1), "OK")


def test_statuses_are_the_words_written_to_bench_csv():
    assert STATUSES == ("PASS", "FAIL", "ERROR", "SKIP", "CONTEXT")
    assert PASS in TIMED_STATUSES and ERROR not in TIMED_STATUSES
