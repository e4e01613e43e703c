// wgmma_tailsplit128: wgmma_tailsplit on 128x128 tiles: the last partial wave split along K, and
// shapes of fewer tiles than SMs split whole (1024^3: 64 tiles on 132 SMs, 2 splits each).
//
// Predecessor: wgmma_tailsplit. Where 128x256 tiles are too few to share out (1000^3, 1024^3,
// 512^3, 1024x1024x8192: at most 32 tiles), 128x128 tiles halve a tile's time and double their
// number, and Sched TAIL cuts the tiles of the last wave (all tiles, when they are fewer than the
// grid) into S = min(grid / R, kTiles / 4, 16) k ranges. Unlike wgmma_splitk128, S does not wait
// for K >= 1024 per split: 1024^3 (64 tiles, 16 k tiles) runs 2 splits of 8 k tiles.
//
// Contract: block (384), grid (min(132, tiles * cdiv(K, 256)), tiles = cdiv(M, 128) * cdiv(N, 128)),
// 197,760 bytes of dynamic shared memory; sm_90a. M any; N and K multiples of 8. beta == 0: C is
// not read. Launches must not overlap in time (one workspace per loaded module). Kernel
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
#define WS_FLOATS (1LL << 22)                        // partial tiles: 16 MiB, 256 of 128x128 (a grid of 132 needs 132)
#define MAX_TILES 4096                               // arrival counters
static_assert(SMEM_BYTES == wgfp16::smem_bytes<BN, STAGES>(), "SMEM_BYTES is the body's layout");
static_assert(NTHREADS == wgfp16::THREADS, "one producer and two consumer warpgroups");

__device__ __align__(16) float g_partials[WS_FLOATS];
__device__ unsigned g_counters[MAX_TILES];           // zero at module load; the last split resets its own

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
hgemm_wgmma_tailsplit128(int M, int N, int K, float alpha, const __half* __restrict__ A,
                         const __half* __restrict__ B, float beta, float* __restrict__ C,
                         const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    wgfp16::gemm<BN, STAGES, GROUP, wgfp16::TAIL>(M, N, K, alpha, beta, C, &tmA, &tmB, smem_raw,
                                                  wgfp16::Workspace{g_partials, g_counters, WS_FLOATS, MAX_TILES});
}
