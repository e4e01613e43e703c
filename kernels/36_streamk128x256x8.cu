// streamk128x256x8: ragged128x256x8's tile under the hybrid stream-K schedule of the streamk rungs:
// 132 persistent blocks share the last waves' k iterations evenly.
//
// Predecessor: ragged128x256x8. One block per 128x256 tile, one block per SM: a grid of T tiles
// runs in cdiv(T, 132) waves, the last one partly empty. At 3072^3 (288 tiles: 2.2 waves) the
// third wave holds 24 tiles and 108 SMs idle through it: 87% of cuBLAS where 4096^3 (512 tiles,
// 3.9 waves) runs at 101%; 2500^3 (200 tiles, 1.5 waves) 82%. Idea: kernels/streamk.cuh's plan
// over this tile: whole waves but the last full one stay one tile per block; that full wave and
// the partial one after it are cut into G equal runs of k tiles crossing tile boundaries, so every
// block ends at about the same time (3072^3: 2.2 tile-times a block, not 3). A tile cut into
// segments is summed in fixed order (slots first..last) by the block that arrives last; no block
// waits for another. H100 (benchmarks/results/2026-11-23-h100, shapes-suite-11, shapes-profile-4):
// 3072^3 1.496 -> 1.258 ms, 87% -> 104% of cuBLAS, SMs busy 73% -> 99%; 2500^3 82% -> 98%. Where
// the waves are whole or nearly (4096^3) it trails ragged128x256x8 (95% against 101%): its main
// loop runs at 238 registers, not 222.
//
// G (the manifest's grid x): max(1, min(132, tiles * cdiv(K, 8) // 32)) with tiles = cdiv(M, 128)
// * cdiv(N, 256): one block per SM of a 132-SM GPU, each with at least 32 k tiles' work.
// Workspace: slots of 128 x 256 floats (row-major: spread_tile.cuh's put_slot); a plan needs
// G + (stream-K tiles) - 1 < 3 * 132 of them, inside the 512 of 2^24 floats (64 MiB); counters:
// fewer than 2 * 132 stream-K tiles, of 1024. A grid that does not fit anyway (another grid
// expression) runs every tile whole.
//
// Paths: as ragged128x256x8's, chosen once for the grid (a block walks many tiles): whole tiles
// when M % 128 == 0, N % 256 == 0, K % 8 == 0, N % 4 == 0 and B, C 16-byte aligned; else edge
// tiles with float4 B (N % 4 == 0, B and C aligned), else with scalar B and C.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module).
// Launch: block (256), grid (G), 49,664 bytes of dynamic shared memory; one block per SM; sm_80+.

#include "reduce_scatter.cuh"
#include "spread_tile.cuh"
#include "streamk.cuh"

#define WS_FLOATS (1LL << 24)     // 512 partial tiles: 64 MiB
#define MAX_TILES 1024            // one arrival counter per stream-K tile

using Tile128x256 = spread::Tile<128, 256>;
static_assert(Tile128x256::SMEM_BYTES == 49664, "update smem_bytes in kernels/ladder.toml");
static_assert(Tile128x256::BK == ragged::BK, "streamk.cuh counts k tiles of ragged::BK");

__device__ __align__(16) float g_partials[WS_FLOATS];
__device__ unsigned g_counters[MAX_TILES];  // zero at module load; each tile's last block resets its own

