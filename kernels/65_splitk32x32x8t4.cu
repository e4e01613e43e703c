// splitk32x32x8t4: splitk64x64x8t4 on 32x32 tiles of two warps: four times the tiles, for small products.
//
// Predecessor: splitk64x64x8t4. Its 64x64 tiles of eight warps, four blocks an SM, leave small
// products few blocks, and those unevenly spread: at 1362x925x247 its 330 blocks give 66 SMs three
// and 66 two, the SMs are busy 70% of the launch and its last third runs on 30% of them (64% of
// cuBLAS under ncu; cuBLAS ran 645 blocks of 32x64 there). At 256^3 cuBLAS runs 32x32x8 tiles of
// 64 threads split 4 ways (then a reduce kernel). Idea: kernels/t4_tile.cuh's 4x4 results per
// thread on a 32x32 tile (64 threads), sixteen blocks an SM: four times the blocks, so they spread
// evenly and fewer splits (shorter fix-ups, partials a quarter the size) fill the GPU; each
// element of A or B loaded is used 32 times, not 64 (twice the L2 traffic per FFMA: for small
// products, not large ones).
//
// Occupancy: launch bounds (64, 16): at most 64 registers, 8,708 bytes of shared memory; sixteen
// blocks (32 warps) per SM.
//
// S (the manifest's grid z): max(1, min(64, K // 32, 2112 // tiles)) with tiles = cdiv(M, 32) *
// cdiv(N, 32): about 2112 blocks (sixteen per SM of 132). S * tiles * 32 * 32 <= 2112 * 1024
// floats whenever S > 1, inside the 2^23 floats of the workspace; tiles * (cdiv(S, 8) + 1) <= 2112
// counters, of 16384.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module).
// Launch: block (64), grid (cdiv(N, 32), cdiv(M, 32), S); 8,708 bytes of static shared memory.

#include "t4_tile.cuh"

#define BM 32
#define BN 32
#define NTHREADS 64               // BM * BN / 16: 4x4 results per thread
#define GROUP 8                   // splits summed by the last of each group, then the groups' sums
#define WS_FLOATS (1LL << 23)     // partial tiles: 32 MiB
#define MAX_COUNTERS (1 << 14)    // arrival counters: groups and tiles

static_assert(t4::Tile<BM, BN>::NT == NTHREADS, "block size");

__device__ __align__(16) float g_partials[WS_FLOATS];
__device__ unsigned g_counters[MAX_COUNTERS];  // zero at module load; each last arrival resets its own

extern "C" __global__ void __launch_bounds__(NTHREADS, 16)
sgemm_splitk32x32x8t4(int M, int N, int K, float alpha, const float* __restrict__ A,
                      const float* __restrict__ B, float beta, float* __restrict__ C)
{
    t4::gemm<BM, BN, GROUP>(M, N, K, alpha, A, B, beta, C, ragged::Workspace{g_partials, g_counters, WS_FLOATS, MAX_COUNTERS});
}
