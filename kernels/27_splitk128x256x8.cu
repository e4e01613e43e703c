// splitk128x256x8: ragged128x256x8's tile with K split over gridDim.z blocks per tile, the
// partials summed in a fixed-order tree: the fastest FP32 tile for small M*N with large K.
//
// Predecessor: ragged128x256x8, 101-103% of cuBLAS on the H100 wherever its grid fills the SMs.
// At 512x512x16384 it has 8 tiles (8 of 132 SMs busy) and the split rungs that fill the GPU there
// run 128x128 or 64x64 tiles, 70-86% of cuBLAS at K-large shapes (streamk128x128x8 76%). Idea:
// keep the 128x256 tile and split K instead: S = gridDim.z ranges of k tiles per tile, about one
// block per SM in all, each range's partial summed in groups (kernels/fold.cuh) so that no block
// reads more than about 2 * sqrt(S) partials of 128 KiB.
//
// S (the manifest's grid z): max(1, min(64, K // 512, 132 // tiles)) with tiles = cdiv(M, 128) *
// cdiv(N, 256): at most 132 blocks (one per SM of a 132-SM GPU) and at least 512 of K per split.
// So S * tiles * 128 * 256 <= 132 * 32768 floats, inside the workspace of 2^23 floats (32 MiB).
// Groups: G = S when S <= 4 (one level), else the least G with G * G >= S. A grid that does not
// fit the workspace anyway (another grid expression) falls back to split 0 multiplying all of K.
// Split z multiplies k tiles [z * kTiles / S, (z + 1) * kTiles / S): balanced, none empty at S <= kTiles.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module).
// Launch: block (256), grid (cdiv(N, 256), cdiv(M, 128), S), 49,664 bytes of dynamic shared
// memory; one block per SM; sm_80+.

#include <cstdint>

#include "fold.cuh"
#include "spread_tile.cuh"

#define WS_FLOATS (1LL << 23)     // partial tiles: 32 MiB
#define MAX_COUNTERS (1 << 14)    // arrival counters: groups and tiles

using Tile128x256 = spread::Tile<128, 256>;
static_assert(Tile128x256::SMEM_BYTES == 49664, "update smem_bytes in kernels/ladder.toml");

__device__ __align__(16) float g_partials[WS_FLOATS];  // float4 partials
__device__ unsigned g_counters[MAX_COUNTERS];  // zero at module load; each last arrival resets its own

// This block's range of k tiles of its tile, its partial through the tree, C by the block that
// ends up holding the sum (or by split 0 alone when the grid does not fit the workspace).
struct SplitTree : Tile128x256 {
    template <bool EDGE, bool VEC_B, class Place>
    static __device__ __forceinline__ void run(float* smem, int M, int N, int K, float alpha, const float* __restrict__ A,
                                               const float* __restrict__ B, float beta, float* __restrict__ C, const Place& at)
    {
        // The tree's arrival flag, in dynamic shared memory: a static __shared__ variable would move the
        // dynamic tile 16 bytes off 128, doubling B's L2 sectors and cp.async wavefronts.
        int& last = reinterpret_cast<int*>(smem)[SMEM_BYTES / 4 - 1];  // past the epilogue's staging
        const int bm = at.tm() * BM, bn = at.tn() * BN;
        const int kTiles = (K + BK - 1) / BK;
        const int splits = gridDim.z, tiles = gridDim.x * gridDim.y;
        int G = splits;
        if (splits > 4)
            for (G = 1; G * G < splits; ++G) {
            }
        const bool fits = splits > 1 && (long long)splits * tiles * (BM * BN) <= WS_FLOATS
                          && fold::counters(tiles, splits, G) <= MAX_COUNTERS;
        if (!fits && blockIdx.z != 0) return;  // split 0 takes all of K and stores C
        const int t0 = fits ? (int)((long long)blockIdx.z * kTiles / splits) : 0;
        const int t1 = fits ? (int)((long long)(blockIdx.z + 1) * kTiles / splits) : kTiles;
        const spread::Lanes ln = lanes();
        float acc[16][8];
        // The range as a GEMM of its own (A, B moved to its first k): the same main loop as ragged128x256x8's.
        multiply<EDGE, VEC_B>(acc, smem, M, N, K, K - t0 * BK, A + t0 * BK, B + (size_t)t0 * BK * N, bm, bn, t1 - t0, ln);
        if (fits) {
            const ragged::Workspace ws{g_partials, g_counters, WS_FLOATS, MAX_COUNTERS};
            if (!fold::tree<NTHREADS>(acc, ws, blockIdx.y * gridDim.x + blockIdx.x, tiles, blockIdx.z, splits, G, last)) return;
        }
        store<EDGE, VEC_B>(acc, smem, M, N, alpha, beta, C, bm, bn, ln);
    }
};

extern "C" __global__ void __launch_bounds__(Tile128x256::NTHREADS, 1)
sgemm_splitk128x256x8(int M, int N, int K, float alpha, const float* __restrict__ A,
                      const float* __restrict__ B, float beta, float* __restrict__ C)
{
    extern __shared__ __align__(16) float smem[];
    spread::three_paths<SplitTree>(smem, M, N, K, alpha, A, B, beta, C);
}
