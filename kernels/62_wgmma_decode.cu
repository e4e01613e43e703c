// wgmma_decode: decode steps as cuBLAS runs them: one 64-row wgmma tile of all of M by 64 columns
// of B per CTA, K split over a 2-CTA cluster whose partials meet in distributed shared memory.
//
// Predecessor: wgmma_swap64. At M <= 64 a decode step is a stream of B (4096 x 4096 FP16: 32 MiB)
// and the kernel's job is to keep every SM reading it. wgmma_swap64 and skinny split K eight and
// four ways to fill the SMs, and every split writes a partial to a global workspace that the last
// to arrive reads back (at 64x4096x4096 skinny's SMs were busy 69% of the launch, cuBLAS's 77%).
// Idea: a CTA's tile is the 64 rows of A (TMA's zeros past M: wgmma's m64 costs nothing extra
// where the time is B's bytes) by 64 columns of B, wgmma m64n64k16 with B as the MN-major operand
// (the 128B-swizzled 64 x 64 boxes of wgmma_swap64, not transposed at the end), so N = 4096 is 64
// tiles; K is split in two across a thread-block cluster (__cluster_dims__), 128 CTAs at N = 4096.
// After its k range each CTA writes its accumulators into its own (now idle) ring, the cluster
// synchronises, and CTA r sums half r of the tile from both CTAs' shared memory
// (ld.shared::cluster, in rank order: the result does not depend on timing) and stores it. No
// global partials, no counters, no CTA waiting for a last arrival.
//
// A CTA: two consumer warpgroups taking the k tiles by turns (a consumer's MMAs for one k tile,
// issued and retired, set the pace: a second warpgroup gained, a second accumulator chain did
// not), then one producer warp issuing the TMA loads into a ring of stages in 192 KB: each stage
// A's rows by 64 k, in 32-row boxes (two a half, or one where the tile's rows of M end within it:
// wgmma's rows past it read what follows in the stage and are never stored, and the smaller
// stages make the ring deeper), and B's 64 k by 64 columns. C is read before the k loop
// (EARLY_C), not after the cluster's barrier. At most MAX_STAGES stages (the manifest's
// wgmma_decode: 10) and B at the manifest's L2 promotion.
//
// The builds (nvcc -D flags in the manifest; best-fp16's rules say where each runs, chosen on
// the LLM decode draws and scored on their unseen ones):
// - Built again as wgmma_decode_fullk (nvcc -DKSPLIT=1): clusters of one CTA, each tile over
//   the whole K, where the 64-column tiles alone fill the SMs; and for small products with a short
//   K (512^3: 85% of cuBLAS against 51% for 128x256 tiles, 32 CTAs), wherever its tiles fit one wave.
// - Built again as wgmma_decode128 (nvcc -DHALVES=2): 128 rows, two 64-row halves, for M of
//   65-128, so that each B stage feeds both halves and B is still read once; four consumer
//   warpgroups, one per half and k parity; A's boxes wholly past M are not loaded.
// - Built again as wgmma_decode128_fullk (nvcc -DKSPLIT=1 -DHALVES=2): 128x64 tiles over the
//   whole K, for M of 129-256, where two or more row tiles alone fill the SMs, and for small
//   products with a short K where 64x64 tiles would make two waves (1024^3: 74% against 54%).
// - Built again as wgmma_decode80 (nvcc -DTN=80), and for M of 65-128
//   Built again as wgmma_decode128x80 (nvcc -DTN=80 -DHALVES=2): for N of about 5120, where
//   64-column tiles make 80 (two waves of clusters) and 80-column ones 64. A stage's B is the
//   64-column box and a 16-column box of its own map, 32B-swizzled (80 columns are no whole
//   number of 128-byte swizzle atoms): an m64n64k16 and an m64n16k16 a k step.
// - Built again as wgmma_decode64x128 (nvcc -DTN=128), and for M of 65-128
//   Built again as wgmma_decode128x128 (nvcc -DTN=128 -DHALVES=2): for N of about 8192, two of
//   B's 64-column boxes a stage; the 128-row build reads C after its k loop, for want of
//   registers.
// A_BOX_ROWS and MAX_STAGES may be set from the build too (the macros below, #ifndef).
// Measurements, and the variants not kept (two CTAs an SM, 160 columns over clusters of four,
// 128 over three, shallower rings, A's boxes as tall as M): benchmarks/results/README.md,
// 2026-11-29-h200 and 2026-11-30-h200.
//
// Contract: block (128 * 2 * HALVES + 32), grid (cdiv(N, TN), cdiv(M, 64 * HALVES), KSPLIT) (z:
// the cluster), 197,760 bytes of dynamic shared memory (one CTA an SM); sm_90a. M any; N and K
// multiples of 8 (TMA's 16-byte rows). beta == 0: C is not read. Kernel parameters: the fixed
// list, then the tensor maps of A (box 64 k x 32 rows) and B (box 64 n x 64 k), both
// 128B-swizzled, and at TN = 80 B's again (box 16 n x 64 k, 32B-swizzled), and at HALVES = 2 A's
// again (box 64 k x 64 rows, 128B-swizzled). TN of 64, 80 or 128.

