// splitk128x256x8rs: splitk128x256x8 with the partials summed by every split at once, a slice of
// the tile each (a reduce-scatter), instead of by the last arrivals of a tree.
//
// Predecessor: splitk128x256x8. Its tree leaves the sum to one block per group and one per tile:
// at 256x256x32768 (S = 64, groups of 8) two blocks in turn read 8 partials of 128 KiB each, one
// SM reading from L2 alone while the others idle; the GEMM took 0.133 ms there, 75% of cuBLAS,
// with the SMs busy 73% of it. Idea: the S splits of a tile wait for one another and then each
// sums 1/S of the tile over all S partials, in an order fixed by S, and writes that slice of C:
// every block reads 128 KiB, the sum is as deterministic as the tree's (H100: 0.098 ms,
// 100% of cuBLAS, SMs busy 94%; benchmarks/results/2026-11-23-h100/shapes-profile-3).
//
// Waiting needs every split of a tile resident at once: a split grid has at most 132 blocks (one
// per SM of a 132-SM GPU: the manifest's grid z) and is launched cooperatively (manifest key
// `cooperative`, true where S > 1), so a GPU that cannot hold it fails the launch instead of
// hanging. An unsplit grid (S = 1, any number of tiles) waits for nobody: a plain launch.
//
// The exchange (kernels/reduce_scatter.cuh): split z writes its partial in C's layout (row-major
// 128 x 256 floats, slot z * tiles + tile), waits until all S have, sums its slice of the tile
// and leaves; the last one out resets the tile's counters for the next launch.
//
// S (the manifest's grid z): max(1, min(64, K // 512, 132 // tiles)), as splitk128x256x8.
// Split z multiplies k tiles [z * kTiles / S, (z + 1) * kTiles / S) and sums float4s
// [z * 8192 / S, (z + 1) * 8192 / S) of the tile. S = 1, or a grid that does not fit the
// workspace (another grid expression), stores C from the block's own accumulators.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module); cooperative where S > 1.
// Launch: block (256), grid (cdiv(N, 256), cdiv(M, 128), S), 49,664 bytes of dynamic shared
// memory; one block per SM; sm_80+.

#include "reduce_scatter.cuh"
#include "spread_tile.cuh"

#define WS_FLOATS (1LL << 23)     // partial tiles: 32 MiB
#define MAX_TILES (1 << 13)       // arrival and departure counters: one each per tile

static_assert(spread::SMEM_BYTES == 49664, "update smem_bytes in kernels/ladder.toml");

__device__ __align__(16) float g_partials[WS_FLOATS];  // partial tiles, row-major
__device__ unsigned g_arrived[MAX_TILES];   // zero at module load; the last split out resets its tile's
__device__ unsigned g_departed[MAX_TILES];

// This block's range of k tiles of its tile, its partial put, then its slice of the tile summed
// into C once every split has put its own (or C stored whole when the grid is not split).
struct SplitReduceScatter {
    template <bool EDGE, bool VEC_B>
    static __device__ __forceinline__ void run(float* smem, int M, int N, int K, float alpha, const float* __restrict__ A,
                                               const float* __restrict__ B, float beta, float* __restrict__ C)
    {
        using namespace spread;
        const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
        const int kTiles = (K + BK - 1) / BK;
        const int splits = gridDim.z, tiles = gridDim.x * gridDim.y;
        const bool fits = splits > 1 && (long long)splits * tiles * (BM * BN) <= WS_FLOATS && tiles <= MAX_TILES;
        if (!fits && blockIdx.z != 0) return;  // split 0 takes all of K and stores C
        const int t0 = fits ? (int)((long long)blockIdx.z * kTiles / splits) : 0;
        const int t1 = fits ? (int)((long long)(blockIdx.z + 1) * kTiles / splits) : kTiles;
        const Lanes ln = lanes();
        float acc[16][8];
        // The range as a GEMM of its own (A, B moved to its first k): the same main loop as ragged128x256x8's.
        multiply<EDGE, VEC_B>(acc, smem, M, N, K, K - t0 * BK, A + t0 * BK, B + (size_t)t0 * BK * N, bm, bn, t1 - t0, ln);
        if (!fits) {
            store<EDGE, VEC_B>(acc, smem, M, N, alpha, beta, C, bm, bn, ln);
            return;
        }
        const int tile = blockIdx.y * gridDim.x + blockIdx.x, z = blockIdx.z;
        put_slot(g_partials + ((size_t)z * tiles + tile) * (BM * BN), acc, ln);
        rsum::exchange<BM, BN, NTHREADS>(g_partials, g_arrived, g_departed, tile, tiles, z, splits, M, N, alpha, beta, C, bm, bn);
    }
};

extern "C" __global__ void __launch_bounds__(spread::NTHREADS, 1)
sgemm_splitk128x256x8rs(int M, int N, int K, float alpha, const float* __restrict__ A,
                        const float* __restrict__ B, float beta, float* __restrict__ C)
{
    extern __shared__ __align__(16) float smem[];
    spread::three_paths<SplitReduceScatter>(smem, M, N, K, alpha, A, B, beta, C);
}
