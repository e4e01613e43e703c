"""The timing loop's control logic on a fake CUDA: alternation, repetition limits, flushes."""

import itertools
import math

import pytest

from profiler.measure.timing import Stats
from profiler.measure.timing import TimingPolicy, time_alternating


class FakeCuda:
    """Events whose elapsed time comes from a per-launch script; records the launch order."""

    def __init__(self, times: dict):
        self.order = []
        self.times = {k: itertools.cycle(v) for k, v in times.items()}
        fake = self

        class Event:
            def record(self):
                self.stamp = len(fake.order)

            def synchronize(self):
                pass

        class Cuda:
            pass

        self.cuda = Cuda()
        self.cuda.Event = Event
        self.cuda.get_elapsed_time = lambda start, end: self._elapsed[end.stamp - 1]
        self._elapsed = []

    def launcher(self, name):
        def launch():
            self.order.append(name)
            self._elapsed.append(next(self.times[name]))
        return launch


def run(times, policy):
    cp = FakeCuda(times)
    flushes = []
    samples = time_alternating(cp, {n: cp.launcher(n) for n in times}, lambda: flushes.append(1), policy)
    return cp, samples, flushes


def test_alternates_and_flushes_before_every_launch():
    cp, samples, flushes = run({"k": [2.0], "cublas": [1.0]}, TimingPolicy(min_reps=10, max_reps=40))
    assert cp.order[:4] == ["k", "cublas", "k", "cublas"]
    assert len(flushes) == len(cp.order)
    assert samples["k"] == [2.0] * len(samples["k"]) and samples["cublas"] == [1.0] * len(samples["cublas"])


def test_stable_timings_stop_at_min_reps_rounded_to_a_batch():
    _, samples, _ = run({"k": [1.0]}, TimingPolicy(min_reps=10, max_reps=300, target_cv=0.01))
    assert 10 <= len(samples["k"]) <= 30


def test_noisy_timings_run_to_max_reps_and_not_past_it():
    _, samples, _ = run({"k": [1.0, 3.0]}, TimingPolicy(min_reps=10, max_reps=37, target_cv=0.01, max_seconds=60))
    assert len(samples["k"]) == 37


def test_stats_on_hand_checkable_samples():
    s = Stats.of([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0])
    assert s.n == 11 and s.median_ms == 6.0 and s.min_ms == 1.0 and s.mean_ms == 6.0
    assert s.p10_ms == pytest.approx(2.0) and s.p90_ms == pytest.approx(10.0)
    assert s.cv == pytest.approx(math.sqrt(11.0) / 6.0)
    assert Stats.of([2.5]).cv == 0.0
