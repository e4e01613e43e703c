// wgmma_tailstore: wgmma_stagedstore with the last, partial wave of tiles split along K.
//
// Predecessor: wgmma_stagedstore. Its persistent grid runs 800 tiles of 128x256 at 5000^3 and
// 5120^3 on 132 SMs: 6.06 tiles a CTA, so 8 CTAs run a seventh tile while 124 wait; the profile at
// 5000^3 has the tensor pipe at its peak until the last 13% of the launch, which it spends at 6%
// of it (H200, benchmarks/results/2026-11-29-h200, stagedstore-5000). Idea: wgmma_tailsplit's
// schedule (kernels/wgmma_fp16.cuh, Sched TAIL) under the TMA-store epilogue: the tiles of the
// full waves run whole; each of the R = tiles % grid tiles left is cut into S = min(grid / R,
// kTiles / 4, 16) k ranges, one per CTA; every split writes its FP32 partial to a module
// workspace and the last to arrive sums them in split order, loads C (beta != 0) and stores the
// tile through the staging buffers by TMA. The copies of operands whose rows are not whole sectors
// come first, as in wgmma_stagedstore.
//
// Contract: block (384), grid (min(SMS, tiles * cdiv(K, 256)), tiles = cdiv(M, 128) * cdiv(N,
// 256)), launched cooperatively, 230,528 bytes of dynamic shared memory; sm_90a. M, K any; N a
// multiple of 8; A, B 4-byte aligned. beta == 0: C is not read. Launches must not overlap in time
// (one grid barrier and one workspace per loaded module). Kernel parameters: the fixed list, the
// staging buffers of A and B (null: not staged), then the tensor maps of A, B and C.

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
#define WS_FLOATS (1LL << 23)                        // partial tiles: 32 MiB, 256 of 128x256 (a grid of 132 needs 132)
#define MAX_TILES 4096                               // arrival counters
static_assert(SMEM_BYTES == wgfp16::smem_bytes_tmastore<BN, STAGES, TMA_BUFS>(), "SMEM_BYTES is the body's layout");
static_assert(NTHREADS == wgfp16::THREADS, "one producer and two consumer warpgroups");

__device__ staged::GridBarrier g_barrier;            // zero at module load
__device__ __align__(16) float g_partials[WS_FLOATS];
__device__ unsigned g_counters[MAX_TILES];           // zero at module load; the last split resets its own

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
hgemm_wgmma_tailstore(int M, int N, int K, float alpha, const __half* __restrict__ A,
                      const __half* __restrict__ B, float beta, float* __restrict__ C,
                      __half* __restrict__ As, __half* __restrict__ Bs,
                      const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
                      const __grid_constant__ CUtensorMap tmC)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    staged::stage<STAGING_PITCH_BYTES / 2>(M, N, K, A, B, As, Bs, &g_barrier);
    wgfp16::gemm<BN, STAGES, GROUP, wgfp16::TAIL, wgfp16::TMA_FEED, TMA_BUFS>(
        M, N, K, alpha, beta, C, &tmA, &tmB, smem_raw, wgfp16::Workspace{g_partials, g_counters, WS_FLOATS, MAX_TILES}, {},
        &tmC);
}