#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include "wgmma_fp16.cuh"                            // hopper.cuh's primitives, WGFP16_D32, pin

#ifndef KSPLIT
#define KSPLIT 2                                     // CTAs of a cluster, each a k range of the tile
#endif
#ifndef HALVES
#define HALVES 1                                     // 64-row halves of the tile
#endif
#ifndef TN
#define TN 64                                        // columns of B a CTA: 64, 80 (N = 5120: 64 tiles) or 128
#endif
#define PARITIES 2                                   // consumers of one half, taking k tiles by turns
#define CONSUMERS (HALVES * PARITIES)                // consumer warpgroup c: half c / PARITIES, parity c % PARITIES
#define NTHREADS (128 * CONSUMERS + 32)              // the consumer warpgroups, then one producer warp
#define TILE 64                                      // rows of a half, columns of B's first box
#define BOX_BYTES (TILE * wgfp16::BK * 2)            // 8,192: a 64 x 64 FP16 box
#ifndef A_BOX_ROWS
#define A_BOX_ROWS 32                                // A's TMA box: a half loads two, or one where M ends in it
#endif
#define A_BOX_BYTES (A_BOX_ROWS * wgfp16::BK * 2)    // 4,096
#define B_BOXES (TN / TILE)                          // B's 64-column boxes a stage
#define EXTRA_COLS (TN % TILE)                       // B's narrow box: 16 columns at TN = 80
#define EXTRA_BYTES (EXTRA_COLS * wgfp16::BK * 2)    // 2,048
#define RING_BYTES 196608                            // the stages: 192 KB, so many as fit
#ifndef MAX_STAGES
#define MAX_STAGES 16                                // 12 KB each: one A box and B's 64 columns
#endif
#define SMEM_BYTES (RING_BYTES + 1024 + 128)         // 197,760: the manifest's (the ring 1 KB-aligned, its barriers)
#define NACC (TN / 2)                                // 64 x TN floats over 128 threads
// C's values held through the k loop where the registers allow: 17 warps at 128 x 128 leave 96 a
// thread, which its 64 accumulators and 16 of C's would overrun.
#define EARLY_C (HALVES * TN <= 160)
static_assert(TN == 64 || TN == 80 || TN == 128, "B's boxes: 64 columns each, and one of 16 at TN = 80");
static_assert(BOX_BYTES % 1024 == 0 && A_BOX_BYTES % 1024 == 0 && EXTRA_BYTES % 1024 == 0,
              "every 128B-swizzled box 1024-byte aligned");
static_assert(16 * MAX_STAGES <= 128 + 1024, "the barriers fit after the ring");
static_assert(CONSUMERS * NACC * 128 * 4 <= RING_BYTES, "the accumulators fit in the ring");
static_assert(NACC % (2 * KSPLIT) == 0, "each CTA sums whole column pairs");
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

