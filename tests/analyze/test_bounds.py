"""The bounds a verdict names (profiler.analyze.bounds): one entry per key, each with a label and a
cure; a Verdict is a frozen record whose defaults say 'medium confidence, nothing already used'."""

from __future__ import annotations

import dataclasses

import pytest

from profiler.analyze.bounds import BOUNDS, Verdict


def test_each_bound_is_filed_under_its_key_with_a_label_and_a_cure():
    assert {"launch", "fp32", "tensor", "dram", "global", "shared", "issue", "latency", "unknown"} <= set(BOUNDS)
    for key, bound in BOUNDS.items():
        assert bound.key == key and bound.label and bound.cure.endswith("."), key
    assert len({b.label for b in BOUNDS.values()}) == len(BOUNDS)


def test_a_verdict_is_frozen_with_modest_defaults():
    v = Verdict("dram", BOUNDS["dram"].label, "problem", "summary")
    assert (v.confidence, v.already_uses, v.evidence, v.cause) == ("medium", (), (), "")
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.bound = "fp32"
