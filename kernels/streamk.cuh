// streamk.cuh: the stream-K schedule of the streamk rungs (streamk128x128x8, streamk64x64x8,
// streamk64x32x8, and streamk128x256x8 over spread_tile.cuh's tile) over kernels/ragged_tile.cuh's
// block tiles, for ANY M, N, K; and tailsk128x256x8's, stream-K on the last wave only (tail_plan).
//
// Why: a grid of one block per tile runs in waves of (blocks per SM) x SMS tiles; 576 tiles of
// 64x64 on 132 SMs are 4.4 waves, the last one 40% full, and 16 tiles of 64x64 (512^3) leave
// 116 SMs idle. Stream-K (Osama et al., 2023) instead launches G = gridDim.x persistent blocks
// (a multiple of the SM count, from the manifest's grid expression) and gives each the same
// number of k iterations (k tiles of BK) of the whole problem, crossing tile boundaries.
//
// Schedule (plan(), pure integer arithmetic, host and device: tests/kernels/streamk_cover.cu
// runs it on the CPU and the tests check that every k tile of every tile is covered once):
//   * T tiles of BM x BN, I = cdiv(K, BK) k tiles each, tile t at (t / tilesN, t % tilesN).
//   * Whole waves stay data-parallel ("hybrid" stream-K): when T % G != 0 and T >= G, tiles
//     0 .. (T/G - 1) * G - 1 are whole tiles, tile c + G * j for block c; the last partial wave and
//     the full wave before it (G + T % G tiles, so every block gets 1 to 2 tiles' worth) are spread
//     evenly as S = (T - dp) * I iterations: block c takes [c * S / G, (c + 1) * S / G). T % G == 0:
//     all data-parallel. T < G: all stream-K (split-K with equal shares, whatever T and K); when
//     S < G, only the first S blocks take one iteration each (no empty range between two full ones).
//   * A block's range cuts tiles into segments; segment (c, s) (block c, stream-K tile s) is the
//     slot c + s of the workspace: walking the iteration line, each new segment starts a new block,
//     a new tile or both, so c + s strictly grows and slots never collide (G + sk_tiles - 1 at most).
//     Tile s's segments come from blocks first..last (consecutive), so its slots are consecutive.
//   * A segment that covers its whole tile stores C itself. Otherwise it writes its partial to its
//     slot, fences and counts itself in on tile s's counter; the block that arrives last sums the
//     slots first..last in that fixed order (deterministic whoever arrives last), writes
//     C = alpha * sum + beta * C and resets the counter for the next launch. No block ever waits
//     for another, so no schedule can deadlock (the same fix-up as ragged_tile.cuh's split-K).
//   * A plan whose slots or counters do not fit the workspace falls back to all data-parallel.
// Launches of one streamk kernel must not overlap in time (one workspace per loaded module).

#pragma once

#include "ragged_tile.cuh"

