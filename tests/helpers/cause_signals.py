"""`Signals` for one made-up launch, built directly (no kernels table, no verdict): the cause
checks' tests (idle_causes, code_causes, cause_text) change only the facts their check reads."""

from __future__ import annotations

import pandas as pd

from profiler.analyze.signals import Signals
from profiler.stall_table import BY_REASON


def stalls(**cycles: float) -> pd.DataFrame:
    """A stall table from cycles per issued instruction by reason; shares of their total."""
    total = sum(cycles.values())
    return pd.DataFrame([{"reason": r, "cycles_per_inst": c, "share_pct": 100.0 * c / total if total else 0.0,
                          "benign": not BY_REASON[r].cost} for r, c in cycles.items()],
                        columns=["reason", "cycles_per_inst", "share_pct", "benign"])


def signals(launch: dict | None = None, util: dict | None = None, occupancy: dict | None = None,
            stall_cycles: dict | None = None, **parts) -> Signals:
    """132 SMs, 264 blocks in 1.0 wave, SM 40% and memory 30% busy, occupancy 50% with no limiter
    named, and one long-scoreboard stall: no cause fires until a test sets one."""
    return Signals(
        launch={"sm_count": 132, "duration_ns": 1e6, **(launch or {})},
        util={"sm_fill": 100.0, "blocks": 264, "waves": 1.0, "memory": 30.0, "sm": 40.0, **(util or {})},
        occupancy={"limiter": "", "warps_per_scheduler": 4.0, "theoretical_pct": 50.0, "blocks_per_sm": 2,
                   **(occupancy or {})},
        stalls=stalls(**(stall_cycles or {"long_scoreboard": 2.0, "selected": 1.0})),
        **parts,
    )