// D[64 x 16] += A[64 x 16] (K-major) * B[16 x 16] (MN-major).
__device__ __forceinline__ void mma_m64n16k16(float* d, uint64_t descA, uint64_t descB)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7"
        "}, %8, %9, p, 1, 1, 0, 1;\n"
        "}\n"
        : WGFP16_D8(0)
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
hgemm_wgmma_decode(int M, int N, int K, float alpha, const __half* __restrict__ A, const __half* __restrict__ B,
                   float beta, float* __restrict__ C, const __grid_constant__ CUtensorMap tmA,
                   const __grid_constant__ CUtensorMap tmB
#if EXTRA_COLS
                   , const __grid_constant__ CUtensorMap tmBx
#endif
#if HALVES == 2
                   , const __grid_constant__ CUtensorMap tmA64
#endif
                   )
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
    const uint32_t tiles = (raw + 1023) & ~1023u;
    const int n0 = blockIdx.x * TN, m0 = blockIdx.y * HALVES * TILE;
    // A's rows a stage holds: where this tile's rows of M end within 32, one box of 32 (the rest of
    // wgmma's 64 rows read what follows it in the stage, rows never stored), and the ring holds
    // more stages of B: 16 of 12 KB, not 12 of 16 (14 and 10 at 80 columns). The cluster's CTAs
    // share m0, so their rings match.
    const int aBoxes = HALVES == 1 && M - m0 <= A_BOX_ROWS ? 1 : 2;
    const uint32_t aBytes = aBoxes * A_BOX_BYTES, stageBytes = HALVES * aBytes + B_BOXES * BOX_BYTES + EXTRA_BYTES;
    const int ring = min(MAX_STAGES, (int)(RING_BYTES / stageBytes));
    const uint32_t bars = tiles + RING_BYTES;
    auto full = [&](int s) { return bars + 8u * s; };
    auto empty = [&](int s) { return bars + 8u * (ring + s); };

    const int rank = blockIdx.z;                     // the cluster spans z: the CTA's rank in it
    const int kTiles = (K + wgfp16::BK - 1) / wgfp16::BK;
    const int kBegin = rank * kTiles / KSPLIT, nMine = (rank + 1) * kTiles / KSPLIT - kBegin;  // k tiles of this CTA
    const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
    const int half = wg / PARITIES, parity = wg % PARITIES;
    const int warp = tid / 32, lane = tid % 32;

    if (threadIdx.x == 0) ring_init(bars, ring, 4 * HALVES);  // a stage is released by the 4 warps of each half that read it
    __syncthreads();

    // The accumulators in the ring once the k range is done: pair p = (d[2p], d[2p + 1]) of thread
    // tid of consumer c at float2 index (c * NACC / 2 + p) * 128 + tid (a warp's stores and loads:
    // 256 contiguous bytes).
    float2* const acc = reinterpret_cast<float2*>(smem_raw + (tiles - raw));
    // The sums this thread stores at the end: pair p = rank * PAIRS + parity + j * PARITIES of its
    // half, whose thread tid holds row warp * 16 + lane / 4 (+ 8 when p is odd), columns
    // 8 (p / 2) + 2 (lane % 4) + {0, 1}. C's values there are read before the k loop (EARLY_C):
    // their DRAM latency passes under it, not after the cluster's last barrier (13% of the samples
    // there).
    auto row_of = [&](int p) { return m0 + half * TILE + warp * 16 + lane / 4 + 8 * (p & 1); };
    auto col_of = [&](int p) { return n0 + 8 * (p / 2) + 2 * (lane % 4); };
    auto c_old = [&](int j) {
        const int p = rank * PAIRS + parity + j * PARITIES, row = row_of(p), col = col_of(p);
        return beta != 0.0f && row < M && col < N ? *reinterpret_cast<const float2*>(C + (size_t)row * N + col)
                                                  : make_float2(0.0f, 0.0f);
    };
    float2 cOld[PAIRS / PARITIES];
    if (EARLY_C && wg < CONSUMERS) {
#pragma unroll
        for (int j = 0; j < PAIRS / PARITIES; ++j) cOld[j] = c_old(j);
    }
    if (wg == CONSUMERS) {                           // the producer warp
        if (tid == 0) {
            asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(&tmA)) : "memory");
            asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(&tmB)) : "memory");
#if EXTRA_COLS
            asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(&tmBx)) : "memory");
#endif
#if HALVES == 2
            asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(&tmA64)) : "memory");
            // Where the tile's rows run past 96, each half as one 64-row box, not two of 32: 1-2
            // points faster at M 100-128, 2-10 slower at 80 (H200, 2026-11-30-h200,
            // runs.tar.xz: a64/); the same bytes land in the stage either way.
            const bool wholeHalves = M - m0 > TILE + A_BOX_ROWS;