namespace streamk {

struct Plan {
    int tilesN;        // tiles along N
    int tiles;         // T
    int iters;         // I: k tiles per tile
    int ctas;          // G = gridDim.x
    int dpTiles;       // tiles 0 .. dpTiles-1 are whole: tile c + G * j for block c
    long long skIters; // (T - dpTiles) * I iterations spread over the first skCtas blocks
    int skCtas;        // min(G, skIters): every one of them gets at least one iteration
};

// Tiles dpTiles .. T - 1 of p spread as S = (T - dpTiles) * I iterations over min(G, S) blocks;
// false (and nothing spread) where their slots or counters do not fit the workspace.
__host__ __device__ inline bool spread_rest(Plan& p, long long maxSlots, long long maxCounters)
{
    const long long skTiles = p.tiles - p.dpTiles;
    p.skIters = skTiles * p.iters;
    p.skCtas = p.skIters < p.ctas ? (int)p.skIters : p.ctas;
    if (skTiles > 0 && (p.skCtas + skTiles - 1 > maxSlots || skTiles > maxCounters)) {  // slots c + s < skCtas + skTiles - 1
        p.skIters = 0;
        p.skCtas = 0;
        return false;
    }
    return true;
}

__host__ __device__ inline Plan plan(int M, int N, int K, int BM, int BN, int ctas, long long maxSlots, long long maxCounters)
{
    Plan p;
    p.tilesN = (N + BN - 1) / BN;
    p.tiles = ((M + BM - 1) / BM) * p.tilesN;
    p.iters = (K + ragged::BK - 1) / ragged::BK;
    p.ctas = ctas;
    const int waves = p.tiles / ctas, rem = p.tiles % ctas;
    p.dpTiles = rem == 0 ? p.tiles : (waves > 0 ? (waves - 1) * ctas : 0);
    if (!spread_rest(p, maxSlots, maxCounters)) p.dpTiles = p.tiles;
    return p;
}

// The first stream-K iteration of block c (c >= skCtas: the end, an empty range). The blocks
// that hold some range are consecutive, so the blocks of one tile are too, and all arrive.
__host__ __device__ inline long long begin(const Plan& p, int c)
{
    return c >= p.skCtas ? p.skIters : (long long)c * p.skIters / p.skCtas;
}

// The block whose range holds stream-K iteration x (0 <= x < skIters): the largest c with
// begin(c) <= x, i.e. c * S < (x + 1) * skCtas.
__host__ __device__ inline int owner(const Plan& p, long long x)
{
    const long long c = ((x + 1) * p.skCtas - 1) / p.skIters;
    return (int)(c < p.skCtas - 1 ? c : p.skCtas - 1);
}

// Block c's work, one unit at a time: k tiles [k0, k1) of tile `tile` of C (a stream-K segment
// when tile >= dpTiles, then `left` k tiles of the block's range follow it; a whole tile
// otherwise). Stream-K segments come first, so their fix-ups overlap other blocks' whole tiles;
// then tiles c, c + G, ... below dpTiles. k1 == k0: nothing left. 32-bit state (a stream-K range
// is under two tiles' worth of k tiles), and one loop in the kernel: one copy of the main loop.
struct Work {
    int tile, k0, k1, left;
};

__host__ __device__ inline Work whole_tile(const Plan& p, int tile)
{
    return tile < p.dpTiles ? Work{tile, 0, p.iters, 0} : Work{0, 0, 0, 0};
}

__host__ __device__ inline Work first_work(const Plan& p, int c)
{
    const long long it = begin(p, c);
    const int len = (int)(begin(p, c + 1) - it);
    if (len == 0) return whole_tile(p, c);
    const int k0 = (int)(it % p.iters);
    const int k1 = len < p.iters - k0 ? k0 + len : p.iters;
    return Work{p.dpTiles + (int)(it / p.iters), k0, k1, len - (k1 - k0)};
}

__host__ __device__ inline Work next_work(const Plan& p, int c, const Work& w)
{
    if (w.tile < p.dpTiles) return whole_tile(p, w.tile + p.ctas);
    if (w.left == 0) return whole_tile(p, c);
    const int k1 = w.left < p.iters ? w.left : p.iters;
    return Work{w.tile + 1, 0, k1, w.left - k1};
}

// The tail schedule (tailsk128x256x8): only the last, partial wave is stream-K. Tiles 0 ..
// T - T % G - 1 run whole as a grid of their own (one block a tile, not this plan's blocks); the
// T % G tiles left are spread over the G blocks of the plan as above, so they end together after
// (T % G) / G of a tile's time instead of a whole one. T % G == 0: nothing is stream-K. A plan
// whose slots or counters do not fit keeps skIters == 0, and block c then runs tile dpTiles + c
// whole (c < T % G).
__host__ __device__ inline Plan tail_plan(int M, int N, int K, int BM, int BN, int ctas, long long maxSlots, long long maxCounters)
{
    Plan p = plan(M, N, K, BM, BN, ctas, maxSlots, maxCounters);
    p.dpTiles = p.tiles - p.tiles % ctas;
    spread_rest(p, maxSlots, maxCounters);
    return p;
}

// tailsk128x256x8's grid of (G, cdiv(T, G)) blocks: block (x, y) runs tile G * y + x whole, and
// where T % G != 0 the last row, y = T / G, is the stream-K row (tail_first, tail_next). A block
// past the whole tiles (another grid) has none: -1. The row is last, after the whole waves: at
// 5000^3 (8 tiles left, 38 k tiles a block) that ran 1.5% of cuBLAS faster than the row first,
// whose fix-ups were to overlap the whole tiles; within 0.5% elsewhere (H100, tailsk/row-last/).
__host__ __device__ inline bool tail_row(int tiles, int ctas, int y) { return tiles % ctas != 0 && y == tiles / ctas; }

__host__ __device__ inline int tail_whole_tile(int tiles, int ctas, int x, int y)
{
    const int t = ctas * y + x;
    return t < tiles - tiles % ctas ? t : -1;
}

// Block c's first unit under tail_plan (k1 == k0: none). A block walks its range backwards: the
// last tile it touches first, from k = 0, then the end of the tile before. Every block whose range
// crosses a tile's start (most of them: a range is most of a tile long) is then at k = t in its
// first segment and at k = t + I - len in its second, t cycles in: the blocks move through K
// together and share A's and B's k tiles in L2, as whole tiles do. Walked forwards, each block
// started at its own k, and the row read A and B from DRAM about twice (4096^3: 888 MB against
// 463 MB; benchmarks/results/2026-11-23-h100/tailsk/).
__host__ __device__ inline Work tail_first(const Plan& p, int c)
{
    if (p.skIters == 0)  // nothing stream-K, or it did not fit: the tail's tiles whole, one a block
        return p.dpTiles + c < p.tiles ? Work{p.dpTiles + c, 0, p.iters, 0} : Work{0, 0, 0, 0};
    const long long it0 = begin(p, c), it1 = begin(p, c + 1);
    if (it1 == it0) return Work{0, 0, 0, 0};
    const long long s = (it1 - 1) / p.iters, start = s * p.iters;  // the last stream-K tile of the range
    const long long from = it0 > start ? it0 : start;
    return Work{p.dpTiles + (int)s, (int)(from - start), (int)(it1 - start), (int)(from - it0)};
}

// The unit after w under tail_plan: the end of the tile before, while the range lasts, then nothing.
__host__ __device__ inline Work tail_next(const Plan& p, const Work& w)
{
    if (w.tile <= p.dpTiles || w.left == 0 || p.skIters == 0) return Work{0, 0, 0, 0};
    const int k0 = w.left < p.iters ? p.iters - w.left : 0;
    return Work{w.tile - 1, k0, p.iters, w.left - (p.iters - k0)};
}

// Thread 0 of the block, tested afresh at each use: a `threadIdx.x == 0` the compiler holds in a
// predicate register across the main loop left the loop too few, and predicates were spilled.
__device__ __forceinline__ bool first_thread()
{
    unsigned t;
    asm volatile("mov.u32 %0, %%tid.x;" : "=r"(t));
    return t == 0;
}

__device__ __forceinline__ void zero(float (&acc)[8][8])
{
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
}

// Four accumulators to p .. p + 3 through L2 (.cg), a float at a time. A float4 store of them asks
// ptxas for an aligned register quadruple, which puts acc[i][j] in b[j]'s register bank: 310-394 of
// streamk128x128x8's 1024 main-loop FFMAs read two operands from one bank (register mod 4) that
// way. Measured on an H100 against float4 stores (sk-scalar/): +3 to +9% of cuBLAS at 2048^3,
// 4096x4096x512 and 1024x1024x8192, -11 / -13% at 512^3 / 1000^3 (where `best` does not run it).
// Not in ragged_tile.cuh's split fix-up: there it gained nothing.
__device__ __forceinline__ void stcg_floats(float* p, float a, float b, float c, float d)
{
    __stcg(p, a);
    __stcg(p + 1, b);
    __stcg(p + 2, c);
    __stcg(p + 3, d);
}

// Segment (c, s) of a split tile: its partial to slot c + s, then the last block to arrive sums
// the tile's slots in order and stores C. Partials: 16 float4s per thread at [q * NT + tid].
template <int BM, int BN, bool AHEAD>
__device__ __forceinline__ void fixup(float (&acc)[8][8], const Plan& p, int c, int s, const ragged::Workspace& ws, int M, int N,
                                      float alpha, float beta, float* C, int bm, int bn, int& last)
{
    constexpr int NT = ragged::Tile<BM, BN>::NT;
    const int tid = threadIdx.x;
    float4* mine = reinterpret_cast<float4*>(ws.partials + (size_t)(c + s) * (BM * BN));
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h)
            stcg_floats(reinterpret_cast<float*>(&mine[(i * 2 + h) * NT + tid]), acc[i][h * 4], acc[i][h * 4 + 1],
                         acc[i][h * 4 + 2], acc[i][h * 4 + 3]);
    const long long base = (long long)s * p.iters;
    const int first = owner(p, base), lastBlock = owner(p, base + p.iters - 1);
    __threadfence();  // the partial is visible device-wide before this block is counted
    __syncthreads();
    if (first_thread()) last = atomicAdd(&ws.counters[s], 1u) == (unsigned)(lastBlock - first);
    __syncthreads();
    if (!last) return;
    __threadfence();  // the other blocks' partials are read after their counts were seen
    zero(acc);
    for (int b = first; b <= lastBlock; ++b) {  // fixed order: the sum does not depend on who came last
        const float4* part = reinterpret_cast<const float4*>(ws.partials + (size_t)(b + s) * (BM * BN));
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const float4 v = __ldcg(&part[(i * 2 + h) * NT + tid]);
                acc[i][h * 4] += v.x;
                acc[i][h * 4 + 1] += v.y;
                acc[i][h * 4 + 2] += v.z;
                acc[i][h * 4 + 3] += v.w;
            }
    }
    ragged::store<BM, BN, AHEAD>(acc, M, N, alpha, beta, C, bm, bn);
    if (first_thread()) ws.counters[s] = 0;  // every segment of this tile has arrived: ready for the next launch
}

