// probe bank_conflicts: shared-memory reads four lanes to a bank.
//
// Predecessor: blocktile1d.
// Idea: a 16x128x8 smem-tiled kernel, 256 threads; each thread computes one column of C over
// 8 rows (its 8 A values are one broadcast LDS.128 pair, its B value one load per k step).
// Planted: lane l of warp w owns column 4*l + w%4, so a warp's B loads Bs[k][4*l + q] are 4
// words apart: lanes l, l+8, l+16, l+24 hit the same bank and each load takes 4 wavefronts
// instead of 1 (no padding, no swizzle). Planted cause: bank_conflicts.
//
// Contract: M multiples of 16, N of 128, K of 8. Launch: block (256), grid (N/128, M/16).
// beta == 0: C is not read.

#include "probe_tiles.cuh"

#define BM 16
#define BN 128
#define BK 8
#define TM 8

extern "C" __global__ void __launch_bounds__(256)
sgemm_probe_bank_conflicts(int M, int N, int K, float alpha, const float* __restrict__ A,
                           const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __align__(16) float As[BK][BM];  // transposed: a thread's 8 A values are contiguous
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int col = 4 * lane + warp % 4;  // the planted mapping: stride 4 words across lanes
    const int rows = (warp / 4) * TM;     // rows..rows+7
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    float acc[TM] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        if (tid < BM * BK)  // A tile: 128 elements
            As[tid % BK][tid / BK] = A[(size_t)(bm + tid / BK) * K + k0 + tid % BK];
#pragma unroll
        for (int l = 0; l < 4; ++l) {  // B tile: 1024 elements, 4 per thread
            const int e = tid + 256 * l;
            Bs[e / BN][e % BN] = B[(size_t)(k0 + e / BN) * N + bn + e % BN];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float b = Bs[k][col];  // 4-way bank conflict
#pragma unroll
            for (int i = 0; i < TM; ++i) acc[i] += As[k][rows + i] * b;
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        probe::store_scaled(C + (size_t)(bm + rows + i) * N + bn + col, acc[i], alpha, beta);
    }
}
