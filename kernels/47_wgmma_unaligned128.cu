// wgmma_unaligned128: wgmma_tailsplit128 for any M, N, K: the producer warpgroup fills the
// swizzled stages with element loads where TMA cannot (N or K not a multiple of 8).
//
// Predecessor: wgmma_tailsplit128. TMA needs every global row pitch to be a multiple of 16
// bytes, so at 4095^3, 1023^3 or 2500^3 (2500 % 8 = 4) the FP16 tier fell back to wmma_ragged
// (10-47% of cuBLAS GemmEx), off the wgmma path. Idea (kernels/wgmma_fp16.cuh, ANY): the 128
// producer threads load each stage's A (128 x 64) and B (64 x 128) tiles element by element
// (2-byte ld.global.nc, coalesced along the row, zero outside A or B) and store each element
// where TMA's 128B swizzle would have put it, so the consumers' wgmma descriptors, main loop and
// tail split are unchanged; a fence.proxy.async makes the generic-proxy stores visible to
// wgmma, and the stage's full barrier counts 128 arrivals instead of transaction bytes. The
// epilogue stores scalars (an odd N misaligns float2). Aligned shapes belong to the TMA rungs.
//
// Contract: block (384), grid (min(132, tiles * cdiv(K, 256)), tiles = cdiv(M, 128) * cdiv(N, 128)),
// 197,760 bytes of dynamic shared memory; sm_90a. M, N, K any. beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module). Kernel parameters: the
// fixed list (no tensor maps).

#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include "wgmma_fp16.cuh"

#define BN 128
#define STAGES 6
#define GROUP 16                                     // tile rows per raster group
#define NTHREADS 384
#define SMEM_BYTES (STAGES * (128 * 64 * 2 + BN / 64 * 8192) + 1024 + 128)  // 197,760: the manifest's
#define WS_FLOATS (1LL << 22)                        // partial tiles: 16 MiB, 256 of 128x128 (a grid of 132 needs 132)
#define MAX_TILES 4096                               // arrival counters
static_assert(SMEM_BYTES == wgfp16::smem_bytes<BN, STAGES>(), "SMEM_BYTES is the body's layout");
static_assert(NTHREADS == wgfp16::THREADS, "one producer and two consumer warpgroups");

__device__ __align__(16) float g_partials[WS_FLOATS];
__device__ unsigned g_counters[MAX_TILES];           // zero at module load; the last split resets its own

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
hgemm_wgmma_unaligned128(int M, int N, int K, float alpha, const __half* __restrict__ A,
                         const __half* __restrict__ B, float beta, float* __restrict__ C)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    wgfp16::gemm<BN, STAGES, GROUP, wgfp16::TAIL, wgfp16::ELEMENT_FEED>(M, N, K, alpha, beta, C, nullptr, nullptr, smem_raw,
                                                                        wgfp16::Workspace{g_partials, g_counters, WS_FLOATS, MAX_TILES},
                                                                        wgfp16::Operands{A, B});
}
