// wgmma_splitk128: wgmma_persist128 with K split over S CTAs per tile, for few tiles and long K.
//
// Predecessor: wgmma_persist128. At 1024x1024x8192 the 128x128 tiles are 64 for 132 SMs, each
// running 128 k tiles in a row: half the GPU idles (cuBLAS splits K there); 128x128x65536 is one
// tile, one SM. Idea: S = gridDim.x / tiles CTAs per tile, each multiplying one k range into a
// partial tile; every split writes its FP32 partial to a module-scope workspace and counts itself
// in on the tile's counter, and the last to arrive sums the S partials in split order and runs
// the epilogue (kernels/wgmma_fp16.cuh, SPLIT). No CTA waits for another, so any grid runs.
//
// S (in the manifest's grid): max(1, min(32, K // 1024, SMS // tiles)), tiles = cdiv(M, 128) *
// cdiv(N, 128): at most one CTA per SM, at least 16 k tiles per split. Then S * tiles <= SMS
// partial tiles of 64 KB, inside the workspace (WS_FLOATS, 16 MiB: 256 of them); a grid that does
// not fit runs unsplit. Launches must not overlap in time (one workspace per loaded module).
//
// Contract: block (384), grid (tiles * S), 197,760 bytes of dynamic shared memory; sm_90a. M
// any; N and K multiples of 8. beta == 0: C is not read. Kernel parameters: the fixed list, then
// the tensor maps of A and B.

#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include "wgmma_fp16.cuh"

#define BN 128
#define STAGES 6
#define GROUP 16                                     // tile rows per raster group
#define NTHREADS 384
#define SMEM_BYTES (STAGES * (128 * 64 * 2 + BN / 64 * 8192) + 1024 + 128)  // 197,760: the manifest's
#define WS_FLOATS (1LL << 22)                        // partial tiles: 16 MiB, 256 of 128x128
#define MAX_TILES 4096                               // arrival counters
static_assert(SMEM_BYTES == wgfp16::smem_bytes<BN, STAGES>(), "SMEM_BYTES is the body's layout");
static_assert(NTHREADS == wgfp16::THREADS, "one producer and two consumer warpgroups");

__device__ __align__(16) float g_partials[WS_FLOATS];
__device__ unsigned g_counters[MAX_TILES];           // zero at module load; the last split resets its own

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
hgemm_wgmma_splitk128(int M, int N, int K, float alpha, const __half* __restrict__ A,
                      const __half* __restrict__ B, float beta, float* __restrict__ C,
                      const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    wgfp16::gemm<BN, STAGES, GROUP, wgfp16::SPLIT>(M, N, K, alpha, beta, C, &tmA, &tmB, smem_raw,
                                                   wgfp16::Workspace{g_partials, g_counters, WS_FLOATS, MAX_TILES});
}
