// probe divergence: even and odd lanes take two different code paths to the same result.
//
// Predecessor: smem.
// Idea: the 32x32 smem-tiled kernel of the ladder (one element of C per thread). Planted: even
// lanes sum each k tile forwards, odd lanes backwards: the same dot product in another order,
// but two different instruction streams, so every warp runs both paths one after the other
// with half its lanes idle (about 16 threads active per instruction). Planted cause: divergence.
//
// Contract: M, N, K multiples of 32. Launch: block (32, 32), grid (N/32, M/32). beta == 0: C is
// not read.

#include "probe_tiles.cuh"

#define TILE 32

extern "C" __global__ void __launch_bounds__(1024)
sgemm_probe_divergence(int M, int N, int K, float alpha, const float* __restrict__ A,
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
        if (tx % 2 == 0) {  // the planted split: by lane parity
#pragma unroll
            for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        } else {
#pragma unroll
            for (int k = TILE - 1; k >= 0; --k) acc += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }
    probe::store_scaled(C + (size_t)row * N + col, acc, alpha, beta);
}
