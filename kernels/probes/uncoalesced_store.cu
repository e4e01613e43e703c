// probe uncoalesced_store: C written with consecutive threads on consecutive rows.
//
// Predecessor: blocktile1d.
// Idea: a 64x64x8 smem-tiled kernel, 256 threads, each computing 16 consecutive columns of one
// row; loads of A and B are coalesced and the shared-memory reads conflict-free. Planted: the
// thread-to-C mapping puts consecutive threads on consecutive ROWS, so every store (and, when
// beta != 0, every read of C) of a warp touches 32 rows N floats apart: 32 sectors per request,
// 4 of their 32 bytes used. At the profile shape K is small (64), so C dominates the traffic.
// Planted cause: uncoalesced_store.
//
// Contract: M, N multiples of 64, K of 8. Launch: block (256), grid (N/64, M/64). beta == 0: C
// is not read.

#include "probe_tiles.cuh"

#define BM 64
#define BN 64
#define BK 8
#define TN 16

extern "C" __global__ void __launch_bounds__(256)
sgemm_probe_uncoalesced_store(int M, int N, int K, float alpha, const float* __restrict__ A,
                              const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __align__(16) float As[BK][BM + 4];  // transposed; +4: conflict-free stores
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int row = tid % BM;         // the planted mapping: lanes walk down the rows
    const int col0 = (tid / BM) * TN;  // 16 columns per thread
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    float acc[TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        probe::load_tiles<BM, BN, BK, 256>(As, Bs, A, B, N, K, bm, bn, k0, tid);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float a = As[k][row];
#pragma unroll
            for (int j = 0; j < TN; ++j) acc[j] += a * Bs[k][col0 + j];
        }
        __syncthreads();
    }
    float* c = C + (size_t)(bm + row) * N + bn + col0;
#pragma unroll
    for (int j = 0; j < TN; ++j) probe::store_scaled(c + j, acc[j], alpha, beta);  // a warp's store: 32 rows, one float each
}
