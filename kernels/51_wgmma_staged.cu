// wgmma_staged: wgmma_persist for any N and K: an operand whose rows TMA cannot address is first
// copied by the whole grid to an aligned pitch, then the TMA + wgmma main loop runs unchanged.
//
// Predecessor: wgmma_persist. Every TMA rung needs N and K to be multiples of 8 (a row of A or B a
// multiple of 16 bytes), so best-fp16 sent 1023^3, 2500^3 and 4095^3 to wmma_ragged at 35-47% of
// cuBLAS GemmEx, and wgmma_unaligned128, whose producer warpgroup loads 2-byte elements, reached
// 22-35%: the tensor cores wait for the loads. Idea (kernels/staged_operands.cuh): every thread of
// the persistent grid copies A (when K % 8 != 0) and B (when N % 8 != 0) into buffers of the
// launcher's with rows padded to 16 bytes, 16 bytes a store from funnel-shifted aligned words; a
// grid barrier; then wgmma_persist's body (STAGED_FEED) reads the copies through tensor maps over
// them (true extent, padded pitch, so TMA still zero-fills past M, N, K). The epilogue stores
// scalars when N is odd. The copy costs one read and one write of each staged operand per call.
//
// Contract: block (384), grid (min(cdiv(M, 128) * cdiv(N, 256), SMS)), launched cooperatively,
// 197,760 bytes of dynamic shared memory; sm_90a. Any M, N, K >= 1; A, B 4-byte aligned. beta == 0:
// C is not read. Launches must not overlap in time (one grid barrier per loaded module). Kernel
// parameters: the fixed list, the staging buffers of A and B (null: not staged), then the tensor
// maps of A and B.

#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include "staged_operands.cuh"
#include "wgmma_fp16.cuh"

#define BN 256
#define STAGES 4
#define GROUP 16                                     // tile rows per raster group
#define NTHREADS 384
#define STAGING_PITCH_BYTES 128                       // the manifest's: copies' rows on whole 128-byte lines
#define SMEM_BYTES (STAGES * (128 * 64 * 2 + BN / 64 * 8192) + 1024 + 128)  // 197,760: the manifest's
static_assert(SMEM_BYTES == wgfp16::smem_bytes<BN, STAGES>(), "SMEM_BYTES is the body's layout");
static_assert(NTHREADS == wgfp16::THREADS, "one producer and two consumer warpgroups");

__device__ staged::GridBarrier g_barrier;            // zero at module load

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
hgemm_wgmma_staged(int M, int N, int K, float alpha, const __half* __restrict__ A,
                   const __half* __restrict__ B, float beta, float* __restrict__ C,
                   __half* __restrict__ As, __half* __restrict__ Bs,
                   const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    staged::stage<STAGING_PITCH_BYTES / 2>(M, N, K, A, B, As, Bs, &g_barrier);
    wgfp16::gemm<BN, STAGES, GROUP, wgfp16::WHOLE, wgfp16::STAGED_FEED>(M, N, K, alpha, beta, C, &tmA, &tmB, smem_raw);
}
