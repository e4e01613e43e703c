// spread_streamk.cuh: stream-K over spread_tile.cuh's 128x256 tile, the body of
// streamk128x256x8 (every block persistent: stream-K segments, then whole tiles; streamk.cuh's
// plan) and of tailsk128x256x8's last row of blocks (the stream-K segments of the partial wave
// only; streamk.cuh's tail_plan). The rungs' headers give the ideas and the measurements;
// streamk.cuh the schedule and the fix-up's protocol.
//
// Workspace: slots of 128 x 256 floats (row-major, quads rotated: spread_tile.cuh's
// put_slot_rotated); a plan needs G + (stream-K tiles) - 1 of them, the stream-K tiles being under
// two waves (plan) or under one (tail_plan): under 3 * 132 at G = 132, inside the 512 of 2^24
// floats (64 MiB); counters: one per stream-K tile, of 1024. A plan that does not fit runs its
// tiles whole. One workspace per loaded module (this header's globals in each rung's translation
// unit), so launches of one rung must not overlap in time.

#pragma once

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

// Segment (c, s) of stream-K tile s: its partial to slot c + s (rotated quads: put_slot_rotated);
// the block that arrives last sums the tile's slots first..last in that order straight into C
// (rsum::sum_tile, 8 float4s a thread a pass, 2 slots' loads at a time: every load of a pass in
// flight together). Through sum_slice's loop, sized for long chains of partials, each of a pass's
// 16 loads waited on the one before: the sum was 1.5% of the kernel's samples at 4096^3
// (streamk-profile/). sum_tile: +0.5 to +3.5% of cuBLAS on 3072-6000^3 and 8192^3, -0.15 at
// 7168^3 (H100, A/B run ab16c: 4096^3 103.8 -> 105.2). Summed into the accumulators instead
// (32 float4 loads a slot beside 128 live ones), the kernel took 255 registers, not 238, and ran
// 1-3% slower at 5000-8192^3.
__device__ __forceinline__ void fixup(const float (&acc)[16][8], const streamk::Plan& p, int c, int s, int M, int N,
                                      float alpha, float beta, float* C, int bm, int bn, const Lanes& ln, volatile int& last)
{
    T::put_slot_rotated(g_partials + (size_t)(c + s) * TILE, acc, ln);
    const long long base = (long long)s * p.iters;
    const int first = streamk::owner(p, base), lastBlock = streamk::owner(p, base + p.iters - 1);
    __threadfence();  // the partial is visible device-wide before this block is counted
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(&g_counters[s], 1u) == (unsigned)(lastBlock - first);
    __syncthreads();
    if (!last) return;
    __threadfence();  // the other blocks' partials are read after their counts were seen
    const bool vec = N % 4 == 0 && (reinterpret_cast<uintptr_t>(C) & 15) == 0;
    rsum::sum_tile<BM, BN, NTHREADS, 8, 2, T::ROT>(g_partials, first + s, lastBlock - first + 1, M, N, alpha, beta, C, bm, bn, vec);
    if (threadIdx.x == 0) g_counters[s] = 0;  // every segment of this tile has arrived: ready for the next launch
}

// Block blockIdx.x's units of work (streamk.cuh's Work), one at a time: under streamk.cuh's plan
// (TAIL false) its stream-K segments and then whole tiles, under its tail_plan (TAIL true) the
// segments alone.
template <bool EDGE, bool VEC_B, bool TAIL>
__device__ __forceinline__ void run(float* smem, int M, int N, int K, float alpha, const float* __restrict__ A,
                                    const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ streamk::Plan plan;  // block-uniform; in shared memory, not registers, across the main loop
    __shared__ int last;
    volatile streamk::Work& cur = streamk::shared_work();
    const int c = blockIdx.x;
    if (threadIdx.x == 0) {
        plan = TAIL ? streamk::tail_plan(M, N, K, BM, BN, gridDim.x, WS_FLOATS / TILE, MAX_TILES)
                    : streamk::plan(M, N, K, BM, BN, gridDim.x, WS_FLOATS / TILE, MAX_TILES);
        streamk::store_work(cur, TAIL ? streamk::tail_first(plan, c) : streamk::first_work(plan, c));
    }
    __syncthreads();
    // Where the lanes and the tile's place are worked out, once before the loop and held across the
    // main loop (TAIL) or afresh after it (not TAIL), changes nothing but the registers ptxas gives
    // the main loop, and the two rungs run fastest with opposite choices (H100, sk-lanes/: held,
    // streamk128x256x8 1.4-5.2 points of cuBLAS slower on 3072-8192^3; afresh, tailsk128x256x8
    // 3.0-5.2 slower).
    const Lanes held = T::lanes();
    float acc[16][8];
    while (cur.k1 > cur.k0) {
        const int tile = cur.tile, k0 = cur.k0;
        const int bm0 = (tile / plan.tilesN) * BM, bn0 = (tile % plan.tilesN) * BN;
        T::multiply<EDGE, VEC_B>(acc, smem, M, N, K, K - k0 * BK, A + k0 * BK, B + (size_t)k0 * BK * N, bm0, bn0, cur.k1 - k0,
                                 TAIL ? held : T::lanes());
        const Lanes ln = TAIL ? held : T::lanes();
        const streamk::Work w = streamk::load_work(cur);
        const int bm = TAIL ? bm0 : (w.tile / plan.tilesN) * BM, bn = TAIL ? bn0 : (w.tile % plan.tilesN) * BN;
        if (w.k0 == 0 && w.k1 == plan.iters)
            // C read ahead at N % 4 != 0 in the tail rung only (spread_tile.cuh's store says why; 4 spilled)
            T::template store<EDGE, VEC_B, TAIL ? 2 : 0>(acc, smem, M, N, alpha, beta, C, bm, bn, ln);
        else
            fixup(acc, plan, c, w.tile - plan.dpTiles, M, N, alpha, beta, C, bm, bn, ln, last);
        __syncthreads();  // every thread has read `cur` and `last`, and is done with shared memory
        if (threadIdx.x == 0) streamk::store_work(cur, TAIL ? streamk::tail_next(plan, w) : streamk::next_work(plan, c, w));
        __syncthreads();
    }
}

// The block's work in one of three paths as ragged128x256x8's, chosen once for the grid (a block
// may walk several tiles): whole tiles when M % 128 == 0, N % 256 == 0, K % 8 == 0, N % 4 == 0
// and B, C 16-byte aligned; else edge tiles with float4 B (N % 4 == 0, B and C aligned), else
// with scalar B and C.
template <bool TAIL>
__device__ __forceinline__ void gemm(float* smem, int M, int N, int K, float alpha, const float* __restrict__ A,
                                     const float* __restrict__ B, float beta, float* __restrict__ C)
{
    const bool vec = N % 4 == 0 && ((reinterpret_cast<uintptr_t>(B) | reinterpret_cast<uintptr_t>(C)) & 15) == 0;
    if (vec && K % BK == 0 && M % BM == 0 && N % BN == 0)
        run<false, true, TAIL>(smem, M, N, K, alpha, A, B, beta, C);
    else if (vec)
        run<true, true, TAIL>(smem, M, N, K, alpha, A, B, beta, C);
    else
        run<true, false, TAIL>(smem, M, N, K, alpha, A, B, beta, C);
}

}  // namespace sk

