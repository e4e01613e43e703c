// splitk128x256x8rs: splitk128x256x8 with the partials summed by every split at once, a slice of
// the tile each (a reduce-scatter), instead of by the last arrivals of a tree.
//
// Predecessor: splitk128x256x8. Its tree leaves the sum to one block per group and one per tile:
// at 256x256x32768 (S = 64, groups of 8) two blocks in turn read 8 partials of 128 KiB each, one
// SM reading from L2 alone while the others idle; the GEMM took 0.133 ms there, 75% of cuBLAS,
// with the SMs busy 73% of it. Idea: the S splits of a tile wait for one another and then each
// sums 1/S of the tile over all S partials, in the fixed order z = 0..S-1, and writes that slice
// of C: every block reads 128 KiB, the sum is as deterministic as the tree's (H100: 0.098 ms,
// 100% of cuBLAS, SMs busy 94%; benchmarks/results/2026-11-23-h100/shapes-profile-3).
//
// Waiting needs every split of a tile resident at once: a split grid has at most 132 blocks (one
// per SM of a 132-SM GPU: the manifest's grid z) and is launched cooperatively (manifest key
// `cooperative`, true where S > 1), so a GPU that cannot hold it fails the launch instead of
// hanging. An unsplit grid (S = 1, any number of tiles) waits for nobody: a plain launch.
//
// The wait: split z writes its partial in C's layout (row-major 128 x 256 floats, slot
// z * tiles + tile), fences and counts itself in on the tile's arrival counter, then waits until
// the counter reaches S; after its slice it counts itself out on the tile's departure counter,
// and the last one out resets both (every split has left the wait by then) for the next launch.
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

#include <cstdint>

#include "spread_tile.cuh"

#define WS_FLOATS (1LL << 23)     // partial tiles: 32 MiB
#define MAX_TILES (1 << 13)       // arrival and departure counters: one each per tile

static_assert(spread::SMEM_BYTES == 49664, "update smem_bytes in kernels/ladder.toml");

__device__ __align__(16) float g_partials[WS_FLOATS];  // partial tiles, row-major
__device__ unsigned g_arrived[MAX_TILES];   // zero at module load; the last split out resets its tile's
__device__ unsigned g_departed[MAX_TILES];

namespace rs {

constexpr int TILE_F4 = spread::BM * spread::BN / 4;  // float4s of a tile

// This thread's accumulators into a row-major 128 x 256 slot (acc[mi*4 + e][ni*4 + j] holds the
// tile's row wRow + mi*16 + tr*4 + e, column wCol + ni*32 + tc*4 + j: spread_tile.cuh's layout).
__device__ __forceinline__ void put(float* slot, const float (&acc)[16][8], const spread::Lanes& ln)
{
#pragma unroll
    for (int i = 0; i < 16; ++i)
#pragma unroll
        for (int ni = 0; ni < 2; ++ni) {
            const int row = ln.wRow + (i / 4) * 16 + ln.tr * 4 + i % 4, col = ln.wCol + ni * 32 + ln.tc * 4;
            __stcg(reinterpret_cast<float4*>(slot + row * spread::BN + col),
                   make_float4(acc[i][ni * 4], acc[i][ni * 4 + 1], acc[i][ni * 4 + 2], acc[i][ni * 4 + 3]));
        }
}

// Every split of the tile has put its partial (block-uniform wait, then acquire).
__device__ __forceinline__ void wait_all(unsigned* arrived, unsigned splits)
{
    __threadfence();  // this block's partial is visible device-wide before it is counted
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(arrived, 1u);
        while (*reinterpret_cast<volatile unsigned*>(arrived) < splits) __nanosleep(64);
    }
    __syncthreads();
    __threadfence();  // the other partials are read after their counts were seen
}

// C's float4s [lo, hi) of the tile at (bm, bn) = alpha * (sum of the S partials, z = 0..S-1 in
// that order) + beta * C; rows past M and columns past N skipped, C element by element unless
// `vec` (N % 4 == 0, C 16-byte aligned). Each thread's reads of C come before its writes.
__device__ __forceinline__ void sum_slice(const float* partials, int first, int step, int splits, int lo, int hi, int M,
                                          int N, float alpha, float beta, float* C, int bm, int bn, bool vec)
{
    for (int f = lo + (int)threadIdx.x; f < hi; f += spread::NTHREADS) {
        const float4* p = reinterpret_cast<const float4*>(partials) + (size_t)first * TILE_F4 + f;
        float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 8
        for (int z = 0; z < splits; ++z) {  // fixed order: the sum does not depend on who came first
            const float4 v = __ldcg(p + (size_t)z * step * TILE_F4);
            s.x += v.x;
            s.y += v.y;
            s.z += v.z;
            s.w += v.w;
        }
        const int row = bm + f / (spread::BN / 4), col = bn + (f % (spread::BN / 4)) * 4;
        if (row >= M || col >= N) continue;
        float v[4] = {alpha * s.x, alpha * s.y, alpha * s.z, alpha * s.w};
        float* const cp = C + (size_t)row * N + col;
        if (vec) {
            if (beta != 0.0f) {
                const float4 c = *reinterpret_cast<const float4*>(cp);
                v[0] += beta * c.x;
                v[1] += beta * c.y;
                v[2] += beta * c.z;
                v[3] += beta * c.w;
            }
            *reinterpret_cast<float4*>(cp) = make_float4(v[0], v[1], v[2], v[3]);
        } else {
            const int n = min(4, N - col);
            if (beta != 0.0f)
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    if (j < n) v[j] += beta * cp[j];
#pragma unroll
            for (int j = 0; j < 4; ++j)
                if (j < n) cp[j] = v[j];
        }
    }
}

}  // namespace rs

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
        rs::put(g_partials + ((size_t)z * tiles + tile) * (BM * BN), acc, ln);
        rs::wait_all(&g_arrived[tile], splits);
        const bool vec = N % 4 == 0 && (reinterpret_cast<uintptr_t>(C) & 15) == 0;
        rs::sum_slice(g_partials, tile, tiles, splits, (int)((long long)z * rs::TILE_F4 / splits),
                      (int)((long long)(z + 1) * rs::TILE_F4 / splits), M, N, alpha, beta, C, bm, bn, vec);
        __syncthreads();
        if (threadIdx.x == 0 && atomicAdd(&g_departed[tile], 1u) == (unsigned)(splits - 1)) {
            g_arrived[tile] = 0;  // every split is past its wait: ready for the next launch
            g_departed[tile] = 0;
        }
    }
};

extern "C" __global__ void __launch_bounds__(spread::NTHREADS, 1)
sgemm_splitk128x256x8rs(int M, int N, int K, float alpha, const float* __restrict__ A,
                        const float* __restrict__ B, float beta, float* __restrict__ C)
{
    extern __shared__ __align__(16) float smem[];
    spread::three_paths<SplitReduceScatter>(smem, M, N, K, alpha, A, B, beta, C);
}
