// reduce_scatter.cuh: split-K partials summed by every split of a tile at once, a slice of the
// tile each (a reduce-scatter), for the rs rungs (splitk128x256x8rs, splitk64x64x8rs); its
// sum_tile is streamk128x256x8's fix-up, which sums a whole tile in one block.
//
// Why: a tree (fold.cuh) or a last arrival (ragged_tile.cuh) leaves the sum to a few blocks while
// the others have finished; with S splits here every block reads one tile's worth of partials,
// whatever S is, and writes 1/S of C.
//
// Protocol, per tile: split z writes its partial, row-major BM x BN floats, in slot
// z * tiles + tile of the workspace (each rung's put: its accumulators' layout differs), then
// wait_all: fences, counts itself in on the tile's arrival counter and waits until it reaches S.
// Then sum_slice of its slice [z * F / S, (z + 1) * F / S) of the tile's F float4s, then leave:
// it counts itself out on the tile's departure counter, and the last one out resets both (every
// split has left the wait by then) for the next launch. Waiting needs every split of a tile
// resident at once: the rungs launch their split grids cooperatively.
//
// The sum: a slice of few float4s over many partials (S = 198 of a 64x64 tile: 5 float4s) would
// leave most threads idle and each active one a long chain of loads. So R lanes (a power of two,
// at most 32, as many as NT / slice allows) share a float4: lane r adds partials z = r, r + R, ...
// in that order, then the R lanes combine by a butterfly of shuffles. The order depends only on
// S and the slice, so the sum is the same from run to run (deterministic), whoever arrived first.

#pragma once

#include <cstdint>

