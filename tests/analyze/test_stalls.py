"""stalls.py: the one table of stall reasons, and the top stalls per launch."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from helpers.paths import SAMPLE_RUN
from profiler import stall_table
from profiler.analyze import stalls
from profiler.stall_table import LAUNCH_REASONS as STALL_REASONS

SAMPLE = SAMPLE_RUN


def launch(**stall_values) -> pd.DataFrame:
    row = {"report": "r", "launch": 0, **{f"stall_{r}": 0.0 for r in STALL_REASONS}}
    row.update({f"stall_{k}": v for k, v in stall_values.items()})
    return pd.DataFrame([row])


def test_every_reason_ncu_reports_is_explained():
    for reason in (*STALL_REASONS, *stall_table.SAMPLED_NAMES.values()):
        entry = stalls.BY_REASON[reason]
        assert entry.label and entry.meaning.endswith(".") and entry.cure.endswith(".")
        # one sentence of meaning: no second sentence
        assert not re.search(r"[a-z)]\. [A-Z]", entry.meaning), reason
    assert not stalls.BY_REASON["not_selected"].cost and not stalls.BY_REASON["selected"].cost
    assert stalls.BY_REASON["mio_throttle"].cost


def test_unknown_reason_gets_a_neutral_entry():
    assert stalls.explain("future_reason").label == "future reason"


def test_breakdown_shares_count_selected_in_the_total():
    # 1 (selected) + 3 + 1 = 5 cycles between issues: long scoreboard is 60% of them.
    b = stalls.stall_breakdown(launch(selected=1.0, long_scoreboard=3.0, barrier=1.0))
    row = b[b["reason"] == "long_scoreboard"].iloc[0]
    assert row["cycles_per_inst"] == 3.0 and row["share_pct"] == pytest.approx(60.0)
    assert "selected" not in set(b["reason"])  # the issue cycle is not a stall


def test_top_stalls_rank_and_drop_zero():
    top = stalls.top_stalls(launch(selected=1.0, long_scoreboard=3.0, barrier=1.0, not_selected=2.0), n=5)
    assert list(top["reason"]) == ["long_scoreboard", "not_selected", "barrier"]
    assert list(top["rank"]) == [1, 2, 3]
    assert top.iloc[0]["meaning"] == stalls.BY_REASON["long_scoreboard"].meaning
    costs = stalls.top_stalls(launch(selected=1.0, long_scoreboard=3.0, not_selected=2.0), include_benign=False)
    assert list(costs["reason"]) == ["long_scoreboard"]


def test_top_stalls_per_launch():
    frame = pd.concat([launch(barrier=2.0, wait=1.0), launch(mio_throttle=5.0).assign(launch=1)], ignore_index=True)
    top = stalls.top_stalls(frame, n=1)
    assert list(zip(top["launch"], top["reason"])) == [(0, "barrier"), (1, "mio_throttle")]


def test_sampled_reasons_of_a_source_line():
    source = pd.DataFrame([{"samples_lg_throttle": 90.0, "samples_selected": 5.0, "samples_wait": 0.0,
                            "samples_long_scoreboard": 10.0}])
    assert stalls.sampled_reasons(source, n=2) == [[("lg_throttle", 90.0), ("long_scoreboard", 10.0)]]


@pytest.mark.skipif(not (SAMPLE / "kernels.parquet").is_file(), reason="sample run not present")
def test_shares_match_what_ncu_says_on_the_sample_run():
    kernels = pd.read_parquet(SAMPLE / "kernels.parquet")
    rules = pd.read_parquet(SAMPLE / "rules.parquet")
    smem = kernels[kernels["kernel_key"] == "smem"]
    top = stalls.top_stalls(smem, n=1).iloc[0]
    assert top["reason"] == "mio_throttle"
    # ncu: "This stall type represents about 46.3% of the total average of 35.9 cycles"
    message = rules[(rules["report"] == smem["report"].iloc[0]) & (rules["title"] == "Mio Throttle Stalls")]["message"].iloc[0]
    share = float(re.search(r"about ([\d.]+)% of the total", message).group(1))
    # ncu divides by its own measured cycles between issues (35.9), we by the sum of the reasons (36.0)
    assert top["share_pct"] == pytest.approx(share, abs=0.5)
    naive = kernels[kernels["kernel_key"] == "naive"]
    assert stalls.top_stalls(naive, n=1).iloc[0]["reason"] == "lg_throttle"
