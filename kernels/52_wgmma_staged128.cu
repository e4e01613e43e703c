// wgmma_staged128: wgmma_staged on wgmma_persist128's 128x128x64 tiles in 6 stages: twice the
// tiles, for unaligned shapes that leave SMs idle with 128x256 tiles (1023^3: 32 of them).
//
// Predecessor: wgmma_staged. Idea: the same staging copy and grid barrier
// (kernels/staged_operands.cuh), then wgmma_persist128's body (STAGED_FEED).
//
// Contract: block (384), grid (min(cdiv(M, 128) * cdiv(N, 128), SMS)), launched cooperatively,
// 197,760 bytes of dynamic shared memory; sm_90a. Any M, N, K >= 1; A, B 4-byte aligned. beta == 0:
// C is not read. Launches must not overlap in time (one grid barrier per loaded module). Kernel
// parameters: the fixed list, the staging buffers of A and B (null: not staged), then the tensor
// maps of A and B.

#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include "staged_operands.cuh"
#include "wgmma_fp16.cuh"

#define BN 128
#define STAGES 6
#define GROUP 16                                     // tile rows per raster group
#define NTHREADS 384
#define STAGING_PITCH_BYTES 128                       // the manifest's: copies' rows on whole 128-byte lines
#define SMEM_BYTES (STAGES * (128 * 64 * 2 + BN / 64 * 8192) + 1024 + 128)  // 197,760: the manifest's
static_assert(SMEM_BYTES == wgfp16::smem_bytes<BN, STAGES>(), "SMEM_BYTES is the body's layout");
static_assert(NTHREADS == wgfp16::THREADS, "one producer and two consumer warpgroups");

__device__ staged::GridBarrier g_barrier;            // zero at module load

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
hgemm_wgmma_staged128(int M, int N, int K, float alpha, const __half* __restrict__ A,
                      const __half* __restrict__ B, float beta, float* __restrict__ C,
                      __half* __restrict__ As, __half* __restrict__ Bs,
                      const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    staged::stage<STAGING_PITCH_BYTES / 2>(M, N, K, A, B, As, Bs, &g_barrier);
    wgfp16::gemm<BN, STAGES, GROUP, wgfp16::WHOLE, wgfp16::STAGED_FEED>(M, N, K, alpha, beta, C, &tmA, &tmB, smem_raw);
}
