import time, numpy as np, cupy as cp
src = r'''
extern "C" __global__ void hold(volatile int* flag, unsigned long long timeout_ns, int* seen) {
    unsigned long long start, now; int n = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    seen[0] = *flag;
    while (*flag == 0) {
        ++n;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start > timeout_ns) { *flag = 2; break; }
        __nanosleep(500);
    }
    seen[1] = n; seen[2] = *flag;
}'''
k = cp.RawKernel(src, "hold")
seen = cp.zeros(3, dtype=cp.int32)
mem = cp.cuda.alloc_pinned_memory(4)
flag = np.frombuffer(mem, np.int32, 1)
print("pinned ptr", hex(mem.ptr), "frombuffer addr", hex(flag.ctypes.data), "value", flag[0])
flag[0] = 0
k((1,), (1,), (np.uintp(mem.ptr), np.uint64(2_000_000_000), seen))
ev = cp.cuda.Event(); ev.record()
time.sleep(0.05)
print("A pinned: done after 50 ms?", ev.done, "flag", flag[0])
flag[0] = 1
ev.synchronize(); print("A seen", seen.get(), "flag", flag[0])
# B: device flag released from a non-blocking stream
dflag = cp.zeros(1, dtype=cp.int32)
rel = cp.cuda.Stream(non_blocking=True)
k((1,), (1,), (dflag, np.uint64(2_000_000_000), seen))
ev = cp.cuda.Event(); ev.record()
time.sleep(0.05)
print("B device flag: done after 50 ms?", ev.done)
one = np.ones(1, np.int32)
dflag.set(one, stream=rel); rel.synchronize()
t = time.perf_counter(); ev.synchronize(); print("B released in", time.perf_counter() - t, "seen", seen.get())
