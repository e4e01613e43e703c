// probe spills: a register-tiled SGEMM squeezed into too few registers.
//
// Predecessor: blocktile2d.
// Idea: the 128x128x8 block tile with an 8x8 micro-tile per thread (64 accumulators, 16
// fragment values, addresses: about 100 live registers). Planted: the manifest compiles it with
// -maxrregcount=40, so ptxas spills accumulators to local memory (spill stores and loads in the
// ptxas report, STL/LDL in the inner loop). Planted cause: spills.
//
// Contract: M, N multiples of 128, K of 8. Launch: block (256), grid (N/128, M/128). beta == 0:
// C is not read.

#include "probe_tiles.cuh"

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8

extern "C" __global__ void
sgemm_probe_spills(int M, int N, int K, float alpha, const float* __restrict__ A,
                   const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __align__(16) float As[BK][BM + 4];  // transposed; +4: conflict-free stores
    __shared__ __align__(16) float Bs[BK][BN];
    probe::blocktile2d<BM, BN, BK, TM, TN, float>(As, Bs, N, K, alpha, A, B, beta, C);
}
