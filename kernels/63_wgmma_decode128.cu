// wgmma_decode128: wgmma_decode for M of 65-128: a CTA's tile is 128 rows (two 64-row halves) by
// 64 columns of B, so each B stage feeds both halves and B is still read once.
//
// Predecessor: wgmma_decode. Above 64 rows wgmma_decode needs a second row of tiles: twice the
// CTAs (256 at N = 4096, two waves of one CTA an SM) each streaming the same B. cuBLAS's time is
// flat from M = 3 to M = 128 (18-19 us at N = K = 4096, H200), while skinny and wgmma_swap64, which
// split K over global partials, ran 69-72% of it at M 78-99 (benchmarks/results/2026-11-29-h200,
// runs.tar.xz: decode-llm-2/decode-llm-rows). The SM is far from its tensor peak at these sizes
// (a 128 x 64 x 64 k tile is 1 MFLOP per 8 KB of B), so the second half costs MMAs, not bytes.
// Idea: the stage holds A's two 64-row boxes and B's box (24 KB, 8 stages in the same 192 KB);
// four consumer warpgroups, one per (row half, k parity): each issues per k tile what a consumer
// of wgmma_decode does, so the chain of MMAs that set wgmma_decode's pace is no longer. The
// accumulators meet as in wgmma_decode: written into the drained ring, summed by CTA rank over
// distributed shared memory in a fixed order.
// Measured against cuBLAS GemmEx (H200, 2026-11-29-h200, runs.tar.xz: decode128/): at N = K = 4096
// 91-96% at M 96-128 and 72-86% at M 65-99 (skinny 69-82%): its time is 21-24 us at every M,
// where cuBLAS's is 17.5-18 us below 96 rows. Its consumers wait on the ring's full barriers most
// of the launch. A ninth stage (222 KB) gained nothing; two 64-row CTAs of a cluster over the
// whole K, B multicast between them, ran no faster (72-93%, 14 stages 76-97%). Where it pays
// (best-fp16's rule, chosen on decode-llm-rows, scored on decode-llm-rows-unseen): M 65-112 where
// the clusters fill 116-132 SMs and K <= 8192; at K of 11008-14336 wgmma_swap64 keeps some shapes.
//
// Contract: block (544), grid (cdiv(N, 64), cdiv(M, 128), 2) (z: the cluster), 197,760 bytes of
// dynamic shared memory (one CTA an SM); sm_90a. M any; N and K multiples of 8 (TMA's 16-byte
// rows). beta == 0: C is not read. Kernel parameters: the fixed list, then the tensor maps of A
// (box 64 k x 64 rows) and B (box 64 n x 64 k), both 128B-swizzled.

#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include "wgmma_fp16.cuh"                            // hopper.cuh's primitives, WGFP16_D32, pin

#define KSPLIT 2                                     // CTAs of a cluster, each a k range of the tile
#ifndef RING
#define RING 8                                       // stages
#endif
#define HALVES 2                                     // 64-row halves of the tile
#define PARITIES 2                                   // consumers of one half, taking k tiles by turns
#define CONSUMERS (HALVES * PARITIES)                // consumer warpgroup c: half c / PARITIES, parity c % PARITIES
#define NTHREADS (128 * CONSUMERS + 32)              // the consumer warpgroups, then one producer warp
#define TILE 64                                      // rows of a half, columns of B a CTA
#define BOX_BYTES (TILE * wgfp16::BK * 2)            // 8,192: a 64 x 64 FP16 box
#define STAGE_BYTES ((HALVES + 1) * BOX_BYTES)       // A's two boxes, then B's
#define SMEM_BYTES (RING * STAGE_BYTES + 1024 + 128)  // 197,760 at 8 stages: the manifest's
#define NACC 32                                      // 64 x 64 floats over 128 threads
static_assert(CONSUMERS * NACC * 128 * 4 <= RING * STAGE_BYTES, "the accumulators fit in the ring");
#define PAIRS (NACC / 2 / KSPLIT)                    // float pairs of a half a CTA sums, per thread
static_assert(PAIRS % PARITIES == 0, "a half's consumers share its sums evenly");

// D[64 x 64] += A[64 x 16] (K-major) * B[16 x 64] (MN-major: imm-trans-b = 1).
__device__ __forceinline__ void mma_m64n64k16(float* d, uint64_t descA, uint64_t descB)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
        "}, %32, %33, p, 1, 1, 0, 1;\n"
        "}\n"
        : WGFP16_D32(0)
        : "l"(descA), "l"(descB), "r"(1)
        : "memory");
}

__device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

// The float pair at shared address `addr` of cluster CTA `rank`.
__device__ __forceinline__ float2 load_peer(uint32_t addr, int rank)
{
    uint32_t remote;
    float2 v;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(addr), "r"(rank));
    asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];\n" : "=f"(v.x), "=f"(v.y) : "r"(remote) : "memory");
    return v;
}

