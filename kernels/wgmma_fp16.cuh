// Shared body of the FP16 wgmma rungs that take any M and a 16-byte row pitch (wgmma_ragged,
// wgmma_persist, wgmma_persist128): TMA tiles in a full/empty mbarrier ring, 1 producer + 2
// consumer warpgroups, wgmma m64nBNk16 straight from 128B-swizzled shared memory, and a tile
// loop over a grouped raster so that one body serves a grid of all tiles (one tile per CTA) and a
// persistent grid of one CTA per SM.
//
// Why each part:
// - Ragged shapes. The tensor maps carry the true M, N, K, and TMA fills every element of a box
//   outside them with zeros (and still counts the whole box in the barrier's transaction bytes),
//   so a partial tile multiplies zeros: no predicates in the main loop. Only the epilogue checks
//   row < M and column < N. TMA's own rule stays: the global row pitch is a multiple of 16 bytes,
//   so K % 8 == 0 (A's rows) and N % 8 == 0 (B's rows); every column pair a thread stores then
//   lies wholly inside or outside C (N is even), so the float2 stores stay.
// - Persistent loop. The producer's ring index runs on across tiles: while the consumers do the
//   epilogue of tile i (alpha/beta, C read and written), the producer is already filling the
//   freed stages with tile i+1's first k tiles, so the next main loop starts on loaded data.
// - C prefetch. With beta != 0 the epilogue waits on the load of C (wgmma's report: 83% of its
//   long-scoreboard stalls). Eight k tiles before a tile's end each consumer warp asks L2 for the
//   C rows it will read (prefetch.global.L2), so the epilogue's loads hit L2, not DRAM.
// - Raster (tile_of): groups of GROUP tile rows, walked column by column inside a group, so the
//   CTAs running at once share A and B panels in L2. The schedule is modelled in Python
//   (tests/test_wgmma_fp16_schedule.py): every tile visited once for any grid and shape.
//
// Layouts (as wgmma's): A K-major, one 64(k) x 128(m) box per stage; B MN-major (imm-trans-b),
// BN/64 boxes of 64(n) x 64(k), LBO = one box (8 KB), SBO = 1024 bytes (an 8-row k group); the
// k16 step is +32 bytes in A and +2048 bytes in B.
//
// Contract: 384 threads, 1 CTA per SM (__launch_bounds__(384, 1) in the including .cu, which also
// declares the dynamic shared memory: smem_bytes<BN, STAGES>()); sm_90a. Include after <cuda.h>,
// <cuda_fp16.h> and <stdint.h>.
#pragma once

#include "hopper.cuh"

namespace wgfp16 {

constexpr int BM = 128;                     // two consumer warpgroups of 64 rows each
constexpr int BK = 64;                      // one 128-byte swizzled row of FP16
constexpr int THREADS = 384;
constexpr int A_BOX = BM * BK * 2;          // 16,384 bytes
constexpr int B_BOX = 64 * BK * 2;          // 8,192 bytes: 64(n) x 64(k)
constexpr int ALIGN = 1024;                 // swizzled tiles start on 1024-byte boundaries
constexpr int PREFETCH_AHEAD = 8;           // k tiles before a tile's end at which C is prefetched

template <int BN> __host__ __device__ constexpr int stage_bytes() { return A_BOX + BN / 64 * B_BOX; }
// Stages, the alignment slack, then 2 * STAGES mbarriers rounded up to 128 bytes.
template <int BN, int STAGES> __host__ __device__ constexpr int smem_bytes()
{
    return STAGES * stage_bytes<BN>() + ALIGN + (2 * STAGES * 8 + 127) / 128 * 128;
}

// Tile t of a tilesM x tilesN grid in grouped raster order: GROUP tile rows at a time (the last
// group may be shorter), column by column inside a group.
struct Tile { int m, n; };
__device__ __forceinline__ Tile tile_of(int t, int tilesM, int tilesN, int group)
{
    const int perGroup = group * tilesN;
    const int first = t / perGroup * group;
    const int rows = min(tilesM - first, group);
    const int in = t % perGroup;
    return {first + in % rows, in / rows};
}

// Keeps the compiler from moving accumulator reads/writes across the asynchronous MMAs.
template <int NACC>
__device__ __forceinline__ void pin(float* d)
{
#pragma unroll
    for (int i = 0; i < NACC; ++i) asm volatile("" : "+f"(d[i]) :: "memory");
}

#define WGFP16_D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), \
                     "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define WGFP16_D32(i) WGFP16_D8(i), WGFP16_D8(i + 8), WGFP16_D8(i + 16), WGFP16_D8(i + 24)

// D[64 x BN] += A[64x16] (K-major) * B[16 x BN] (MN-major), accumulate (scale-d = 1).
template <int BN> __device__ __forceinline__ void mma_k16(float* d, uint64_t descA, uint64_t descB);

template <> __device__ __forceinline__ void mma_k16<256>(float* d, uint64_t descA, uint64_t descB)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"  // scale-d = 1: accumulate
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
        "}, %128, %129, p, 1, 1, 0, 1;\n"
        "}\n"
        : WGFP16_D32(0), WGFP16_D32(32), WGFP16_D32(64), WGFP16_D32(96)
        : "l"(descA), "l"(descB), "r"(1)
        : "memory");
}

