// reduce_scatter.cuh: split-K partials summed by every split of a tile at once, a slice of the
// tile each (a reduce-scatter), for the rs rungs (splitk128x256x8rs, splitk64x64x8rs).
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
// C element by element unless `vec` (N % 4 == 0, C 16-byte aligned). Each float4 of C is read
// before it is written.
template <int BM, int BN, int NT>
__device__ __forceinline__ void sum_slice(const float* partials, int first, int step, int splits, int lo, int hi, int M,
                                          int N, float alpha, float beta, float* C, int bm, int bn, bool vec)
{
    constexpr int TILE_F4 = BM * BN / 4;
    static_assert(NT % 32 == 0, "whole warps");
    int lanesLog = 0;  // R = 1 << lanesLog lanes per float4
    while (lanesLog < 5 && (2 << lanesLog) * (hi - lo) <= NT) ++lanesLog;
    const int R = 1 << lanesLog, per = NT >> lanesLog;  // per: float4s a pass
    const int q = (int)threadIdx.x >> lanesLog, r = (int)threadIdx.x & (R - 1);
    const float4* const base = reinterpret_cast<const float4*>(partials) + (size_t)first * TILE_F4;
    const size_t zStride = (size_t)step * TILE_F4;
    for (int f0 = lo; f0 < hi; f0 += per) {  // the same trip count in every thread: the shuffles below
        const int f = f0 + q;
        float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
        if (f < hi) {
#pragma unroll 8
            for (int z = r; z < splits; z += R) {
                const float4 v = __ldcg(base + z * zStride + f);
                s.x += v.x;
                s.y += v.y;
                s.z += v.z;
                s.w += v.w;
            }
        }
        for (int m = R >> 1; m > 0; m >>= 1) {  // lanes of one float4 are R aligned lanes of one warp
            s.x += __shfl_xor_sync(0xffffffffu, s.x, m);
            s.y += __shfl_xor_sync(0xffffffffu, s.y, m);
            s.z += __shfl_xor_sync(0xffffffffu, s.z, m);
            s.w += __shfl_xor_sync(0xffffffffu, s.w, m);
        }
        if (r != 0 || f >= hi) continue;
        const int row = bm + f / (BN / 4), col = bn + (f % (BN / 4)) * 4;
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
