// probe fp64: a register-tiled SGEMM whose accumulators are double.
//
// Predecessor: blocktile2d.
// Idea: the 128x128x8 block tile and 8x8 micro-tile of the ladder's blocktile2d (smem tiles,
// outer products in registers; probe_tiles.cuh's blocktile2d), with one planted mistake: the
// accumulators are double, as a stray double literal or type would make them. Every product then
// runs as a DFMA on the FP64 pipe (plus F2F conversions of the fragments), so the FP64 pipe,
// not FP32, sets the pace. Planted cause: fp64.
//
// Contract: M, N multiples of 128, K of 8 (no bounds checks). Launch: block (256), grid
// (N/128, M/128). beta == 0: C is not read.

#include "probe_tiles.cuh"

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8

extern "C" __global__ void __launch_bounds__(256)
sgemm_probe_fp64(int M, int N, int K, float alpha, const float* __restrict__ A,
                 const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __align__(16) float As[BK][BM + 4];  // transposed; +4: conflict-free stores
    __shared__ __align__(16) float Bs[BK][BN];
    // The planted mistake: double accumulators (and fragments), where float would do.
    probe::blocktile2d<BM, BN, BK, TM, TN, double>(As, Bs, N, K, alpha, A, B, beta, C);
}