namespace rsum {

// The float4s [lo, hi) of a tile of `count` that split z of S sums.
__device__ __forceinline__ int slice_begin(int z, int splits, int count) { return (int)((long long)z * count / splits); }

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

// This split is done with the tile; the last of the S to leave resets both counters.
__device__ __forceinline__ void leave(unsigned* arrived, unsigned* departed, unsigned splits)
{
    __syncthreads();
    if (threadIdx.x == 0 && atomicAdd(departed, 1u) == splits - 1) {
        *arrived = 0;  // every split is past its wait: ready for the next launch
        *departed = 0;
    }
}

// C's float4s [lo, hi) of the BM x BN tile at (bm, bn) = alpha * (sum of the S partials in slots
// first + z * step) + beta * C, by the block's NT threads; rows past M and columns past N skipped,
// C element by element unless `vec` (N % 4 == 0, C 16-byte aligned). A thread takes U float4s a
// pass and reads all their partials and C before it writes any C: a write between two reads
// would hold the next read back (the compiler cannot prove C and the partials apart), one L2
// latency per float4. The rs rungs take U = 1: their wait is the chain of a float4's S partials
// (8 loads of it in flight). A lane's loads count is fixed before its loop so that the loop
// unrolls: striding by a run-time R, it did not, one L2 latency per partial (splitk128x256x8rs 3%
// slower at S = 16..64). Under 8 partials the loop takes its loads one at a time; sum_tile's
// predicated loads cure that for streamk128x256x8, but here they reallocated the rs rungs' main
// loops (H100, A/B run ab16d: splitk128x256x8rs -0.4 to -2.3% of cuBLAS at most of its shapes,
// splitk64x64x8rs down to -4.4, splitk256x128x8rs up to +4), so this loop stays. U > 1 has no
// caller since sum_tile took the whole-tile sum; the text stays as it is because the same code
// written without U compiled to other machine code for the rs rungs.
template <int BM, int BN, int NT, int U = 1>
__device__ __forceinline__ void sum_slice(const float* partials, int first, int step, int splits, int lo, int hi, int M,
                                          int N, float alpha, float beta, float* C, int bm, int bn, bool vec)
{
    constexpr int TILE_F4 = BM * BN / 4;
    static_assert(NT % 32 == 0, "whole warps");
    int lanesLog = 0;  // R = 1 << lanesLog lanes per float4
    while (lanesLog < 5 && (2 << lanesLog) * (hi - lo) <= NT) ++lanesLog;
    const int R = 1 << lanesLog, per = NT >> lanesLog;  // per: float4s a pass, for each u
    const int q = (int)threadIdx.x >> lanesLog, r = (int)threadIdx.x & (R - 1);
    const float4* const base = reinterpret_cast<const float4*>(partials) + (size_t)first * TILE_F4;
    const size_t zStride = (size_t)step * TILE_F4;
    for (int f0 = lo; f0 < hi; f0 += U * per) {  // the same trip count in every thread: the shuffles below
        float v[U][4];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int f = f0 + u * per + q;
            float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
            if (f < hi) {
                const int terms = (splits - r + R - 1) >> lanesLog;  // z = r + i * R: a count known on entry, so unrolled
#pragma unroll 8
                for (int i = 0; i < terms; ++i) {
                    const float4 p = __ldcg(base + (size_t)(r + (i << lanesLog)) * zStride + f);
                    s.x += p.x;
                    s.y += p.y;
                    s.z += p.z;
                    s.w += p.w;
                }
            }
            for (int m = R >> 1; m > 0; m >>= 1) {  // lanes of one float4 are R aligned lanes of one warp
                s.x += __shfl_xor_sync(0xffffffffu, s.x, m);
                s.y += __shfl_xor_sync(0xffffffffu, s.y, m);
                s.z += __shfl_xor_sync(0xffffffffu, s.z, m);
                s.w += __shfl_xor_sync(0xffffffffu, s.w, m);
            }
            v[u][0] = alpha * s.x;
            v[u][1] = alpha * s.y;
            v[u][2] = alpha * s.z;
            v[u][3] = alpha * s.w;
        }
        auto at = [&](int u, int& n) -> float* {  // C's float4 of this thread's u-th, n of its columns inside N; null if none
            const int f = f0 + u * per + q;
            const int row = bm + f / (BN / 4), col = bn + (f % (BN / 4)) * 4;
            n = min(4, N - col);
            return r == 0 && f < hi && row < M && n > 0 ? C + (size_t)row * N + col : nullptr;
        };
        if (beta != 0.0f) {
#pragma unroll
            for (int u = 0; u < U; ++u) {
                int n;
                const float* cp = at(u, n);
                if (!cp) continue;
                if (vec) {
                    const float4 c = *reinterpret_cast<const float4*>(cp);
                    v[u][0] += beta * c.x;
                    v[u][1] += beta * c.y;
                    v[u][2] += beta * c.z;
                    v[u][3] += beta * c.w;
                } else {
#pragma unroll
                    for (int j = 0; j < 4; ++j)
                        if (j < n) v[u][j] += beta * cp[j];
                }
            }
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            int n;
            float* const cp = at(u, n);
            if (!cp) continue;
            if (vec) {
                *reinterpret_cast<float4*>(cp) = make_float4(v[u][0], v[u][1], v[u][2], v[u][3]);
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    if (j < n) cp[j] = v[u][j];
            }
        }
    }
}

