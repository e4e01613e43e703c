// splitk128x128x8: ragged128x128x8 with K split over gridDim.z blocks per tile, for small M*N with large K.
//
// Predecessor: ragged128x128x8. At 1024x1024x8192 a 128x128 tile gives 64 blocks, each
// running 1024 k tiles in a row, while 68 of 132 SMs idle. Idea: split K into S = gridDim.z
// ranges; each split multiplies its range into a partial tile, writes it to a module-scope
// workspace and counts itself in on the tile's counter; the split that arrives last sums the S
// partials in the fixed order z = 0..S-1 (the result does not depend on arrival order), writes
// C = alpha * sum + beta * C (reading C once, only when beta != 0) and resets the counter. No
// block ever waits for another (kernels/ragged_tile.cuh gives the details).
//
// S (the manifest's grid z): max(1, min(64, K // 512, 264 // tiles)) with tiles = cdiv(M, 128) *
// cdiv(N, 128): at most 264 blocks (two per SM of a 132-SM GPU) and at least 512 of K per split.
// So S * tiles * 128 * 128 <= 264 * 16384 floats, well inside the workspace of 2^23 floats
// (32 MiB), and tiles <= 16384 counters whenever S > 1. A grid that does not fit anyway (another
// grid expression) falls back to split 0 multiplying the whole K.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module).
// Launch: block (256), grid (cdiv(N, 128), cdiv(M, 128), S); 33,280 bytes of static shared memory.

#include "ragged_tile.cuh"

#define BM 128
#define BN 128
#define NTHREADS 256                 // (BM / 64) * (BN / 32) warps
#define WS_FLOATS (1LL << 23)        // partial tiles: 32 MiB
#define MAX_TILES (1 << 14)          // one arrival counter per tile of C

static_assert(ragged::Tile<BM, BN>::NT == NTHREADS, "block size");

__device__ __align__(16) float g_partials[WS_FLOATS];  // float4 partials
__device__ unsigned g_counters[MAX_TILES];  // zero at module load; the last split resets its own

extern "C" __global__ void __launch_bounds__(NTHREADS, 2)
sgemm_splitk128x128x8(int M, int N, int K, float alpha, const float* __restrict__ A,
                      const float* __restrict__ B, float beta, float* __restrict__ C)
{
    ragged::gemm<BM, BN>(M, N, K, alpha, A, B, beta, C, ragged::Workspace{g_partials, g_counters, WS_FLOATS, MAX_TILES});
}
