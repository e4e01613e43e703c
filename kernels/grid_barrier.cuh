// grid_barrier.cuh: a barrier across every CTA of a cooperatively launched (co-resident) grid,
// for rungs that copy their operands with the whole grid before the main loop (staged_operands.cuh,
// experiments/splitk64x64x8st.cu).
//
// A generation counter: arrivals are counted, the last one resets the count and bumps the
// generation, the others spin on it. Contract: the grid is co-resident (a cooperative launch);
// launches do not overlap in time (one barrier per loaded module: the caller's __device__
// GridBarrier, zero at module load).
#pragma once

namespace grid {

struct GridBarrier {
    unsigned count;                         // arrivals of the barrier in progress
    unsigned generation;                    // completed barriers since module load
};

__device__ __forceinline__ unsigned load_acquire(const unsigned* p)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
    return v;
}

// Every CTA of the (co-resident) grid has arrived, and its writes before are visible after.
__device__ __forceinline__ void grid_sync(GridBarrier* bar)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned ctas = gridDim.x * gridDim.y * gridDim.z;
        const unsigned gen = load_acquire(&bar->generation);   // stable: it moves only when all have arrived
        __threadfence();
        if (atomicAdd(&bar->count, 1u) == ctas - 1) {
            bar->count = 0;                                     // for the next launch
            __threadfence();
            atomicAdd(&bar->generation, 1u);
        } else {
            while (load_acquire(&bar->generation) == gen) __nanosleep(64);
        }
        __threadfence();
    }
    __syncthreads();
}

}  // namespace grid
