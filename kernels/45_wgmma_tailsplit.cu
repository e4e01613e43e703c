// wgmma_tailsplit: wgmma_persist whose last, partial wave of tiles is split along K to fill the GPU.
//
// Predecessor: wgmma_persist. Wave quantisation: at 3000^3 the 128x256 tiles are 24 x 12 = 288
// for 132 SMs, 2 full waves and 24 tiles, so the third wave runs 24 SMs while 108 idle and the
// kernel takes 3 tile times for 2.2 tiles of work (wgmma_persist: 46% of cuBLAS there). Idea
// (kernels/wgmma_fp16.cuh, Sched TAIL): the tiles of the full waves run whole as before; each of
// the R = tiles % grid tiles left is cut into S = min(grid / R, kTiles / 4, 16) k ranges, one per
// CTA, so the last wave occupies R * S CTAs and takes about 1/S of a tile time plus the partials'
// round trip through L2 (each split writes a 128 KB partial to a module workspace; the last to
// arrive sums the S of them in split order and runs the epilogue; no CTA waits for another).
//
// Contract: block (384), grid (min(132, tiles * cdiv(K, 256)), tiles = cdiv(M, 128) * cdiv(N, 256)),
// 197,760 bytes of dynamic shared memory; sm_90a. M any; N and K multiples of 8. beta == 0: C is
// not read. Launches must not overlap in time (one workspace per loaded module). Kernel
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
#define WS_FLOATS (1LL << 23)                        // partial tiles: 32 MiB, 256 of 128x256 (a grid of 132 needs 132)
#define MAX_TILES 4096                               // arrival counters
static_assert(SMEM_BYTES == wgfp16::smem_bytes<BN, STAGES>(), "SMEM_BYTES is the body's layout");
static_assert(NTHREADS == wgfp16::THREADS, "one producer and two consumer warpgroups");

__device__ __align__(16) float g_partials[WS_FLOATS];
__device__ unsigned g_counters[MAX_TILES];           // zero at module load; the last split resets its own

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
hgemm_wgmma_tailsplit(int M, int N, int K, float alpha, const __half* __restrict__ A,
                      const __half* __restrict__ B, float beta, float* __restrict__ C,
                      const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    wgfp16::gemm<BN, STAGES, GROUP, wgfp16::TAIL>(M, N, K, alpha, beta, C, &tmA, &tmB, smem_raw,
                                                  wgfp16::Workspace{g_partials, g_counters, WS_FLOATS, MAX_TILES});
}
