// How the splits of a split-K tile meet without waiting for one another (skinny, skinny32, tall32,
// wmma_tinysplit): each split writes its partial to a workspace and is counted in; the split
// counted last, which then sees every other partial, sums them in split order and runs the
// epilogue. No CTA waits for another, so any grid runs.
#pragma once

// True in the CTA of the split counted last of `splits`; called by every thread of the CTA once its
// partial is written, `last` a __shared__ int of the caller's. That CTA resets `*counter` for the
// next launch once it has read the partials.
__device__ __forceinline__ bool arrived_last(unsigned* counter, int splits, int& last)
{
    __threadfence();                                 // the partial is visible device-wide before this split is counted
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(counter, 1u) == (unsigned)(splits - 1);
    __syncthreads();
    if (!last) return false;
    __threadfence();                                 // the other splits' partials are read after their counts were seen
    return true;
}
