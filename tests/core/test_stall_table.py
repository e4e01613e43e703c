"""The stall table (profiler.stall_table): each reason ncu reports once, in a known group."""

from __future__ import annotations

from profiler import stall_table


def test_the_stall_table_lists_each_reason_once_in_a_known_group():
    reasons = [s.reason for s in stall_table.STALLS]
    assert len(reasons) == len(set(reasons))
    assert all(s.group in stall_table.GROUPS for s in stall_table.STALLS)
    # the two ncu spellings of one reason map to one key
    assert stall_table.SAMPLED_NAMES["no_instructions"] == "no_instruction"
    assert set(stall_table.COST_REASONS) == set(reasons) - {"selected", "not_selected"}
