"""The one shape of a bench record: every row `bench` writes, timed or not, starts here.

A record is a flat dict (a line of bench.jsonl, a row of bench.csv): the kernel, its tier and
the shape, then a status (`tiers.PASS`, FAIL, ERROR, SKIP or CONTEXT) and, when the status needs
one, the reason. Timed records add their numbers to it; the others are complete as built here.
"""

from __future__ import annotations

from ..tiers import STATUSES


def bench_record(kernel: str, tier: str, shape, status: str | None = None, reason: str | None = None) -> dict:
    """A record of `kernel` at `shape` (M, N, K); with `status` (and `reason`), a finished one:
    a SKIP or ERROR needs nothing more."""
    M, N, K = shape
    record: dict = {"kernel": kernel, "tier": tier, "M": M, "N": N, "K": K}
    if status is not None:
        if status not in STATUSES:
            raise ValueError(f"unknown bench status {status!r}; one of {STATUSES}")
        record["status"] = status
        if reason is not None:
            record["reason"] = reason
    return record