__device__ __forceinline__ volatile Work& shared_work()
{
    __shared__ Work w;
    return w;
}

__device__ __forceinline__ void store_work(volatile Work& to, const Work& w)
{
    to.tile = w.tile;
    to.k0 = w.k0;
    to.k1 = w.k1;
    to.left = w.left;
}

__device__ __forceinline__ Work load_work(const volatile Work& w) { return Work{w.tile, w.k0, w.k1, w.left}; }

template <int BM, int BN, bool VEC_B, bool AHEAD>
__device__ __forceinline__ void run(const Plan& p, int M, int N, int K, float alpha, const float* __restrict__ A,
                                    const float* __restrict__ B, float beta, float* __restrict__ C, const ragged::Workspace& ws,
                                    ragged::Smem<BM, BN>& sm, int& last)
{
    float acc[8][8];
    const int c = blockIdx.x;
    // The unit and the plan live in shared memory (block-uniform), re-read where needed: nothing
    // but the main loop's own state stays in registers across it (128 registers, no spills).
    volatile Work& cur = shared_work();
    if (first_thread()) store_work(cur, first_work(p, c));
    __syncthreads();
    while (cur.k1 > cur.k0) {
        const int tile = cur.tile;
        ragged::multiply<BM, BN, VEC_B>(acc, sm, M, N, K, A, B, (tile / p.tilesN) * BM, (tile % p.tilesN) * BN, cur.k0, cur.k1);
        const Work w = load_work(cur);
        const int bm = (w.tile / p.tilesN) * BM, bn = (w.tile % p.tilesN) * BN;
        if (w.k0 == 0 && w.k1 == p.iters)
            ragged::store<BM, BN, AHEAD>(acc, M, N, alpha, beta, C, bm, bn);
        else
            fixup<BM, BN, AHEAD>(acc, p, c, w.tile - p.dpTiles, ws, M, N, alpha, beta, C, bm, bn, last);
        __syncthreads();  // every thread has read `cur` and `last`, and is done with shared memory
        if (first_thread()) store_work(cur, next_work(p, c, w));
        __syncthreads();
    }
}

// The whole GEMM for block blockIdx.x of gridDim.x persistent blocks. AHEAD: the epilogue's
// order of reads and writes of C (ragged::store).
template <int BM, int BN, bool AHEAD = true>
__device__ __forceinline__ void gemm(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                                     float beta, float* __restrict__ C, ragged::Workspace ws)
{
    __shared__ ragged::Smem<BM, BN> sm;  // one copy for both instantiations of run
    __shared__ int last;
    __shared__ Plan p;  // block-uniform; in shared memory, not registers, across the main loop
    if (first_thread()) p = plan(M, N, K, BM, BN, gridDim.x, ws.capacity / (BM * BN), ws.max_tiles);
    __syncthreads();
    if (N % 4 == 0 && ragged::aligned16(B))  // uniform
        run<BM, BN, true, AHEAD>(p, M, N, K, alpha, A, B, beta, C, ws, sm, last);
    else
        run<BM, BN, false, AHEAD>(p, M, N, K, alpha, A, B, beta, C, ws, sm, last);
}

}  // namespace streamk
