"""Hold the stream while the host queues a batch of timed launches (nvbench's blocking kernel).

Events around a launch time the stretch from the GPU reaching the start event to it reaching the
end event. If the host queues more slowly than the GPU runs (a 10 us kernel behind a 40 us L2
flush, launched through Python and ctypes), the GPU reaches the start event before the kernel is
queued and waits for it: the host's launch cost lands in the sample, in some samples and not in
others, so small shapes timed bimodally (768^3: a coefficient of variation of 13, the slow
samples 5x the fast ones) and against whichever side launched more slowly.

So each batch is queued behind a one-thread kernel that spins on a flag in pinned host memory,
and the host raises the flag once the whole batch is queued: the GPU then runs flush, events and
launches back to back. The spin gives up after `timeout_s` (a host that stalls cannot hang the
GPU) and says so in the flag; `settle`, called once the batch has run, counts it in `timeouts`
and tells the caller, who times that batch again.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

HOLD_SOURCE = r"""
extern "C" __global__ void gemmprof_hold(volatile int* flag, unsigned long long timeout_ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    while (*flag == 0) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start > timeout_ns) { *flag = 2; return; }
        __nanosleep(500);
    }
}
"""
RELEASED, TIMED_OUT = 1, 2
HOLD_ENV = "GEMMPROF_TIMING_HOLD"  # "0": time without the hold (to measure what it changes)


class QueueHold:
    """`with hold.held(): ...queue launches...`: they start only when the block is left."""

    def __init__(self, cp, timeout_s: float = 0.5):
        self.kernel = cp.RawKernel(HOLD_SOURCE, "gemmprof_hold")
        self._memory = cp.cuda.alloc_pinned_memory(4)  # mapped into the GPU's address space (UVA)
        self.flag = np.frombuffer(self._memory, np.int32, 1)
        self.timeout_ns = np.uint64(int(timeout_s * 1e9))
        self.timeouts = 0
        self._pending = False

    @contextmanager
    def held(self):
        self.settle()
        self.flag[0] = 0
        self.kernel((1,), (1,), (np.uintp(self._memory.ptr), self.timeout_ns))
        self._pending = True
        try:
            yield
        finally:
            if self.flag[0] == 0:
                self.flag[0] = RELEASED

    def settle(self) -> bool:
        """Whether the last hold timed out, counted in `timeouts` (call once its batch has run:
        after a synchronize); False when there is none to settle."""
        timed_out = self._pending and int(self.flag[0]) == TIMED_OUT
        self.timeouts += timed_out
        self._pending = False
        return timed_out
