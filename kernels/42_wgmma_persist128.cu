// wgmma_persist128: wgmma_persist with 128x128x64 tiles (m64n128k16, 64 accumulators per
// consumer thread) in a 6-stage ring, for shapes with few tiles.
//
// Predecessor: wgmma_persist. A 128x256 tile leaves SMs idle when the problem has few of them:
// 1024^2 is 32 tiles for 132 SMs (24% busy), 2048^2 is 128 (97%, but one wave with no slack),
// 3000^2 is 288 (2.2 waves: the third 18% full). Halving the tile's width doubles the tiles, so
// small and mid-sized shapes fill the SMs and the last wave's share of idle SMs shrinks; each
// stage is 32 KB instead of 48, so the same shared memory holds 6 stages, more loads in flight
// per tile. The cost: each A tile is multiplied by half as much B per load (more L2 traffic per
// FLOP), so large shapes stay with wgmma_persist.
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
hgemm_wgmma_persist128(int M, int N, int K, float alpha, const __half* __restrict__ A,
                       const __half* __restrict__ B, float beta, float* __restrict__ C,
                       const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    wgfp16::gemm<BN, STAGES, GROUP>(M, N, K, alpha, beta, C, &tmA, &tmB, smem_raw);
}
