// fold.cuh: split-K partial tiles summed in a fixed-order two-level tree, for the split rungs
// whose splits each hold one R x C accumulator per thread (t4_tile.cuh's 4x4, splitk128x256x8's
// 16x8).
//
// Why a tree: the block that sums S partials of a tile reads them alone, one SM at about 64 bytes
// a clock from L2; 16 partials of a 128x256 tile are 2 MiB, some 16 us, where the split GEMM itself
// takes 100-200 us. Groups of G consecutive splits cut that to G + cdiv(S, G) partials.
//
// Workspace: split z of tile t writes slot z * tiles + t (tile_floats floats, as float4 q of this
// thread at [q * NT + tid]: coalesced per q). Counters: tile * NG + g for the NG = cdiv(S, G)
// groups, tiles * NG + tile for the tiles (when NG > 1), all zero between launches.
// Each split fences and counts itself in on its group's counter; the last of the group to arrive
// (whichever it is) sums the group's slots in the order z = g*G, g*G+1, ... and resets that counter.
// With one group it then holds the tile's sum. Otherwise it writes the group's sum over the slot
// of the group's first split (read by nobody else), fences and counts in on the tile's counter;
// the last group to arrive sums the group sums in the order g = 0..NG-1 and resets that counter.
// The sum is the same whatever the arrival order (deterministic); no block waits for another, so
// there is no deadlock whatever the scheduling.

#pragma once

#include "ragged_tile.cuh"

namespace fold {

template <int R, int C>
__device__ __forceinline__ void zero(float (&acc)[R][C])
{
#pragma unroll
    for (int i = 0; i < R; ++i)
#pragma unroll
        for (int j = 0; j < C; ++j) acc[i][j] = 0.0f;
}

// A partial tile in the workspace: float4 q = (i, h) of this thread, q = i * (C / 4) + h, at [q * NT + tid].
template <int NT, int R, int C>
__device__ __forceinline__ void put(float* slot, const float (&acc)[R][C])
{
    static_assert(C % 4 == 0, "rows of whole float4s");
    float4* p = reinterpret_cast<float4*>(slot);
#pragma unroll
    for (int i = 0; i < R; ++i)
#pragma unroll
        for (int h = 0; h < C / 4; ++h)
            __stcg(&p[(i * (C / 4) + h) * NT + threadIdx.x],
                   make_float4(acc[i][h * 4], acc[i][h * 4 + 1], acc[i][h * 4 + 2], acc[i][h * 4 + 3]));
}

// acc = the sum of the partials in slots first, first + step, ... (n of them), in that order.
// Rows of acc are summed a pass of ROWS at a time, about 16 float4 loads in flight per thread
// (enough to keep one SM's L2 reads busy) rather than all 32 of a 16x8 accumulator's float4s at once.
template <int NT, int R, int C>
__device__ __forceinline__ void sum(float (&acc)[R][C], const float* slots, int first, int step, int n, int tile_floats)
{
    constexpr int V = C / 4;                      // float4s per row
    constexpr int ROWS = R * V <= 16 ? R : 16 / V;  // rows per pass
    constexpr int UNROLL = 16 / (ROWS * V) > 1 ? 16 / (ROWS * V) : 1;
    static_assert(R % ROWS == 0, "whole passes");
    zero(acc);
#pragma unroll
    for (int r0 = 0; r0 < R; r0 += ROWS) {
#pragma unroll UNROLL
        for (int q = 0; q < n; ++q) {  // fixed order: the sum does not depend on who came last
            const float4* p = reinterpret_cast<const float4*>(slots + (size_t)(first + q * step) * tile_floats);
#pragma unroll
            for (int i = r0; i < r0 + ROWS; ++i)
#pragma unroll
                for (int h = 0; h < V; ++h) {
                    const float4 v = __ldcg(&p[(i * V + h) * NT + threadIdx.x]);
                    acc[i][h * 4] += v.x;
                    acc[i][h * 4 + 1] += v.y;
                    acc[i][h * 4 + 2] += v.z;
                    acc[i][h * 4 + 3] += v.w;
                }
        }
    }
}

// Publish the partial already written by this block and count it in on `counter` of `expected`
// arrivals; true (block-uniform) for the block that arrives last, which may then read the others.
// `last` is a __shared__ int of the caller's.
__device__ __forceinline__ bool arrive(unsigned* counter, int expected, int& last)
{
    __threadfence();  // this block's partial is visible device-wide before it is counted
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(counter, 1u) == (unsigned)(expected - 1);
    __syncthreads();
    if (!last) return false;
    __threadfence();  // the other partials are read after their counts were seen
    return true;
}

// Counters the tree needs for `tiles` tiles of S splits in groups of G.
__host__ __device__ __forceinline__ long long counters(int tiles, int splits, int G)
{
    const int groups = (splits + G - 1) / G;
    return (long long)tiles * (groups > 1 ? groups + 1 : 1);
}

// Split z's partial acc of tile `tile` into the tree. True (block-uniform) for the one block that
// then holds the whole sum in acc and must store C; every other block is done.
template <int NT, int R, int C>
__device__ __forceinline__ bool tree(float (&acc)[R][C], const ragged::Workspace& ws, int tile, int tiles, int z,
                                     int splits, int G, int& last)
{
    constexpr int TILE = NT * R * C;  // floats of one partial tile
    const int groups = (splits + G - 1) / G;
    const int g = z / G, first = g * G, members = min(G, splits - first);
    put<NT>(ws.partials + ((size_t)z * tiles + tile) * TILE, acc);
    unsigned* groupCounter = &ws.counters[tile * groups + g];
    if (!arrive(groupCounter, members, last)) return false;
    sum<NT>(acc, ws.partials, first * tiles + tile, tiles, members, TILE);
    if (threadIdx.x == 0) *groupCounter = 0;  // every split of the group has arrived: ready for the next launch
    if (groups > 1) {
        put<NT>(ws.partials + ((size_t)first * tiles + tile) * TILE, acc);  // the group's sum over its first slot
        unsigned* tileCounter = &ws.counters[tiles * groups + tile];
        if (!arrive(tileCounter, groups, last)) return false;
        sum<NT>(acc, ws.partials, tile, G * tiles, groups, TILE);
        if (threadIdx.x == 0) *tileCounter = 0;
    }
    return true;
}

}  // namespace fold
