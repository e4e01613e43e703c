// probe wasted_math: 128-column tiles over a C 32 columns wide.
//
// Predecessor: blocktile2d.
// Idea: blocktile2d's 128x128x8 tile (8x8 results a thread, 256 threads) for any N: B's columns
// past N are loaded as zeros and C's are not stored. Planted: at the probe shape 16384x32x2048
// every tile computes 128 columns of which 32 are C's, so the FP32 pipe executes 4x the GEMM's
// 2MNK FLOPs; the grid (128 blocks) gives each SM at most one block, so no partial wave or small
// grid competes with it. Planted cause: wasted_math.
//
// Contract: M a multiple of 128, K of 8, any N. Launch: block (256), grid (cdiv(N, 128), M/128).
// beta == 0: C is not read.

#include "probe_tiles.cuh"

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define NT 256

extern "C" __global__ void __launch_bounds__(NT)
sgemm_probe_wasted_math(int M, int N, int K, float alpha, const float* __restrict__ A,
                        const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __align__(16) float As[BK][BM + 4];  // transposed; +4: conflict-free stores
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.x, tRow = tid / (BN / TN), tCol = tid % (BN / TN);
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int l = 0; l < BM * BK / NT; ++l) {
            const int e = tid + NT * l, col = bn + e % BN;
            As[e % BK][e / BK] = A[(size_t)(bm + e / BK) * K + k0 + e % BK];
            Bs[e / BN][e % BN] = col < N ? B[(size_t)(k0 + e / BN) * N + col] : 0.0f;  // the planted zeros
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = As[k][tRow * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = Bs[k][tCol * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            if (bn + tCol * TN + j < N)
                probe::store_scaled(C + (size_t)(bm + tRow * TM + i) * N + bn + tCol * TN + j, acc[i][j], alpha, beta);
}
