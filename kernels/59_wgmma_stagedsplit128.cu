// wgmma_stagedsplit128: wgmma_staged128 with K split over S CTAs per tile, for unaligned shapes
// with few tiles and a long K.
//
// Predecessor: wgmma_staged128. Its persistent grid runs one CTA per 128x128 tile, K walked in a
// row: at 89x1373x2499 (N odd) 11 CTAs of 132 SMs work; at 212x4171x8439, 66. skinny_any, which
// splits K, takes such shapes in best-fp16 but its mma.sync tiles ran them at 50-73% of cuBLAS
// GemmEx (H200, the unseen suite). Idea: the same staging copy and grid barrier
// (kernels/staged_operands.cuh), then wgmma_splitk128's body over the copies (SPLIT,
// STAGED_FEED): every split writes its FP32 partial to a module workspace, the last to arrive sums
// them in split order and stores the tile.
//
// S (in the manifest's grid): max(1, min(16, K // 256, SMS // tiles)), tiles = cdiv(M, 128) *
// cdiv(N, 128): at least 4 k tiles a split, at most 16 partials summed by one CTA, at most one CTA
// per SM, so the cooperative grid of min(SMS, tiles * S) is resident. Where tiles > SMS, S = 1 and
// the grid is wgmma_staged128's persistent one. S * tiles <= SMS partial tiles of 64 KB fit the
// workspace (WS_FLOATS, 16 MiB).
//
// Contract: block (384), grid (min(SMS, tiles * S)), launched cooperatively, 197,760 bytes of
// dynamic shared memory; sm_90a. Any M, N, K >= 1; A, B 4-byte aligned. beta == 0: C is not read.
// Launches must not overlap in time (one grid barrier and one workspace per loaded module).
// Kernel parameters: the fixed list, the staging buffers of A and B (null: not staged), then the
// tensor maps of A and B.

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
#define WS_FLOATS (1LL << 22)                        // partial tiles: 16 MiB, 256 of 128x128
#define MAX_TILES 4096                               // arrival counters
static_assert(SMEM_BYTES == wgfp16::smem_bytes<BN, STAGES>(), "SMEM_BYTES is the body's layout");
static_assert(NTHREADS == wgfp16::THREADS, "one producer and two consumer warpgroups");

__device__ staged::GridBarrier g_barrier;            // zero at module load
__device__ __align__(16) float g_partials[WS_FLOATS];
__device__ unsigned g_counters[MAX_TILES];           // zero at module load; the last split resets its own

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
hgemm_wgmma_stagedsplit128(int M, int N, int K, float alpha, const __half* __restrict__ A,
                           const __half* __restrict__ B, float beta, float* __restrict__ C,
                           __half* __restrict__ As, __half* __restrict__ Bs,
                           const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    staged::stage<STAGING_PITCH_BYTES / 2>(M, N, K, A, B, As, Bs, &g_barrier);
    wgfp16::gemm<BN, STAGES, GROUP, wgfp16::SPLIT, wgfp16::STAGED_FEED>(
        M, N, K, alpha, beta, C, &tmA, &tmB, smem_raw, wgfp16::Workspace{g_partials, g_counters, WS_FLOATS, MAX_TILES});
}