#endif
            // A's boxes wholly past M are not loaded (at 65-96 rows of a 128-row tile, the second
            // half's second box): wgmma's rows there read what an earlier stage left, rows never
            // stored. A 64-row tile's boxes all hold rows of M. At 65-96 rows 3-7 points faster
            // at N = 5120, 0-3.6 at 8192, -1 to +3.5 at 4096 (H200, 2026-11-30-h200,
            // runs.tar.xz: skip/).
            auto aLoaded = [&](int h, int b) { return HALVES == 1 || m0 + h * TILE + b * A_BOX_ROWS < M; };
            uint32_t loadBytes = stageBytes;
            if (HALVES == 2)
                for (int h = 0; h < HALVES; ++h)
                    for (int b = 0; b < aBoxes; ++b) loadBytes -= aLoaded(h, b) ? 0 : A_BOX_BYTES;
            int s = 0, round = 0;
            for (int i = 0; i < nMine; ++i) {
                const int kt = kBegin + i;
                if (round > 0) mbar_wait(empty(s), (round - 1) & 1);
                const uint32_t sa = tiles + s * stageBytes, sb = sa + HALVES * aBytes;
                mbar_arrive_expect_tx(full(s), loadBytes);    // whole boxes, zero-filled or not
#pragma unroll
                for (int h = 0; h < HALVES; ++h) {
#if HALVES == 2
                    if (wholeHalves) {
                        tma_load_2d(sa + h * aBytes, &tmA64, kt * wgfp16::BK, m0 + h * TILE, full(s));
                        continue;
                    }
#endif
                    for (int b = 0; b < aBoxes; ++b)
                        if (aLoaded(h, b))
                            tma_load_2d(sa + h * aBytes + b * A_BOX_BYTES, &tmA, kt * wgfp16::BK,
                                        m0 + h * TILE + b * A_BOX_ROWS, full(s));
                }
#pragma unroll
                for (int b = 0; b < B_BOXES; ++b)
                    tma_load_2d(sb + b * BOX_BYTES, &tmB, n0 + b * TILE, kt * wgfp16::BK, full(s));
#if EXTRA_COLS
                tma_load_2d(sb + B_BOXES * BOX_BYTES, &tmBx, n0 + B_BOXES * TILE, kt * wgfp16::BK, full(s));
#endif
                if (++s == ring) { s = 0; ++round; }
            }
        }
        __syncwarp();
    } else {
        float d[NACC];
#pragma unroll
        for (int i = 0; i < NACC; ++i) d[i] = 0.0f;
        wgfp16::pin<NACC>(d);
        int held = -1, s = parity, phase = 0;      // k tile i's stage i % ring, its phase (i / ring) & 1
        for (int i = parity; i < nMine; i += PARITIES) {
            mbar_wait(full(s), phase);
            const uint32_t stage = tiles + s * stageBytes, sa = stage + half * aBytes, sb = stage + HALVES * aBytes;
            wgmma_fence();
#pragma unroll
            for (int k = 0; k < wgfp16::BK / 16; ++k) {
                const uint64_t descA = smem_desc(sa + 32 * k, 16, 1024);
#pragma unroll
                for (int b = 0; b < B_BOXES; ++b)
                    mma_m64n64k16(d + 32 * b, descA, smem_desc(sb + b * BOX_BYTES + 2048 * k, BOX_BYTES, 1024));
#if EXTRA_COLS
                // B's 16-column box, 32B-swizzled: one atom across (LBO, a box, is not used), SBO
                // an 8-row k group of 32-byte rows
                mma_m64n16k16(d + 32 * B_BOXES, descA, smem_desc(sb + B_BOXES * BOX_BYTES + 512 * k, EXTRA_BYTES, 256, SWIZZLE_32B));
#endif
            }
            wgmma_commit();
            wgfp16::pin<NACC>(d);
            wgmma_wait<1>();                         // this warpgroup's previous k tile's MMAs have retired...
            wgfp16::pin<NACC>(d);
            if (held >= 0 && lane == 0) mbar_arrive(empty(held));   // ...so its stage is free
            held = s;
            if ((s += PARITIES) >= ring) { s -= ring; phase ^= 1; }
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
            const float2 old = EARLY_C ? cOld[j] : c_old(j);
            if (row < M && col < N)                  // N is even: the pair lies wholly inside or out
                *reinterpret_cast<float2*>(C + (size_t)row * N + col) =
                    make_float2(alpha * sum.x + beta * old.x, alpha * sum.y + beta * old.y);
        }
    }
    cluster_sync();                                  // no CTA leaves while a peer reads its ring
}
