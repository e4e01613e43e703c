// wgmma_stagedstore: wgmma_tmastore over staged copies, for aligned operands whose rows do not
// start on 32-byte sectors.
//
// Predecessor: wgmma_tmastore. TMA reads a row of 5000 halves (10000 bytes) in place, but every
// other row starts 16 bytes into a sector, so each 128-byte row of a box touches five sectors, not
// four: at 5000^3 wgmma_tmastore moved 26% more through L2 than at 5120^3, its consumers waited on
// the loads, and best-fp16 ran 5000^3 and 7000^3 at 70-76% of cuBLAS GemmEx where 5120^3 and
// 7168^3 ran at 90-108% (H200, benchmarks/results/2026-11-29-h200, squares/). Idea: the staging
// rungs' copy (kernels/staged_operands.cuh) of each operand whose rows are not whole sectors (the
// manifest's staging_row_bytes = 32) to rows of whole 128-byte lines, a grid barrier, then
// wgmma_tmastore's body unchanged (128x256x64 tiles, the epilogue through shared memory and TMA
// stores) over the copies. The copy costs one read and one write of each staged operand per call:
// about 50 us of DRAM time at 5000^3, where wgmma_tmastore took 0.594 ms, 0.19 ms over its
// rate at 5120^3.
//
// Contract: block (384), grid (min(cdiv(M, 128) * cdiv(N, 256), SMS)), launched cooperatively,
// 230,528 bytes of dynamic shared memory; sm_90a. M, K any; N a multiple of 8 (C's tensor map and
// the float2 epilogue); A, B 4-byte aligned. beta == 0: C is not read. Launches must not overlap
// in time (one grid barrier per loaded module). Kernel parameters: the fixed list, the staging
// buffers of A and B (null: not staged), then the tensor maps of A, B and C.

#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include "staged_operands.cuh"
#include "wgmma_fp16.cuh"

#define BN 256
#define STAGES 4
#define TMA_BUFS 2                                   // staging buffers per consumer warpgroup
#define GROUP 16                                     // tile rows per raster group
#define NTHREADS 384
#define STAGING_PITCH_BYTES 128                       // the manifest's: copies' rows on whole 128-byte lines
#define SMEM_BYTES (STAGES * (128 * 64 * 2 + BN / 64 * 8192) + 2 * TMA_BUFS * 8192 + 1024 + 128)  // 230,528: the manifest's
static_assert(SMEM_BYTES == wgfp16::smem_bytes_tmastore<BN, STAGES, TMA_BUFS>(), "SMEM_BYTES is the body's layout");
static_assert(NTHREADS == wgfp16::THREADS, "one producer and two consumer warpgroups");

__device__ staged::GridBarrier g_barrier;            // zero at module load

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
hgemm_wgmma_stagedstore(int M, int N, int K, float alpha, const __half* __restrict__ A,
                        const __half* __restrict__ B, float beta, float* __restrict__ C,
                        __half* __restrict__ As, __half* __restrict__ Bs,
                        const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
                        const __grid_constant__ CUtensorMap tmC)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    staged::stage<STAGING_PITCH_BYTES / 2>(M, N, K, A, B, As, Bs, &g_barrier);
    wgfp16::gemm<BN, STAGES, GROUP, wgfp16::WHOLE, wgfp16::TMA_FEED, TMA_BUFS>(M, N, K, alpha, beta, C, &tmA, &tmB, smem_raw, {},
                                                                    {}, &tmC);
}
