// streamk128x128x8: ragged128x128x8's tile under a hybrid stream-K schedule: 264 persistent blocks share the k iterations evenly.
//
// Predecessor: ragged128x128x8. Its grid is one block per 128x128 tile, two blocks per SM: at
// 2500^3 that is 400 tiles = 1.5 waves of 264 (the second half empty), at 1536^3 144 tiles on
// 264 slots. Idea: G = gridDim.x persistent blocks (264 = two per SM of a 132-SM H100 or H200,
// fewer when the problem has under 8 k tiles per block); whole waves of tiles stay one block per
// tile, and the last partial wave with the full one before it is cut into G equal runs of
// k tiles that cross tile boundaries; split tiles are summed in fixed order from a module
// workspace by whichever block arrives last (kernels/streamk.cuh gives the schedule).
//
// G (the manifest's grid x): max(1, min(264, tiles * cdiv(K, 8) // 8)), tiles = cdiv(M, 128) * cdiv(N, 128).
// Workspace: slots of 128x128 floats; a plan needs G + (stream-K tiles) - 1 < 3 * 264 of them,
// inside the 1024 of 2^24 floats (64 MiB); counters: fewer than 2 * 264 stream-K tiles, of 1024.
// A grid that does not fit anyway (another grid expression) runs every tile whole.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module).
// Launch: block (256), grid (G); 33,300 bytes of static shared memory.

#include "streamk.cuh"

#define BM 128
#define BN 128
#define NTHREADS 256              // (BM / 64) * (BN / 32) warps
#define WS_FLOATS (1LL << 24)     // 1024 partial tiles: 64 MiB
#define MAX_TILES 1024            // one arrival counter per stream-K tile

static_assert(ragged::Tile<BM, BN>::NT == NTHREADS, "block size");

__device__ __align__(16) float g_partials[WS_FLOATS];
__device__ unsigned g_counters[MAX_TILES];  // zero at module load; each tile's last block resets its own

extern "C" __global__ void __launch_bounds__(NTHREADS, 2)
sgemm_streamk128x128x8(int M, int N, int K, float alpha, const float* __restrict__ A,
                       const float* __restrict__ B, float beta, float* __restrict__ C)
{
    streamk::gemm<BM, BN>(M, N, K, alpha, A, B, beta, C, ragged::Workspace{g_partials, g_counters, WS_FLOATS, MAX_TILES});
}
