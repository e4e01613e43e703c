"""What the cause checks write with (profiler.analyze.cause_text): a Verdict without empty
evidence, stall lines largest first, the share of samples at a class of instruction, the Hopper
pipeline sentence."""

from __future__ import annotations

from helpers.cause_signals import signals

from profiler.analyze.cause_text import cause, class_samples, hopper_sentence, math_name, stall_lines


def test_a_cause_keeps_its_key_and_drops_empty_evidence():
    v = cause("shared", "shared memory / MIO", "bank_conflicts", "problem", "summary", ["one", "", "two"], "cure",
              confidence="medium")
    assert (v.bound, v.label, v.cause, v.confidence) == ("shared", "shared memory / MIO", "bank_conflicts", "medium")
    assert v.evidence == ("one", "two") and v.cure == "cure"


def test_stall_lines_are_the_costly_reasons_largest_first():
    s = signals(stall_cycles={"selected": 5.0, "long_scoreboard": 2.0, "barrier": 3.0, "mio_throttle": 1.0})
    lines = stall_lines(s)
    assert [line.split(":")[0] for line in lines] == ["Barrier", "Long scoreboard"]  # 'selected' is no cost
    assert lines[0] == "Barrier: 3 stall cycles per issued instruction (27% of all cycles between issues)."
    assert stall_lines(s, ("mio_throttle",)) == [
        "MIO throttle: 1 stall cycles per issued instruction (9.1% of all cycles between issues)."]
    assert len(stall_lines(s, n=3)) == 3


def test_class_samples_says_a_share_or_nothing():
    assert class_samples(signals(regions={"barrier_samples_pct": 12.5}), "barrier", "barriers") == \
        "12% of the warps' samples are at barriers."
    assert class_samples(signals(regions={"barrier_samples_pct": 0.0}), "barrier", "barriers") == ""
    assert class_samples(signals(), "barrier", "barriers") == ""


def test_math_name_defaults_to_ffma():
    assert math_name(signals()) == "FFMA"
    assert math_name(signals(mix={"math_op": "HGMMA"})) == "HGMMA"


def test_the_hopper_sentence_only_for_tensor_pipe_kernels():
    assert hopper_sentence(signals()) == ""
    assert hopper_sentence(signals(techniques={"double_buffer": True})) == ""
    s = signals(launch={"pipe_tensor_active_pct": 80.0, "tma_load_bytes": 2e6},
                techniques={"wgmma": True, "tma": True}, regions={"mbarrier_samples_pct": 10.0},
                stall_cycles={"gmma": 1.0, "long_scoreboard": 3.0})
    assert hopper_sentence(s) == ("Hopper pipeline: tensor pipe busy 80% of active cycles, TMA brought 2.0 MB into "
                                  "shared memory, 10% of the samples wait on mbarriers, wgmma waits 25% of the cycles.")
