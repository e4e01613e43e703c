// probe local_memory: an accumulator array indexed at run time, so it lives in local memory.
//
// Predecessor: blocktile1d.
// Idea: a 64x64x8 smem-tiled kernel in which each thread computes 8 rows of one column of C
// (the ladder's blocktile1d). Planted: the thread visits its 8 rows in an order that rotates
// with k (row (i + k) % 8 at step i), which is the same sum in another order, but the index of
// acc[] is no longer known at compile time. The array cannot live in registers: ptxas gives the
// kernel a 32-byte stack frame (no spills), and every FMA becomes LDL + FFMA + STL.
// Planted cause: local_memory.
//
// Contract: M, N multiples of 64, K of 8. Launch: block (512), grid (N/64, M/64). beta == 0: C
// is not read.

#include "probe_tiles.cuh"

#define BM 64
#define BN 64
#define BK 8
#define TM 8

extern "C" __global__ void __launch_bounds__(512)
sgemm_probe_local_memory(int M, int N, int K, float alpha, const float* __restrict__ A,
                         const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    const int tid = threadIdx.x, col = tid % BN, rows = (tid / BN) * TM;  // rows..rows+7
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    float acc[TM] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        As[tid / BK][tid % BK] = A[(size_t)(bm + tid / BK) * K + k0 + tid % BK];
        Bs[tid / BN][tid % BN] = B[(size_t)(k0 + tid / BN) * N + bn + tid % BN];
        __syncthreads();
        for (int k = 0; k < BK; ++k) {
            const float b = Bs[k][col];
            for (int i = 0; i < TM; ++i) {
                const int r = (i + k0 / BK + k) % TM;  // the planted run-time index (k tile number)
                acc[r] += As[rows + r][k] * b;
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        probe::store_scaled(C + (size_t)(bm + rows + i) * N + bn + col, acc[i], alpha, beta);
    }
}