extern "C" __global__ void __cluster_dims__(1, 1, KSPLIT) __launch_bounds__(NTHREADS, 1)
hgemm_wgmma_decode128(int M, int N, int K, float alpha, const __half* __restrict__ A, const __half* __restrict__ B,
                      float beta, float* __restrict__ C, const __grid_constant__ CUtensorMap tmA,
                      const __grid_constant__ CUtensorMap tmB)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
    const uint32_t tiles = (raw + 1023) & ~1023u;
    const uint32_t bars = tiles + RING * STAGE_BYTES;
    auto full = [&](int s) { return bars + 8u * s; };
    auto empty = [&](int s) { return bars + 8u * (RING + s); };

    const int n0 = blockIdx.x * TILE, m0 = blockIdx.y * HALVES * TILE;
    const int rank = blockIdx.z;                     // the cluster spans z: the CTA's rank in it
    const int kTiles = (K + wgfp16::BK - 1) / wgfp16::BK;
    const int kBegin = rank * kTiles / KSPLIT, nMine = (rank + 1) * kTiles / KSPLIT - kBegin;  // k tiles of this CTA
    const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
    const int half = wg / PARITIES, parity = wg % PARITIES;
    const int warp = tid / 32, lane = tid % 32;

    if (threadIdx.x == 0) ring_init(bars, RING, 4 * HALVES);  // a stage is released by the warps of both halves
    __syncthreads();

    // The accumulators in the ring once the k range is done: pair p = (d[2p], d[2p + 1]) of thread
    // tid of consumer c at float2 index (c * NACC / 2 + p) * 128 + tid.
    float2* const acc = reinterpret_cast<float2*>(smem_raw + (tiles - raw));
    // The sums this thread stores at the end: pair p = rank * PAIRS + parity + j * PARITIES of its
    // half, whose thread tid holds row warp * 16 + lane / 4 (+ 8 when p is odd), columns
    // 8 (p / 2) + 2 (lane % 4) + {0, 1}. C's values there are read before the k loop, as in
    // wgmma_decode.
    auto row_of = [&](int p) { return m0 + half * TILE + warp * 16 + lane / 4 + 8 * (p & 1); };
    auto col_of = [&](int p) { return n0 + 8 * (p / 2) + 2 * (lane % 4); };
    float2 cOld[PAIRS / PARITIES];
    if (wg < CONSUMERS) {
#pragma unroll
        for (int j = 0; j < PAIRS / PARITIES; ++j) {
            const int p = rank * PAIRS + parity + j * PARITIES, row = row_of(p), col = col_of(p);
            cOld[j] = beta != 0.0f && row < M && col < N ? *reinterpret_cast<const float2*>(C + (size_t)row * N + col)
                                                          : make_float2(0.0f, 0.0f);
        }
    }
    if (wg == CONSUMERS) {                           // the producer warp
        if (tid == 0) {
            asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(&tmA)) : "memory");
            asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(&tmB)) : "memory");
            int s = 0, round = 0;
            for (int i = 0; i < nMine; ++i) {
                const int kt = kBegin + i;
                if (round > 0) mbar_wait(empty(s), (round - 1) & 1);
                const uint32_t sa = tiles + s * STAGE_BYTES;
                mbar_arrive_expect_tx(full(s), STAGE_BYTES);   // whole boxes, zero-filled or not
#pragma unroll
                for (int h = 0; h < HALVES; ++h)
                    tma_load_2d(sa + h * BOX_BYTES, &tmA, kt * wgfp16::BK, m0 + h * TILE, full(s));
                tma_load_2d(sa + HALVES * BOX_BYTES, &tmB, n0, kt * wgfp16::BK, full(s));
                if (++s == RING) { s = 0; ++round; }
            }
        }
        __syncwarp();
    } else {
        float d[NACC];
#pragma unroll
        for (int i = 0; i < NACC; ++i) d[i] = 0.0f;
        wgfp16::pin<NACC>(d);
        int held = -1;
        for (int i = parity; i < nMine; i += PARITIES) {
            const int s = i % RING;
            mbar_wait(full(s), (i / RING) & 1);
            const uint32_t stage = tiles + s * STAGE_BYTES, sa = stage + half * BOX_BYTES, sb = stage + HALVES * BOX_BYTES;
            wgmma_fence();
#pragma unroll
            for (int k = 0; k < wgfp16::BK / 16; ++k)
                mma_m64n64k16(d, smem_desc(sa + 32 * k, 16, 1024), smem_desc(sb + 2048 * k, BOX_BYTES, 1024));
            wgmma_commit();
            wgfp16::pin<NACC>(d);
            wgmma_wait<1>();                         // this warpgroup's previous k tile's MMAs have retired...
            wgfp16::pin<NACC>(d);
            if (held >= 0 && lane == 0) mbar_arrive(empty(held));   // ...so its stage is free
            held = s;
        }
        wgmma_wait<0>();
        wgfp16::pin<NACC>(d);
        // Once every consumer's MMAs have retired (and so every load of the ring has landed), the
        // ring is free for the accumulators.
        asm volatile("bar.sync 1, %0;\n" :: "n"(CONSUMERS * 128) : "memory");
#pragma unroll
        for (int p = 0; p < NACC / 2; ++p) acc[(wg * NACC / 2 + p) * 128 + tid] = make_float2(d[2 * p], d[2 * p + 1]);
    }
    cluster_sync();                                  // every CTA's accumulator is written

    if (wg < CONSUMERS) {
        // This CTA's share of its half: pairs [rank, rank + 1) * PAIRS, by turns over the half's
        // consumers, each the sum of both parities of every CTA.
        const uint32_t base = tiles + tid * 8u;
#pragma unroll
        for (int j = 0; j < PAIRS / PARITIES; ++j) {
            const int p = rank * PAIRS + parity + j * PARITIES;
            float2 sum = make_float2(0.0f, 0.0f);
#pragma unroll
            for (int r = 0; r < KSPLIT; ++r)
#pragma unroll
                for (int q = 0; q < PARITIES; ++q) {
                    const float2 v = load_peer(base + ((half * PARITIES + q) * NACC / 2 + p) * 128u * 8u, r);
                    sum.x += v.x;
                    sum.y += v.y;
                }
            const int row = row_of(p), col = col_of(p);
            if (row < M && col < N)                  // N is even: the pair lies wholly inside or out
                *reinterpret_cast<float2*>(C + (size_t)row * N + col) =
                    make_float2(alpha * sum.x + beta * cOld[j].x, alpha * sum.y + beta * cOld[j].y);
        }
    }
    cluster_sync();                                  // no CTA leaves while a peer reads its ring
}
