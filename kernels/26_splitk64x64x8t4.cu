// splitk64x64x8t4: splitk64x64x8's 64x64 tiles computed by 256 threads at 4x4 results each, split-K summed in a fixed-order tree: small and K-large shapes.
//
// Predecessor: splitk64x64x8. Its 64x64 tile is two warps of 8x8 results per thread: at 256^3 ..
// 1024^3 and at K-large shapes with small M*N an SM holds a few warps, each walking every k step of
// its range in turn (latency-bound; 256^3 ran in 25.7 us where cuBLAS, with 32x32 tiles split 4
// ways and a reduce kernel, took 12.7). Idea: the same tile and pipeline with eight warps of 4x4
// results per thread (kernels/t4_tile.cuh), so a block walks each k step in a quarter of the
// time; more splits (ranges of at least 32 of K, up to 64 splits, about 528 blocks: four per SM
// of 132) summed in groups of 8 by the last arrival of each group, then by the last group, so
// the block that stores C reads at most 8 + 8 partials (not 64: the serial tail at K-large).
// Occupancy: launch bounds (256, 4): at most 64 registers, 16,900 bytes of shared memory; four
// blocks (32 warps) per SM.
//
// S (the manifest's grid z): max(1, min(64, K // 32, 528 // tiles)) with tiles = cdiv(M, 64) *
// cdiv(N, 64). S * tiles * 64 * 64 <= 528 * 4096 floats whenever S > 1, inside the workspace of
// 2^23 floats (32 MiB); tiles * (cdiv(S, 8) + 1) <= 528 counters, of 16384. A grid that does not
// fit anyway falls back to split 0 multiplying the whole K.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module).
// Launch: block (256), grid (cdiv(N, 64), cdiv(M, 64), S); 16,900 bytes of static shared memory.

#include "t4_tile.cuh"

#define BM 64
#define BN 64
#define NTHREADS 256              // BM * BN / 16: 4x4 results per thread
#define GROUP 8                   // splits summed by the last of each group, then the groups' sums
#define WS_FLOATS (1LL << 23)     // partial tiles: 32 MiB
#define MAX_COUNTERS (1 << 14)    // arrival counters: groups and tiles

static_assert(t4::Tile<BM, BN>::NT == NTHREADS, "block size");

__device__ __align__(16) float g_partials[WS_FLOATS];  // float4 partials
__device__ unsigned g_counters[MAX_COUNTERS];  // zero at module load; each last arrival resets its own

extern "C" __global__ void __launch_bounds__(NTHREADS, 4)
sgemm_splitk64x64x8t4(int M, int N, int K, float alpha, const float* __restrict__ A,
                      const float* __restrict__ B, float beta, float* __restrict__ C)
{
    t4::gemm<BM, BN, GROUP>(M, N, K, alpha, A, B, beta, C, ragged::Workspace{g_partials, g_counters, WS_FLOATS, MAX_COUNTERS});
}
