"""The queue hold (profiler.measure.hold): on a fake CUDA, what it launches and how it counts a
timeout; on the GPU, that work queued while held waits for the release, and that a hold nobody
releases gives up by itself."""

import time

import numpy as np
import pytest

from profiler.measure import hold as hold_module
from profiler.measure.hold import RELEASED, TIMED_OUT, QueueHold


class FakeCupy:
    """RawKernel calls recorded; pinned memory is plain host memory."""

    def __init__(self):
        self.launched = []
        fake = self

        class RawKernel:
            def __init__(self, source, name):
                self.name = name

            def __call__(self, grid, block, args):
                fake.launched.append((grid, block, args))

        class Pinned(bytearray):
            ptr = 0x1000

        self.RawKernel = RawKernel
        self.cuda = type("Cuda", (), {"alloc_pinned_memory": staticmethod(lambda n: Pinned(n))})


def test_a_hold_launches_one_spinning_thread_and_raises_the_flag_on_leaving():
    cp = FakeCupy()
    hold = QueueHold(cp, timeout_s=0.25)
    assert QueueHold(cp).timeout_ns == 500_000_000  # far above the host's time to queue a batch
    with hold.held():
        assert hold.flag[0] == 0 and len(cp.launched) == 1
        grid, block, (ptr, timeout) = cp.launched[0]
        assert (grid, block, int(ptr), int(timeout)) == ((1,), (1,), 0x1000, 250_000_000)
    assert hold.flag[0] == RELEASED
    hold.settle()
    assert hold.timeouts == 0


def test_a_hold_that_timed_out_is_counted_once():
    cp = FakeCupy()
    hold = QueueHold(cp)
    with hold.held():
        hold.flag[0] = TIMED_OUT  # what the kernel writes when it gives up
    assert hold.flag[0] == TIMED_OUT  # not overwritten by the release
    assert hold.settle() is True
    assert hold.settle() is False  # counted once
    assert hold.timeouts == 1
    with hold.held():
        pass
    hold.settle()
    assert hold.timeouts == 1


def test_the_spin_gives_up_and_says_so():
    assert "timeout_ns" in hold_module.HOLD_SOURCE and "*flag = 2" in hold_module.HOLD_SOURCE
    assert TIMED_OUT == 2


@pytest.mark.gpu
def test_work_queued_while_held_waits_for_the_release_and_a_stuck_hold_gives_up():
    from profiler.measure.device import import_cupy

    cp = import_cupy()
    hold = QueueHold(cp, timeout_s=2.0)
    x = cp.zeros(1, dtype=cp.float32)
    x += 1  # the first launch of a kernel loads it, which waits for the GPU: never inside a hold
    cp.cuda.runtime.deviceSynchronize()
    with hold.held():
        x += 1
        done = cp.cuda.Event()
        done.record()
        time.sleep(0.05)
        assert not done.done  # the GPU is still spinning: nothing behind the hold has run
    done.synchronize()
    hold.settle()
    assert float(x[0]) == 2.0 and hold.timeouts == 0

    short = QueueHold(cp, timeout_s=0.02)
    with short.held():
        time.sleep(0.2)  # longer than its timeout: the spin gives up first
    cp.cuda.get_current_stream().synchronize()
    short.settle()
    assert short.timeouts == 1


@pytest.mark.gpu
def test_held_timing_of_a_tiny_kernel_is_tight():
    """Behind a hold every batch runs back to back: a few-microsecond kernel after a flush times
    with a small spread, whatever the host's launch cost."""
    from profiler.measure.device import gpu_info, import_cupy
    from profiler.measure.timing import L2Flusher, Stats, TimingPolicy, time_alternating

    cp = import_cupy()
    x = cp.zeros(1 << 16, dtype=cp.float32)

    def slow_host_launch():
        time.sleep(0.0002)  # a slow launcher: 200 us of host work per launch
        x.fill(1.0)

    samples = time_alternating(cp, {"k": slow_host_launch}, L2Flusher(cp, gpu_info(0).l2_bytes),
                               TimingPolicy(min_reps=20, max_reps=40, max_seconds=1.0), QueueHold(cp))
    st = Stats.of(samples["k"])
    assert st.p90_ms < 0.1, st  # the fill takes a few us; 200 us of host time would show
    assert np.isfinite(st.median_ms)
