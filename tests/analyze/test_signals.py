"""Sentences built from signals (profiler.analyze.signals): a stall row as evidence, first letter
capitalised."""

from __future__ import annotations

from profiler.analyze.signals import stall_sentence, upper


def test_upper_capitalises_only_the_first_letter():
    assert upper("long scoreboard: x") == "Long scoreboard: x" and upper("") == "" and upper("FP32") == "FP32"


def test_a_stall_row_reads_as_one_sentence_of_evidence():
    text = stall_sentence({"reason": "long_scoreboard", "cycles_per_inst": 3.14159, "share_pct": 42.0})
    assert text.startswith("Long scoreboard: 3.1") and "stall cycles per issued instruction" in text
    assert "42" in text and text.endswith("of all cycles between issues).")
