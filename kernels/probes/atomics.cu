// probe atomics: every thread adds to one global counter in its k loop.
//
// Predecessor: smem.
// Idea: the 32x32 smem-tiled kernel of the ladder (one element of C per thread, tiles of A and B
// in shared memory). Planted: a progress counter, one float in global memory (probe_ticks), to
// which every thread atomically adds 1 per k tile. All those atomics hit one address, so L2
// serialises them and they, not the arithmetic, set the time. A float counter, so the compiler
// cannot fold a warp's adds into one. C is still computed exactly as without the counter.
// Planted cause: atomics.
//
// Contract: M, N, K multiples of 32. Launch: block (32, 32), grid (N/32, M/32). beta == 0: C is
// not read.

#include "probe_tiles.cuh"

#define TILE 32

__device__ float probe_ticks;  // the one address every thread adds to

extern "C" __global__ void __launch_bounds__(1024)
sgemm_probe_atomics(int M, int N, int K, float alpha, const float* __restrict__ A,
                    const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        probe::smem_tile_loads<TILE>(As, Bs, A, B, N, K, row, col, k0);
        __syncthreads();
        atomicAdd(&probe_ticks, 1.0f);  // the planted same-address atomic
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    probe::store_scaled(C + (size_t)row * N + col, acc, alpha, beta);
}
