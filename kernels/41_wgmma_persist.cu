// wgmma_persist: wgmma_ragged on a persistent grid (one CTA per SM looping over tiles), the
// producer loading tile i+1 while the consumers run tile i's epilogue, C prefetched to L2.
//
// Predecessor: wgmma_ragged. wgmma's report: epilogue-bound, 83% of its long-scoreboard stalls at
// the epilogue's load of C; with one tile per CTA nothing else runs on the SM while the
// consumers wait on C and store, and every CTA pays the prologue (barrier init, tensor-map
// fetch, filling the ring) again. Idea, all in kernels/wgmma_fp16.cuh's body:
// (1) grid = min(tiles, SMS) CTAs (SMS: the SM count of the GPU it runs on, 132 on an H100 SXM
//     and an H200); CTA b takes tiles b, b + grid, ... of the grouped raster.
// (2) the ring index runs on across tiles, so the producer starts the next tile's loads as soon
//     as the last k tile's stages are released, before the epilogue is done;
// (3) 8 k tiles before a tile's end each consumer warp prefetches its C rows to L2
//     (prefetch.global.L2), so the epilogue's loads of C (beta != 0) come from L2.
// On a GPU with fewer SMs the grid still runs (a second partial wave), only slower.
//
// Contract: block (384), grid (min(cdiv(M, 128) * cdiv(N, 256), SMS)), 197,760 bytes of dynamic
// shared memory; sm_90a. M any; N and K multiples of 8. beta == 0: C is not read. Kernel
// parameters: the fixed list, then the tensor maps of A and B.

#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include "wgmma_fp16.cuh"

#define BN 256
#define STAGES 4
#define GROUP 16                                     // tile rows per raster group
#define NTHREADS 384
#define SMEM_BYTES (STAGES * (128 * 64 * 2 + BN / 64 * 8192) + 1024 + 128)  // 197,760: the manifest's
static_assert(SMEM_BYTES == wgfp16::smem_bytes<BN, STAGES>(), "SMEM_BYTES is the body's layout");
static_assert(NTHREADS == wgfp16::THREADS, "one producer and two consumer warpgroups");

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
hgemm_wgmma_persist(int M, int N, int K, float alpha, const __half* __restrict__ A,
                    const __half* __restrict__ B, float beta, float* __restrict__ C,
                    const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    wgfp16::gemm<BN, STAGES, GROUP>(M, N, K, alpha, beta, C, &tmA, &tmB, smem_raw);
}
