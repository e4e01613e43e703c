// splitk64x32x8t4 (experiment): splitk64x64x8t4 on 64x32 tiles of four warps: twice the tiles, for small M*N.
//
// Predecessor: splitk64x64x8t4. Idea: kernels/t4_tile.cuh's 4x4 results per thread on a 64x32
// tile (128 threads): between the 32x32 tile's many small blocks and the 64x64 tile's few large
// ones; twice the tiles of splitk64x64x8t4, so half the splits fill the GPU at small M*N, with
// each element of B loaded used 64 times and of A 32 times.
// Occupancy: launch bounds (128, 7): at most 72 registers (at 64 ptxas spills), 12,804 bytes of
// shared memory; seven blocks (28 warps) per SM.
//
// S (the manifest's grid z): max(1, min(64, K // 32, 924 // tiles)) with tiles = cdiv(M, 64) *
// cdiv(N, 32): about 924 blocks (seven per SM of 132). S * tiles * 64 * 32 <= 924 * 2048 floats
// whenever S > 1, inside the 2^23 floats of the workspace; tiles * (cdiv(S, 8) + 1) <= 924
// counters, of 16384.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module).
// Launch: block (128), grid (cdiv(N, 32), cdiv(M, 64), S); 12,804 bytes of static shared memory.

#include "../t4_tile.cuh"

#define BM 64
#define BN 32
#define NTHREADS 128              // BM * BN / 16: 4x4 results per thread
#define GROUP 8                   // splits summed by the last of each group, then the groups' sums
#define WS_FLOATS (1LL << 23)     // partial tiles: 32 MiB
#define MAX_COUNTERS (1 << 14)    // arrival counters: groups and tiles

static_assert(t4::Tile<BM, BN>::NT == NTHREADS, "block size");

__device__ __align__(16) float g_partials[WS_FLOATS];
__device__ unsigned g_counters[MAX_COUNTERS];  // zero at module load; each last arrival resets its own

extern "C" __global__ void __launch_bounds__(NTHREADS, 7)
sgemm_splitk64x32x8t4(int M, int N, int K, float alpha, const float* __restrict__ A,
                      const float* __restrict__ B, float beta, float* __restrict__ C)
{
    t4::gemm<BM, BN, GROUP>(M, N, K, alpha, A, B, beta, C, ragged::Workspace{g_partials, g_counters, WS_FLOATS, MAX_COUNTERS});
}
