"""Timing that can be trusted: CUDA events around each launch, L2 flushed before each one, each
batch queued whole before the GPU starts it (hold.py), a warm-up until the SM clock settles, and
repetition until the spread is small (or time runs out).

Several runners are timed in alternation (kernel, cuBLAS, kernel, ...) so that clock drift during
the measurement cannot favour one side.
"""

from __future__ import annotations

import statistics
import time
from contextlib import nullcontext
from dataclasses import dataclass

from ..errors import GemmprofError
from .hold import HOLD_ENV
from .sampler import read_gpu_state


@dataclass
class Stats:
    n: int
    median_ms: float
    mean_ms: float
    p10_ms: float
    p90_ms: float
    min_ms: float
    cv: float  # standard deviation / mean

    @classmethod
    def of(cls, samples_ms: list[float]) -> Stats:
        s = sorted(samples_ms)
        q = statistics.quantiles(s, n=10, method="inclusive") if len(s) > 1 else [s[0]] * 9
        mean = statistics.fmean(s)
        cv = statistics.stdev(s) / mean if len(s) > 1 and mean > 0 else 0.0
        return cls(len(s), statistics.median(s), mean, q[0], q[8], s[0], cv)


@dataclass
class TimingPolicy:
    min_reps: int = 10
    max_reps: int = 300
    target_cv: float = 0.01  # stop once the spread is this small (and min_reps reached)
    max_seconds: float = 3.0  # per runner and shape, timed region plus flushes
    warmup_seconds: float = 0.3  # at least this much work before timing...
    warmup_max_seconds: float = 3.0  # ...and until the SM clock is stable, at most this long


class L2Flusher:
    """Writes a buffer twice the L2 size: afterwards none of the GEMM's operands are in L2, so
    every timed launch reads its inputs from DRAM, as a launch in a real program would."""

    def __init__(self, cp, l2_bytes: int):
        self.buffer = cp.empty(max(2 * l2_bytes, 1 << 20) // 4, dtype=cp.int32)
        self._value = 0

    def __call__(self) -> None:
        self._value ^= 1
        self.buffer.fill(self._value)


def warm_up(cp, launch, policy: TimingPolicy) -> dict:
    """Launch repeatedly until `warmup_seconds` have passed and three SM clock readings in a row
    agree within 1% (the clock ramps up from idle under load), or `warmup_max_seconds`."""
    start = time.perf_counter()
    clocks: list[int] = []
    while True:
        t0 = time.perf_counter()
        launch()
        cp.cuda.runtime.deviceSynchronize()
        batch = max(1, int(0.05 / max(time.perf_counter() - t0, 1e-6)))  # ~50 ms of work
        for _ in range(batch):
            launch()
        cp.cuda.runtime.deviceSynchronize()
        state = read_gpu_state()
        if state is not None:
            clocks.append(state.sm_clock_mhz)
        elapsed = time.perf_counter() - start
        stable = state is None or (len(clocks) >= 3 and max(clocks[-3:]) <= 1.01 * min(clocks[-3:]))
        if (elapsed >= policy.warmup_seconds and stable) or elapsed >= policy.warmup_max_seconds:
            return {"warmup_s": elapsed, "warmup_clock_stable": stable, "warmup_sm_clock_mhz": clocks[-1] if clocks else None}


MAX_HELD_ROUNDS = 8  # rounds queued behind one hold: well inside the launch queue, which a full
# batch must never fill (the host would wait for the GPU, which waits for the host)


def time_alternating(cp, launches: dict, flush, policy: TimingPolicy, hold=None) -> dict[str, list[float]]:
    """Time each launch function in turn, L2 flushed before each, events around each launch.

    Returns milliseconds per launch for each name. Repeats in rounds (each round times every
    runner once) until every runner has `min_reps` and a CV under `target_cv`, or the time budget
    or `max_reps` is reached. With a `hold` (hold.QueueHold) each batch is queued behind it and
    runs only once all of it is queued, so no sample waits on the host. Everything a batch
    launches has run once before the first hold (a first launch may load a module, which waits
    for the GPU: inside a hold, for the hold's timeout), and a batch whose hold timed out is
    timed again, not kept.
    """
    samples: dict[str, list[float]] = {name: [] for name in launches}
    budget_end = time.perf_counter() + policy.max_seconds * len(launches)
    cap = MAX_HELD_ROUNDS if hold is not None else 20
    rounds_per_batch = min(5, policy.max_reps, cap)
    if hold is not None:
        flush()
        for launch in launches.values():
            launch()
        cp.cuda.runtime.deviceSynchronize()
    while True:
        events = []
        with hold.held() if hold is not None else nullcontext():
            for _ in range(rounds_per_batch):
                for name, launch in launches.items():
                    flush()
                    start, end = cp.cuda.Event(), cp.cuda.Event()
                    start.record()
                    launch()
                    end.record()
                    events.append((name, start, end))
        events[-1][2].synchronize()
        if hold is None or not hold.settle():
            for name, start, end in events:
                samples[name].append(cp.cuda.get_elapsed_time(start, end))
        n = min(len(v) for v in samples.values())
        out_of_time = time.perf_counter() >= budget_end  # read once: two reads could return nothing kept
        if n == 0 and out_of_time:
            raise GemmprofError("every queue hold timed out before its batch was queued: no sample kept",
                                f"time without the hold: {HOLD_ENV}=0")
        if n >= policy.max_reps or out_of_time:
            return samples
        if n >= policy.min_reps and all(Stats.of(v).cv <= policy.target_cv for v in samples.values()):
            return samples
        # Size the next batch so a slow kernel does not overrun the budget by much.
        spent = policy.max_seconds * len(launches) - (budget_end - time.perf_counter())
        per_round = spent / max(n, rounds_per_batch)
        rounds_per_batch = max(1, min(cap, policy.max_reps - n, int((budget_end - time.perf_counter()) / max(per_round, 1e-6))))
