// wgmma_ragged: wgmma's 128x256x64 TMA + wgmma pipeline on any M and any N, K that are
// multiples of 8, one tile per CTA.
//
// Predecessor: wgmma. wgmma claims whole tiles (M % 128, N % 256, K % 64) and skips every other
// shape, though TMA already does the edge work: its tensor maps carry the true M, N, K and it
// zero-fills the part of a box outside them, so a partial tile's main loop multiplies zeros and
// needs no predicates. Idea: the shared body of kernels/wgmma_fp16.cuh with tile counts rounded
// up (cdiv), the k loop over cdiv(K, 64) tiles, and an epilogue that stores only rows < M and
// columns < N. The grid is every tile, one per CTA (the body's tile loop runs once), so any
// difference from wgmma at whole-tile shapes is the cost of the guards.
//
// Contract: block (384), grid (cdiv(M, 128) * cdiv(N, 256)), 197,760 bytes of dynamic shared
// memory; sm_90a. M any; N and K multiples of 8 (TMA: each row of A and B a multiple of 16 bytes).
// beta == 0: C is not read. Kernel parameters: the fixed list, then the tensor maps of A and B.

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
hgemm_wgmma_ragged(int M, int N, int K, float alpha, const __half* __restrict__ A,
                   const __half* __restrict__ B, float beta, float* __restrict__ C,
                   const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    wgfp16::gemm<BN, STAGES, GROUP>(M, N, K, alpha, beta, C, &tmA, &tmB, smem_raw);
}