namespace sk {

using T = Tile128x256;
using spread::Lanes;
constexpr int BM = T::BM, BN = T::BN, BK = T::BK, NTHREADS = T::NTHREADS;
constexpr int TILE = BM * BN;

// Segment (c, s) of stream-K tile s: its partial to slot c + s; the block that arrives last sums
// the tile's slots first..last in that order straight into C (rsum::sum_slice over the whole
// tile). Summed into the accumulators instead (32 float4 loads a slot beside 128 live ones), the
// kernel took 255 registers, not 238, and ran 1-3% slower at 5000-8192^3; but faster where every
// tile is split and the fix-ups are most of the tail (1536^3: 101% of cuBLAS against 89%;
// shapes-suite-8 against -11). `best` runs streamk128x128x8 there.
__device__ __forceinline__ void fixup(const float (&acc)[16][8], const streamk::Plan& p, int c, int s, int M, int N,
                                      float alpha, float beta, float* C, int bm, int bn, const Lanes& ln, volatile int& last)
{
    T::put_slot(g_partials + (size_t)(c + s) * TILE, acc, ln);
    const long long base = (long long)s * p.iters;
    const int first = streamk::owner(p, base), lastBlock = streamk::owner(p, base + p.iters - 1);
    __threadfence();  // the partial is visible device-wide before this block is counted
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(&g_counters[s], 1u) == (unsigned)(lastBlock - first);
    __syncthreads();
    if (!last) return;
    __threadfence();  // the other blocks' partials are read after their counts were seen
    const bool vec = N % 4 == 0 && (reinterpret_cast<uintptr_t>(C) & 15) == 0;
    rsum::sum_slice<BM, BN, NTHREADS, 8>(g_partials, first + s, 1, lastBlock - first + 1, 0, TILE / 4, M, N, alpha, beta,
                                         C, bm, bn, vec);
    if (threadIdx.x == 0) g_counters[s] = 0;  // every segment of this tile has arrived: ready for the next launch
}

// Block blockIdx.x's units of work (streamk.cuh's Work), one at a time.
template <bool EDGE, bool VEC_B>
__device__ __forceinline__ void run(float* smem, int M, int N, int K, float alpha, const float* __restrict__ A,
                                    const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ streamk::Plan plan;  // block-uniform; in shared memory, not registers, across the main loop
    __shared__ int last;
    volatile streamk::Work& cur = streamk::shared_work();
    const int c = blockIdx.x;
    if (threadIdx.x == 0) {
        plan = streamk::plan(M, N, K, BM, BN, gridDim.x, WS_FLOATS / TILE, MAX_TILES);
        streamk::store_work(cur, streamk::first_work(plan, c));
    }
    __syncthreads();
    const Lanes ln = T::lanes();
    float acc[16][8];
    while (cur.k1 > cur.k0) {
        const int tile = cur.tile, k0 = cur.k0;
        const int bm = (tile / plan.tilesN) * BM, bn = (tile % plan.tilesN) * BN;
        T::multiply<EDGE, VEC_B>(acc, smem, M, N, K, K - k0 * BK, A + k0 * BK, B + (size_t)k0 * BK * N, bm, bn, cur.k1 - k0, ln);
        const streamk::Work w = streamk::load_work(cur);
        if (w.k0 == 0 && w.k1 == plan.iters)
            T::store<EDGE, VEC_B>(acc, smem, M, N, alpha, beta, C, bm, bn, ln);
        else
            fixup(acc, plan, c, w.tile - plan.dpTiles, M, N, alpha, beta, C, bm, bn, ln, last);
        __syncthreads();  // every thread has read `cur` and `last`, and is done with shared memory
        if (threadIdx.x == 0) streamk::store_work(cur, streamk::next_work(plan, c, w));
        __syncthreads();
    }
}

}  // namespace sk

extern "C" __global__ void __launch_bounds__(Tile128x256::NTHREADS, 1)
sgemm_streamk128x256x8(int M, int N, int K, float alpha, const float* __restrict__ A,
                       const float* __restrict__ B, float beta, float* __restrict__ C)
{
    extern __shared__ __align__(16) float smem[];
    using namespace sk;
    const bool vec = N % 4 == 0 && ((reinterpret_cast<uintptr_t>(B) | reinterpret_cast<uintptr_t>(C)) & 15) == 0;
    if (vec && K % BK == 0 && M % BM == 0 && N % BN == 0)
        sk::run<false, true>(smem, M, N, K, alpha, A, B, beta, C);
    else if (vec)
        sk::run<true, true>(smem, M, N, K, alpha, A, B, beta, C);
    else
        sk::run<true, false>(smem, M, N, K, alpha, A, B, beta, C);
}
