// probe small_grid: big block tiles at a shape that has few of them.
//
// Predecessor: blocktile2d.
// Idea: the 128x128x8 block tile and 8x8 micro-tile of the ladder's blocktile2d (smem tiles,
// outer products in registers), a reasonable kernel at large sizes. Planted: the profile shape
// 512x512x16384 gives a grid of 4 x 4 = 16 blocks for a GPU of 132 SMs, each block running a
// long k loop: 116 SMs have nothing to do. Planted cause: small_grid.
//
// Contract: M, N multiples of 128, K of 8. Launch: block (256), grid (N/128, M/128). beta == 0:
// C is not read.

#include "probe_tiles.cuh"

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8

extern "C" __global__ void __launch_bounds__(256)
sgemm_probe_small_grid(int M, int N, int K, float alpha, const float* __restrict__ A,
                       const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __align__(16) float As[BK][BM + 4];  // transposed; +4: conflict-free stores
    __shared__ __align__(16) float Bs[BK][BN];
    probe::blocktile2d<BM, BN, BK, TM, TN, float>(As, Bs, N, K, alpha, A, B, beta, C);
}
