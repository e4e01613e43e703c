// probe barrier: a __syncthreads() after every single k step.
//
// Predecessor: smem.
// Idea: the 32x32 smem-tiled kernel of the ladder (1024 threads, one element of C each).
// Planted: the inner k loop ends each step with __syncthreads(), although the tiles do not
// change until the next k tile: 32 barriers of 32 warps per k tile, so warps spend their time
// waiting at the barrier for the slowest one. Planted cause: barrier.
//
// Contract: M, N, K multiples of 32. Launch: block (32, 32), grid (N/32, M/32). beta == 0: C is
// not read.

#include "probe_tiles.cuh"

#define TILE 32

extern "C" __global__ void __launch_bounds__(1024)
sgemm_probe_barrier(int M, int N, int K, float alpha, const float* __restrict__ A,
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
#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            acc += As[ty][k] * Bs[k][tx];
            __syncthreads();  // the planted barrier: nothing here needs it
        }
    }
    probe::store_scaled(C + (size_t)row * N + col, acc, alpha, beta);
}
