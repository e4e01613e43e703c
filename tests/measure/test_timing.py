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
        self.syncs = []
        self.cuda.runtime = type("Runtime", (), {"deviceSynchronize": staticmethod(lambda: self.syncs.append(len(self.order)))})
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


class Hold:
    """Logs when a batch enters and leaves the hold; `timed_out` lists which holds time out."""

    def __init__(self, cp, timed_out=()):
        self.cp, self.log, self.timed_out, self.timeouts = cp, [], set(timed_out), 0

    def held(self):
        from contextlib import contextmanager

        @contextmanager
        def block():
            self.log.append(("enter", len(self.cp.order)))
            yield
            self.log.append(("leave", len(self.cp.order)))
        return block()

    def settle(self):
        self.log.append(("settle", len(self.cp.order)))
        out = sum(k == "settle" for k, _ in self.log) in self.timed_out
        self.timeouts += out
        return out


def test_each_batch_is_queued_whole_inside_the_hold_and_waited_for_after_it():
    """Every runner and the flush run once, synchronised, before the first hold (a first launch
    may load a module, which would wait for the held GPU); then each hold is entered before a
    batch's first flush and left after its last launch, and the synchronize comes after the
    release (else the GPU would wait for the host, or for ever). A batch is at most
    MAX_HELD_ROUNDS rounds."""
    from profiler.measure.timing import MAX_HELD_ROUNDS

    cp = FakeCuda({"k": [1.0], "cublas": [1.0]})
    hold = Hold(cp)
    flushes = []
    samples = time_alternating(cp, {n: cp.launcher(n) for n in ("k", "cublas")}, lambda: flushes.append(len(cp.order)),
                               TimingPolicy(min_reps=10, max_reps=60, target_cv=-1.0, max_seconds=60), hold)
    assert cp.order[:2] == ["k", "cublas"] and flushes[0] == 0 and cp.syncs[0] == 2
    kinds = [k for k, _ in hold.log]
    assert kinds == ["enter", "leave", "settle"] * (len(kinds) // 3) and kinds
    marks = [n for _, n in hold.log]
    batches = list(zip(marks[0::3], marks[1::3]))
    assert batches[0][0] == 2 and batches[-1][1] == len(cp.order)
    assert all(0 < b[1] - b[0] <= 2 * MAX_HELD_ROUNDS for b in batches)
    assert all(nxt[0] == prev[1] for prev, nxt in zip(batches, batches[1:]))
    assert len(samples["k"]) == 60 == len(cp.order) // 2 - 1  # all but the priming launch


def test_a_batch_whose_hold_timed_out_is_timed_again_not_kept():
    cp = FakeCuda({"k": [1.0, 1.0, 1.0, 1.0, 1.0, 9.0]})  # the first batch (5 rounds) ends slow...
    hold = Hold(cp, timed_out={1})  # ... and its hold timed out: none of it is kept
    samples = time_alternating(cp, {"k": cp.launcher("k")}, lambda: None, TimingPolicy(min_reps=10, max_reps=20), hold)
    assert hold.timeouts == 1 and len(samples["k"]) == 20
    assert len(cp.order) == 1 + 5 + 20  # priming, the discarded batch, the kept ones


def test_the_budget_is_read_once_a_batch_so_a_row_never_ends_with_nothing(monkeypatch):
    """Every hold times out, and the clock crosses the budget between the checks of one batch
    (0.04, then 0.06 of a 0.05 s budget): read twice, the first read let it on and the second
    returned a row of no samples (CI, under load); read once, it says why."""
    import itertools

    from profiler.errors import GemmprofError
    from profiler.measure import timing

    ticks = itertools.chain([0.0, 0.04], (0.06 + 0.01 * i for i in itertools.count()))
    monkeypatch.setattr(timing.time, "perf_counter", lambda: next(ticks))
    cp = FakeCuda({"k": [1.0]})
    with pytest.raises(GemmprofError, match="every queue hold timed out"):
        time_alternating(cp, {"k": cp.launcher("k")}, lambda: None, TimingPolicy(min_reps=5, max_reps=20, max_seconds=0.05),
                         Hold(cp, timed_out=range(1, 10_000)))


def test_when_every_hold_times_out_the_row_says_so_instead_of_keeping_nothing():
    from profiler.errors import GemmprofError

    cp = FakeCuda({"k": [1.0]})
    hold = Hold(cp, timed_out=range(1, 10_000))
    with pytest.raises(GemmprofError, match="every queue hold timed out"):
        time_alternating(cp, {"k": cp.launcher("k")}, lambda: None, TimingPolicy(min_reps=5, max_reps=20, max_seconds=0.05), hold)
