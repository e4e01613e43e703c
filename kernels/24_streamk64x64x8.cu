// streamk64x64x8: streamk128x128x8's schedule on ragged64x64x8's 64x64 tiles, 528 blocks: for problems of a few waves or less.
//
// Predecessor: streamk128x128x8. With 128x128 tiles a 512^3 or 1024^3 problem has 16 or 64 tiles,
// so 264 blocks split each into many short runs whose fix-up costs more than they save; and
// ragged64x64x8's one block per tile leaves 1536^3 (576 tiles) at 4.4 waves. Idea: the same
// hybrid stream-K (kernels/streamk.cuh) with 64x64 tiles of two warps and G = 528 (four blocks,
// eight warps per SM), at least 4 k tiles (32 of K) per block.
//
// G (the manifest's grid x): max(1, min(528, tiles * cdiv(K, 8) // 4)), tiles = cdiv(M, 64) * cdiv(N, 64).
// Workspace: a plan needs fewer than 3 * 528 slots of 64x64 floats, of the 2048 in 2^23 floats
// (32 MiB); counters: fewer than 2 * 528, of 2048. A grid that does not fit runs every tile whole.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module).
// Launch: block (64), grid (G); 16,916 bytes of static shared memory.

#include "streamk.cuh"

#define BM 64
#define BN 64
#define NTHREADS 64               // (BM / 64) * (BN / 32) warps
#define WS_FLOATS (1LL << 23)     // 2048 partial tiles: 32 MiB
#define MAX_TILES 2048            // one arrival counter per stream-K tile

static_assert(ragged::Tile<BM, BN>::NT == NTHREADS, "block size");

__device__ __align__(16) float g_partials[WS_FLOATS];
__device__ unsigned g_counters[MAX_TILES];  // zero at module load; each tile's last block resets its own

extern "C" __global__ void __launch_bounds__(NTHREADS, 8)
sgemm_streamk64x64x8(int M, int N, int K, float alpha, const float* __restrict__ A,
                     const float* __restrict__ B, float beta, float* __restrict__ C)
{
    // Epilogue reads of C interleaved with its writes: reading ahead spilled at 128 registers.
    streamk::gemm<BM, BN, false>(M, N, K, alpha, A, B, beta, C, ragged::Workspace{g_partials, g_counters, WS_FLOATS, MAX_TILES});
}
