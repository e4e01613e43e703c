// streamk64x32x8: streamk64x64x8 with one-warp 64x32 tiles and 1056 blocks: small M*N (256^3 .. 1023^3, K-large) fills every SM.
//
// Predecessor: streamk64x64x8. At 256^3 there are 16 tiles of 64x64 and 512 k iterations in
// all: 528 blocks get one each, and every tile is summed from 32 partials; ragged64x64x8 ran it
// in 27.6 us against cuBLAS's 13.6. Idea: halve the tile (one 64x32 warp per block, 12,820 bytes
// of shared memory; 189 registers, bounded for eight blocks per SM) so the same problem has twice
// the iterations at half the cost each, and let G = 1056 (eight one-warp blocks per SM) take at
// least 4 k tiles each.
// Odd N (1023^3) copies B as scalars (ragged_tile.cuh), A is always copied as scalars; C is
// stored as float4 where N % 4 == 0.
//
// G (the manifest's grid x): max(1, min(1056, tiles * cdiv(K, 8) // 4)), tiles = cdiv(M, 64) * cdiv(N, 32).
// Workspace: a plan needs fewer than 3 * 1056 slots of 64x32 floats, of the 4096 in 2^23 floats
// (32 MiB); counters: fewer than 2 * 1056, of 4096. A grid that does not fit runs every tile whole.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module).
// Launch: block (32), grid (G); 12,820 bytes of static shared memory.

#include "streamk.cuh"

#define BM 64
#define BN 32
#define NTHREADS 32               // (BM / 64) * (BN / 32) warps
#define WS_FLOATS (1LL << 23)     // 4096 partial tiles: 32 MiB
#define MAX_TILES 4096            // one arrival counter per stream-K tile

static_assert(ragged::Tile<BM, BN>::NT == NTHREADS, "block size");

__device__ __align__(16) float g_partials[WS_FLOATS];
__device__ unsigned g_counters[MAX_TILES];  // zero at module load; each tile's last block resets its own

extern "C" __global__ void __launch_bounds__(NTHREADS, 8)
sgemm_streamk64x32x8(int M, int N, int K, float alpha, const float* __restrict__ A,
                     const float* __restrict__ B, float beta, float* __restrict__ C)
{
    streamk::gemm<BM, BN>(M, N, K, alpha, A, B, beta, C, ragged::Workspace{g_partials, g_counters, WS_FLOATS, MAX_TILES});
}
