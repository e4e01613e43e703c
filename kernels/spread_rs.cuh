// spread_rs.cuh: split-K with a reduce-scatter over a spread tile (spread_tile.cuh), the body of
// splitk128x256x8rs, splitk256x128x8rs and splitk256x64x8rs. splitk128x256x8rs's header gives
// the idea and the measurements; reduce_scatter.cuh the protocol.
//
// Split z of S (gridDim.z) multiplies k tiles [z * kTiles / S, (z + 1) * kTiles / S) of its
// tile, puts its partial (row-major BM x BN floats, slot z * tiles + tile), waits for the other
// splits and sums float4s [z * F / S, (z + 1) * F / S) of the tile's F into C. S = 1, or a grid
// that does not fit the workspace (another grid expression), stores C from the block's own
// accumulators.
//
// Workspace: one per loaded module (this header's globals in each rung's translation unit), so
// launches of one rung must not overlap in time. Split grids need every split of a tile resident
// at once: the rungs launch them cooperatively.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.

#pragma once

#include "reduce_scatter.cuh"
#include "spread_tile.cuh"

#define WS_FLOATS (1LL << 23)     // partial tiles: 32 MiB
#define MAX_TILES (1 << 13)       // arrival and departure counters: one each per tile

__device__ __align__(16) float g_partials[WS_FLOATS];  // partial tiles, row-major
__device__ unsigned g_arrived[MAX_TILES];   // zero at module load; the last split out resets its tile's
__device__ unsigned g_departed[MAX_TILES];

namespace spread {

// This block's range of k tiles of its tile, its partial put, then its slice of the tile summed
// into C once every split has put its own (or C stored whole when the grid is not split).
template <int BM_, int BN_>
struct SplitReduceScatter : Tile<BM_, BN_> {
    using T = Tile<BM_, BN_>;

    template <bool EDGE, bool VEC_B, class Place>
    static __device__ __forceinline__ void run(float* smem, int M, int N, int K, float alpha, const float* __restrict__ A,
                                               const float* __restrict__ B, float beta, float* __restrict__ C, const Place& at)
    {
        constexpr int BM = T::BM, BN = T::BN, BK = T::BK;
        const int bm = at.tm() * BM, bn = at.tn() * BN;
        const int kTiles = (K + BK - 1) / BK;
        const int splits = gridDim.z, tiles = gridDim.x * gridDim.y;
        const bool fits = splits > 1 && (long long)splits * tiles * (BM * BN) <= WS_FLOATS && tiles <= MAX_TILES;
        if (!fits && blockIdx.z != 0) return;  // split 0 takes all of K and stores C
        const int t0 = fits ? (int)((long long)blockIdx.z * kTiles / splits) : 0;
        const int t1 = fits ? (int)((long long)(blockIdx.z + 1) * kTiles / splits) : kTiles;
        const Lanes ln = T::lanes();
        float acc[16][8];
        // The range as a GEMM of its own (A, B moved to its first k): the same main loop as ragged128x256x8's.
        T::template multiply<EDGE, VEC_B>(acc, smem, M, N, K, K - t0 * BK, A + t0 * BK, B + (size_t)t0 * BK * N, bm, bn,
                                          t1 - t0, ln);
        if (!fits) {
            T::template store<EDGE, VEC_B>(acc, smem, M, N, alpha, beta, C, bm, bn, ln);
            return;
        }
        const int tile = blockIdx.y * gridDim.x + blockIdx.x, z = blockIdx.z;
        T::put_slot(g_partials + ((size_t)z * tiles + tile) * (BM * BN), acc, ln);
        rsum::exchange<BM, BN, T::NTHREADS>(g_partials, g_arrived, g_departed, tile, tiles, z, splits, M, N, alpha, beta, C,
                                            bm, bn);
    }
};

}  // namespace spread
