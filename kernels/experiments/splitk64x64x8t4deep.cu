// splitk64x64x8t4deep (experiment): splitk64x64x8t4 with twice the splits (two blocks' worth per SM slot), groups of 16.
//
// Predecessor: splitk64x64x8t4. Idea: the same kernel (kernels/t4_tile.cuh, 64x64 tiles of 256
// threads) under a deeper split policy: about 1056 blocks (two per block slot of a 132-SM GPU at
// four per SM), ranges of at least 16 of K, up to 128 splits summed in groups of 16. Shorter
// ranges and a second wave that fills the holes the first leaves, against more partials to sum
// (at most 16 + 8 per tile) and more fix-up round trips.
// Occupancy: launch bounds (256, 4): at most 64 registers, 16,900 bytes of shared memory; four
// blocks (32 warps) per SM.
//
// S (the manifest's grid z): max(1, min(128, K // 16, 1056 // tiles)) with tiles = cdiv(M, 64) *
// cdiv(N, 64). S * tiles * 64 * 64 <= 1056 * 4096 floats whenever S > 1, inside the 2^23 floats of
// the workspace; tiles * (cdiv(S, 16) + 1) <= 1056 counters, of 16384.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module).
// Launch: block (256), grid (cdiv(N, 64), cdiv(M, 64), S); 16,900 bytes of static shared memory.

#include "../t4_tile.cuh"

#define BM 64
#define BN 64
#define NTHREADS 256              // BM * BN / 16: 4x4 results per thread
#define GROUP 16                  // splits summed by the last of each group, then the groups' sums
#define WS_FLOATS (1LL << 23)     // partial tiles: 32 MiB
#define MAX_COUNTERS (1 << 14)    // arrival counters: groups and tiles

static_assert(t4::Tile<BM, BN>::NT == NTHREADS, "block size");

__device__ __align__(16) float g_partials[WS_FLOATS];
__device__ unsigned g_counters[MAX_COUNTERS];  // zero at module load; each last arrival resets its own

extern "C" __global__ void __launch_bounds__(NTHREADS, 4)
sgemm_splitk64x64x8t4deep(int M, int N, int K, float alpha, const float* __restrict__ A,
                          const float* __restrict__ B, float beta, float* __restrict__ C)
{
    t4::gemm<BM, BN, GROUP>(M, N, K, alpha, A, B, beta, C, ragged::Workspace{g_partials, g_counters, WS_FLOATS, MAX_COUNTERS});
}