template <> __device__ __forceinline__ void mma_k16<128>(float* d, uint64_t descA, uint64_t descB)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"  // scale-d = 1: accumulate
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, p, 1, 1, 0, 1;\n"
        "}\n"
        : WGFP16_D32(0), WGFP16_D32(32)
        : "l"(descA), "l"(descB), "r"(1)
        : "memory");
}

// C[r, col..col+1] = alpha * (v0, v1) (+ beta * C) for the pair when it lies inside C.
__device__ __forceinline__ void store_pair(float* p, bool inside, float alpha, float beta, float v0, float v1)
{
    if (!inside) return;
    float2 o = make_float2(alpha * v0, alpha * v1);
    if (beta != 0.0f) {
        const float2 c = *reinterpret_cast<const float2*>(p);
        o.x += beta * c.x;
        o.y += beta * c.y;
    }
    *reinterpret_cast<float2*>(p) = o;
}

// Split-K scratch (SPLIT bodies): a module-scope partial-tile area and one arrival counter per
// tile, zero at module load; the last split of a tile resets its counter.
struct Workspace {
    float* partials;
    unsigned* counters;
    long long floats;                       // capacity of partials
    int maxTiles;                           // entries of counters
};

// The whole kernel body. smem: the dynamic shared memory of smem_bytes<BN, STAGES>() bytes.
// SPLIT: the grid is tiles * S CTAs (S = gridDim.x / tiles); work item w is split w % S of tile
// w / S, k tiles [j kTiles / S, (j + 1) kTiles / S). Every split writes its FP32 partial to the
// workspace and counts itself in; the split that arrives last sums the S partials in the order
// j = 0..S-1 (the result does not depend on arrival order) and runs the epilogue. No CTA waits
// for another. A grid that does not fit the workspace runs unsplit (S = 1).
template <int BN, int STAGES, int GROUP, bool SPLIT = false>
__device__ __forceinline__ void gemm(int M, int N, int K, float alpha, float beta, float* __restrict__ C,
                                     const CUtensorMap* tmA, const CUtensorMap* tmB, unsigned char* smem,
                                     Workspace ws = {})
{
    constexpr int STAGE = stage_bytes<BN>();
    constexpr int NACC = BN / 2;            // 64 x BN floats over 128 threads
    const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
    const uint32_t tiles = (raw + ALIGN - 1) & ~(uint32_t)(ALIGN - 1);
    const uint32_t bars = tiles + STAGES * STAGE;
    auto full = [&](int s) { return bars + 8u * s; };
    auto empty = [&](int s) { return bars + 8u * (STAGES + s); };

    const int wg = threadIdx.x / 128;       // 0: producer, 1-2: consumers
    const int tid = threadIdx.x % 128;
    const int tilesM = (M + BM - 1) / BM, tilesN = (N + BN - 1) / BN;
    const int nTiles = tilesM * tilesN;
    const int kTiles = (K + BK - 1) / BK;
    int S = 1;
    if constexpr (SPLIT) {
        S = max(1, (int)gridDim.x / nTiles);
        if (S > 1 && ((long long)nTiles * S * BM * BN > ws.floats || nTiles > ws.maxTiles)) S = 1;
    }
    const int nItems = nTiles * S;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(full(s), 1);          // the producer's arrive.expect_tx
            mbar_init(empty(s), 2 * 4);     // one arrive per consumer warp
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    }
    __syncthreads();

    if (wg == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (tid == 0) {
            asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(tmA)) : "memory");
            asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(tmB)) : "memory");
            int s = 0, round = 0;           // ring position, continued from tile to tile
            for (int w = blockIdx.x; w < nItems; w += gridDim.x) {
                const Tile x = tile_of(w / S, tilesM, tilesN, GROUP);
                const int j = w % S, kEnd = (j + 1) * kTiles / S;
                for (int kt = j * kTiles / S; kt < kEnd; ++kt) {
                    if (round > 0) mbar_wait(empty(s), (round - 1) & 1);    // released in round-1
                    const uint32_t sa = tiles + s * STAGE;
                    mbar_arrive_expect_tx(full(s), STAGE);                  // whole boxes, zero-filled or not
                    tma_load_2d(sa, tmA, kt * BK, x.m * BM, full(s));
#pragma unroll
                    for (int j = 0; j < BN / 64; ++j)
                        tma_load_2d(sa + A_BOX + j * B_BOX, tmB, x.n * BN + 64 * j, kt * BK, full(s));
                    if (++s == STAGES) { s = 0; ++round; }
                }
            }
        }
        return;
    }

    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    const int c = wg - 1;                   // rows 64c..64c+63 of the tile
    const int warp = tid / 32, lane = tid % 32;
    int s = 0, round = 0;
    for (int w = blockIdx.x; w < nItems; w += gridDim.x) {
        const int t = w / S, j = w % S, kBegin = j * kTiles / S, kEnd = (j + 1) * kTiles / S;
        const Tile x = tile_of(t, tilesM, tilesN, GROUP);
        const int row0 = x.m * BM + c * 64 + warp * 16;     // this warp's 16 rows
        const int col0 = x.n * BN;
        float d[NACC];
#pragma unroll
        for (int i = 0; i < NACC; ++i) d[i] = 0.0f;
        pin<NACC>(d);

        int held = -1;                      // the stage whose MMAs may still be running
        for (int kt = kBegin; kt < kEnd; ++kt) {
            mbar_wait(full(s), round & 1);
            const uint32_t sa = tiles + s * STAGE + c * 64 * 128;      // 64 rows of 128 bytes
            const uint32_t sb = tiles + s * STAGE + A_BOX;
            wgmma_fence();
#pragma unroll
            for (int k = 0; k < BK / 16; ++k)
                mma_k16<BN>(d, smem_desc(sa + 32 * k, 16, 1024), smem_desc(sb + 2048 * k, B_BOX, 1024));
            wgmma_commit();
            pin<NACC>(d);
            wgmma_wait<1>();                // the previous k tile's MMAs have retired...
            pin<NACC>(d);
            if (held >= 0 && lane == 0) mbar_arrive(empty(held));     // ...so its stage is free
            held = s;
            if (++s == STAGES) { s = 0; ++round; }
            if (beta != 0.0f && kt == max(kEnd - PREFETCH_AHEAD, kBegin)) {
                constexpr int LINES = BN / 32;                         // 128-byte lines per row
#pragma unroll
                for (int i = 0; i < 16 * LINES / 32; ++i) {
                    const int idx = lane + 32 * i;
                    const int r = row0 + idx / LINES, col = col0 + idx % LINES * 32;
                    if (r < M && col < N)
                        asm volatile("prefetch.global.L2 [%0];\n" :: "l"(C + (size_t)r * N + col));
                }
            }
        }
        wgmma_wait<0>();
        pin<NACC>(d);
        if (held >= 0 && lane == 0) mbar_arrive(empty(held));

        if constexpr (SPLIT) {
            if (S > 1) {
                // Partial of item w, float4 q of consumer thread th at partials[((w * NACC/4 + q) * 256 + th) * 4]:
                // each float4 store of a warp covers 512 contiguous bytes.
                constexpr int Q = NACC / 4;
                const int th = c * 128 + tid;
                float4* const part = reinterpret_cast<float4*>(ws.partials);
#pragma unroll
                for (int q = 0; q < Q; ++q)
                    part[((size_t)w * Q + q) * 256 + th] = make_float4(d[4 * q], d[4 * q + 1], d[4 * q + 2], d[4 * q + 3]);
                __threadfence();            // the partial is visible device-wide before this split is counted
                __shared__ int lastSplit;
                asm volatile("bar.sync 1, 256;\n" ::: "memory");         // the consumer warpgroups
                if (th == 0) lastSplit = atomicAdd(&ws.counters[t], 1u) == (unsigned)(S - 1);
                asm volatile("bar.sync 1, 256;\n" ::: "memory");
                if (!lastSplit) continue;
                __threadfence();            // the other splits' partials are read after their counts were seen
#pragma unroll
                for (int q = 0; q < Q; ++q) {
                    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
                    for (int k = 0; k < S; ++k) {
                        const float4 p = __ldcg(&part[((size_t)(t * S + k) * Q + q) * 256 + th]);
                        sum.x += p.x; sum.y += p.y; sum.z += p.z; sum.w += p.w;
                    }
                    d[4 * q] = sum.x; d[4 * q + 1] = sum.y; d[4 * q + 2] = sum.z; d[4 * q + 3] = sum.w;
                }
                if (th == 0) ws.counters[t] = 0;                          // ready for the next launch
            }
        }

        // d[4j + {0,1}] = (row, 8j + 2q + {0,1}), d[4j + {2,3}] = (row + 8, same columns), q = lane % 4.
        const int r = row0 + lane / 4;
        const int col = col0 + 2 * (lane % 4);
        float* const c0 = C + (size_t)r * N + col;
        float* const c1 = c0 + (size_t)8 * N;
        const bool in0 = r < M, in1 = r + 8 < M;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
            const bool inCol = col + 8 * j < N;
            store_pair(c0 + 8 * j, in0 && inCol, alpha, beta, d[4 * j], d[4 * j + 1]);
            store_pair(c1 + 8 * j, in1 && inCol, alpha, beta, d[4 * j + 2], d[4 * j + 3]);
        }
    }
}

}  // namespace wgfp16
