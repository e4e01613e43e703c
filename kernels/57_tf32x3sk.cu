// tf32x3sk: tf32x3bits with K split over the SMs its tiles leave idle.
//
// Predecessor: tf32x3bits. Over the default suite it runs 3-66% of strict cuBLAS where one tile's
// K loop is the whole product (128x128x65536: one CTA on one SM for 2048 k tiles) or the grid is a
// few tiles (256x1024x16384: 16 CTAs on 132 SMs): the tensor cores of the other SMs stay idle.
// Idea: blockIdx.y splits the k tiles of each 128x128 tile, as many splits as fill one CTA an SM
// (each at least 8 k tiles); the splits meet without waiting for one another (tf32x3_ra.cuh,
// SPLIT_K): each writes its partial to a workspace, the split counted last sums them in split
// order and stores C, so the result does not depend on which split finishes last.
// Shapes with enough tiles run one split; there it ran 0-9% slower than tf32x3bits (H100, H200)
// (the same main loop, compiled beside the meeting code), so best-tc sends it only shapes it splits.
//
// Contract: block (384), grid (cdiv(M, 128) * cdiv(N, 128), S), SMEM_BYTES of dynamic shared
// memory as tf32x3bits; sm_90a; N and K multiples of 4, any M; a grid of more than 256 CTAs runs
// unsplit. Launches must not overlap in time (one workspace per loaded module). Kernel
// parameters: the fixed list, then the tensor maps of A and B as tf32x3bits.

#include "tf32x3_ra.cuh"

#define NTHREADS 384                 // producer warpgroup + 2 consumer warpgroups
#define STAGES 5
#define NSPLIT 4                     // split buffers
#define SMEM_BYTES 230656            // ra::smem_bytes(true, STAGES, NSPLIT)
static_assert(SMEM_BYTES == ra::smem_bytes(true, STAGES, NSPLIT), "SMEM_BYTES disagrees with the layout");

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
sgemm_tf32x3sk(int M, int N, int K, float alpha, const float* __restrict__ A,
               const float* __restrict__ B, float beta, float* __restrict__ C,
               const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    ra::gemm<true, STAGES, NSPLIT, true, true>(M, N, K, alpha, beta, C, &tmA, &tmB, smem);
}
