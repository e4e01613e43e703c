// wgmma_pingpong: wgmma_persist128's 128x128x64 tiles and 6-stage ring, each consumer warpgroup
// running whole tiles of its own, so one warpgroup's epilogue runs under the other's main loop.
//
// Predecessor: wgmma_persist128. In the cooperative rungs both consumer warpgroups share a tile
// (64 rows each) and reach its epilogue together: while they scale, load C and store 128 x BN
// floats the tensor cores idle, once per tile (wgmma's report: epilogue-bound). Idea (the
// ping-pong schedule, kernels/wgmma_fp16.cuh PINGPONG): warpgroup c takes the CTA's tiles c, c + 2,
// ... whole (two m64n128k16 per k16 step, 128 accumulators a thread); the producer fills the
// ring tile after tile, so the second warpgroup's main loop starts as the first one's loads end
// and runs while the first stores; each stage is released by the 4 warps that read it.
//
// Contract: block (384), grid (min(cdiv(M, 128) * cdiv(N, 128), SMS)), 197,760 bytes of dynamic
// shared memory; sm_90a. M any; N and K multiples of 8. beta == 0: C is not read. Kernel
// parameters: the fixed list, then the tensor maps of A and B.

#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include "wgmma_fp16.cuh"

#define BN 128
#define STAGES 6
#define GROUP 16                                     // tile rows per raster group
#define NTHREADS 384
#define SMEM_BYTES (STAGES * (128 * 64 * 2 + BN / 64 * 8192) + 1024 + 128)  // 197,760: the manifest's
static_assert(SMEM_BYTES == wgfp16::smem_bytes<BN, STAGES>(), "SMEM_BYTES is the body's layout");
static_assert(NTHREADS == wgfp16::THREADS, "one producer and two consumer warpgroups");

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
hgemm_wgmma_pingpong(int M, int N, int K, float alpha, const __half* __restrict__ A,
                     const __half* __restrict__ B, float beta, float* __restrict__ C,
                     const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    wgfp16::gemm<BN, STAGES, GROUP, wgfp16::PINGPONG>(M, N, K, alpha, beta, C, &tmA, &tmB, smem_raw);
}
