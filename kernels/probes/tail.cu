// probe tail: one block per SM and one block more than the GPU has SMs.
//
// Predecessor: blocktile2d.
// Idea: a 128x128x8 smem-tiled kernel with 1024 threads per block, each computing a 4x4
// micro-tile; about 40 registers a thread, so one block takes more than half the register file
// and only one block fits on an SM. Planted: the profile shape 896x2432x4096 makes a grid of
// 7 x 19 = 133 blocks, each long (K = 4096). On a 132-SM GPU the first wave runs 132 blocks
// and the second wave one block alone: about half the kernel's time is that last block, with
// the rest of the GPU idle. Planted cause: tail.
//
// Contract: M, N multiples of 128, K of 8. Launch: block (1024), grid (N/128, M/128). beta == 0:
// C is not read.

#include "probe_tiles.cuh"

#define BM 128
#define BN 128
#define BK 8
#define TM 4
#define TN 4

extern "C" __global__ void __launch_bounds__(1024, 1)
sgemm_probe_tail(int M, int N, int K, float alpha, const float* __restrict__ A,
                 const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __align__(16) float As[BK][BM + 4];  // transposed; +4: conflict-free stores
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.x, tRow = tid / 32, tCol = tid % 32;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        probe::load_tiles<BM, BN, BK, 1024>(As, Bs, A, B, N, K, bm, bn, k0, tid);  // 1024 = 128 x 8
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float4 a = *reinterpret_cast<const float4*>(&As[k][tRow * TM]);
            const float4 b = *reinterpret_cast<const float4*>(&Bs[k][tCol * TN]);
            const float av[TM] = {a.x, a.y, a.z, a.w}, bv[TN] = {b.x, b.y, b.z, b.w};
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += av[i] * bv[j];
        }
        __syncthreads();
    }
    probe::store_micro_tile<TM, TN>(acc, C, N, bm + tRow * TM, bn, tCol * TN, alpha, beta);
}
