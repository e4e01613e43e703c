// splitk64x64x8: splitk128x128x8's split-K on ragged64x64x8's 64x64 tiles, for grids that stay small even split.
//
// Predecessor: splitk128x128x8. At 512^3 a 128x128 tile gives 16 blocks and K = 512 is too
// short to split into 512-long ranges; ragged64x64x8's 64x64 tiles give 64 blocks of two warps on 132 SMs.
// Idea: 64x64 tiles (ragged64x64x8) with K split over gridDim.z (splitk128x128x8: partials in a module workspace, the
// last split to arrive sums them in the fixed order z = 0..S-1, writes C and resets the tile's
// counter; kernels/ragged_tile.cuh gives the details), with shorter ranges (at least 128 of K).
//
// S (the manifest's grid z): max(1, min(64, K // 128, 792 // tiles)) with tiles = cdiv(M, 64) *
// cdiv(N, 64): at most 792 blocks (six per SM of a 132-SM GPU: 151 registers). So S * tiles * 64 * 64 <=
// 792 * 4096 floats, inside the workspace of 2^23 floats (32 MiB), and tiles <= 16384 counters
// whenever S > 1. A grid that does not fit anyway falls back to split 0 multiplying the whole K.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module).
// Launch: block (64), grid (cdiv(N, 64), cdiv(M, 64), S); 16,900 bytes of static shared memory.

#include "ragged_tile.cuh"

#define BM 64
#define BN 64
#define NTHREADS 64                  // (BM / 64) * (BN / 32) warps
#define WS_FLOATS (1LL << 23)        // partial tiles: 32 MiB
#define MAX_TILES (1 << 14)          // one arrival counter per tile of C

static_assert(ragged::Tile<BM, BN>::NT == NTHREADS, "block size");

__device__ __align__(16) float g_partials[WS_FLOATS];  // float4 partials
__device__ unsigned g_counters[MAX_TILES];  // zero at module load; the last split resets its own

extern "C" __global__ void __launch_bounds__(NTHREADS, 6)
sgemm_splitk64x64x8(int M, int N, int K, float alpha, const float* __restrict__ A,
                    const float* __restrict__ B, float beta, float* __restrict__ C)
{
    ragged::gemm<BM, BN>(M, N, K, alpha, A, B, beta, C, ragged::Workspace{g_partials, g_counters, WS_FLOATS, MAX_TILES});
}