// C's whole BM x BN tile at (bm, bn) = alpha * (sum of the `count` partials in slots first ..
// first + count - 1, in that order) + beta * C, by the block's NT threads: the stream-K fix-up of
// streamk128x256x8, whose tiles have a few partials (2-3 at 4096^3). Every load a thread makes in
// a pass is in flight before its first use: U float4s of C, and of each of CH slots at a time
// (predicated, not a loop of run-time length: sum_slice's loop over a few partials left each load
// of a float4's chain waiting on the one before, one L2 latency each, 16 in a pass). A slot's quad q
// holds column (q + ROT) % 4 of its float4 (the accumulators' rotation: spread_tile.cuh).
template <int BM, int BN, int NT, int U, int CH, int ROT>
__device__ __forceinline__ void sum_tile(const float* partials, int first, int count, int M, int N, float alpha, float beta,
                                         float* C, int bm, int bn, bool vec)
{
    constexpr int TILE_F4 = BM * BN / 4;
    static_assert(TILE_F4 % (U * NT) == 0, "whole passes");
    const int tid = threadIdx.x;
    const float4* const base = reinterpret_cast<const float4*>(partials) + (size_t)first * TILE_F4 + tid;
    for (int f0 = 0; f0 < TILE_F4; f0 += U * NT) {
        float s[U][4];
#pragma unroll
        for (int u = 0; u < U; ++u) s[u][0] = s[u][1] = s[u][2] = s[u][3] = 0.0f;
        for (int z0 = 0; z0 < count; z0 += CH) {
            float4 p[CH][U];
#pragma unroll
            for (int j = 0; j < CH; ++j)
#pragma unroll
                for (int u = 0; u < U; ++u)
                    p[j][u] = z0 + j < count ? __ldcg(base + (size_t)(z0 + j) * TILE_F4 + f0 + u * NT) : make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
            for (int j = 0; j < CH; ++j)
                if (z0 + j < count)
#pragma unroll
                    for (int u = 0; u < U; ++u) {
                        const float q[4] = {p[j][u].x, p[j][u].y, p[j][u].z, p[j][u].w};
#pragma unroll
                        for (int e = 0; e < 4; ++e) s[u][e] += q[(e - ROT) & 3];
                    }
        }
        float* cp[U];
        int n[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int f = f0 + u * NT + tid;
            const int row = bm + f / (BN / 4), col = bn + (f % (BN / 4)) * 4;
            n[u] = row < M ? max(0, min(4, N - col)) : 0;
            cp[u] = C + (size_t)row * N + col;
        }
        if (beta != 0.0f) {  // all of the pass's C read before any of it is written
            float c[U][4];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                if (vec) {
                    const float4 v = n[u] == 4 ? *reinterpret_cast<const float4*>(cp[u]) : make_float4(0.f, 0.f, 0.f, 0.f);
                    c[u][0] = v.x, c[u][1] = v.y, c[u][2] = v.z, c[u][3] = v.w;
                } else {
#pragma unroll
                    for (int e = 0; e < 4; ++e) c[u][e] = e < n[u] ? cp[u][e] : 0.0f;
                }
            }
#pragma unroll
            for (int u = 0; u < U; ++u)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    s[u][e] *= alpha;
                    s[u][e] += beta * c[u][e];
                }
        } else {
#pragma unroll
            for (int u = 0; u < U; ++u)
#pragma unroll
                for (int e = 0; e < 4; ++e) s[u][e] *= alpha;
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (vec) {
                if (n[u] == 4) *reinterpret_cast<float4*>(cp[u]) = make_float4(s[u][0], s[u][1], s[u][2], s[u][3]);
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    if (e < n[u]) cp[u][e] = s[u][e];
            }
        }
    }
}

// The whole exchange for split z of a tile, once its partial is in its slot: wait for the other
// splits, sum this split's slice into C, leave.
template <int BM, int BN, int NT>
__device__ __forceinline__ void exchange(const float* partials, unsigned* arrived, unsigned* departed, int tile, int tiles,
                                         int z, int splits, int M, int N, float alpha, float beta, float* C, int bm, int bn)
{
    constexpr int TILE_F4 = BM * BN / 4;
    wait_all(arrived + tile, splits);
    const bool vec = N % 4 == 0 && (reinterpret_cast<uintptr_t>(C) & 15) == 0;
    sum_slice<BM, BN, NT>(partials, tile, tiles, splits, slice_begin(z, splits, TILE_F4), slice_begin(z + 1, splits, TILE_F4),
                          M, N, alpha, beta, C, bm, bn, vec);
    leave(arrived + tile, departed + tile, splits);
}

}  // namespace rsum
