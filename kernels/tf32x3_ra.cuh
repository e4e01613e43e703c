// The body of the register-sourced 3xTF32 wgmma rungs (tf32x3ra, tf32x3raw): C^T = B^T A^T, so that
// the operand TF32 wgmma would need transposed in shared memory comes from registers instead.
//
// Why the transpose: TF32 wgmma reads shared-memory operands K-major only, and B (KxN row-major) is
// N-major; tf32x3wg therefore rewrote B transposed (and A) as big/small TF32 tiles in shared memory,
// and its profile was bound by that traffic. Computed as C^T (N x M) = B^T (N x K) * A^T (K x M):
// - wgmma's A operand is B^T, taken from registers (m64nNk8 .tf32: 4 x b32 per thread, the layout
//   of mma.m16n8k8's A on each warp: reg (e + 2h) of warp w, lane (g, t) = g*4 + t holds row
//   16w + g + 8e, column t + 4h). Each thread loads its B values once per k tile from the TMA tile
//   (8 x 64-bit loads) and splits them in registers: no shared-memory writes for B, no wgmma reads
//   of B.
// - wgmma's B operand is A^T, K-major = A's own row-major layout: the TMA tile (32 k x 128 m, 128-byte
//   swizzle) as is, or split elementwise at the same swizzled offsets (big and small tiles).
// Rows of the register operand are free to permute (they only relabel rows of C^T, undone by the
// epilogue): logical row 16w + g + 8e of consumer warpgroup c is column
//     n0 + e,  n0 = 64c + 32(w/2) + 8(w%2) + 4(g/4) + 16((g%4)/2) + 2(g%2)
// of the block tile, so a thread's two rows are adjacent (one 8-byte load per k) and, with B
// loaded as four 32(n) x 32(k) boxes in the 128-byte swizzle (16-byte chunk (n%32)/4 of row k at
// chunk ((n%32)/4) ^ (k%8)), the 16 lanes of each half-warp hit 16 distinct 8-byte bank pairs.
// Per k8 step s each consumer warpgroup issues small_b*big_a and big_b*small_a, then after the four
// steps the four big_b*big_a (12 wgmma.m64n128k8 per 32-wide k tile), into a fresh partial added to
// the running accumulator by FADD (the MMA's internal sums round toward zero; tf32x3's header).
// Pipeline: one producer thread (TMA, STAGES-deep full/empty mbarrier ring); two consumer
// warpgroups that, while the wgmmas of tile kt run, wait for tile kt+1, split its A into split buffer
// (kt+1) % 2 and load and split its B fragments into the other register set (the k loop is unrolled
// by two so both sets stay registers).
// BIG_RAW: big_a is the FP32 tile itself (the tensor core reads only the TF32 bits of an operand,
// i.e. truncates), small_a = tf32_rna(x - trunc(x)) (exact difference, |.| < 2^-10 |x|); then only
// small_a is written and the stage is held until the wgmmas that read it retire.
//
// Contract: block 384 (producer warpgroup + 2 consumer warpgroups), one block per SM
// (__launch_bounds__(384, 1) in the including file, for setmaxnreg); grid M/128 * N/128 (grouped
// rasterisation, 16 block rows per group); tensor maps: A box (32, 128) and B box (32, 32), both
// 128-byte swizzle; M, N multiples of 128, K a multiple of 32; beta == 0 does not read C. The
// including file defines SMEM_BYTES, checked here against ra_smem_bytes.
#pragma once

#include <cuda.h>
#include <stdint.h>

#include "hopper.cuh"
#include "tf32_mma.cuh"

namespace ra {

constexpr int BM = 128, BN = 128, BK = 32;   // BK: 32 floats = one 128-byte swizzle row of A
constexpr int NCONSUMERS = 256;
constexpr int GROUP_M = 16;                   // block rows per rasterisation group
constexpr int A_BYTES = BM * BK * 4;          // 16,384: one 32(k) x 128(m) TMA box
constexpr int B_BOX = 32 * BK * 4;            // 4,096: one 32(n) x 32(k) TMA box
constexpr int B_BYTES = BK * BN * 4;          // 16,384: four boxes
constexpr int STAGE_BYTES = A_BYTES + B_BYTES;  // the expect_tx count of a stage
constexpr int ALIGN = 1024;                   // swizzled tiles start on 1024-byte boundaries
constexpr int BAR_BYTES = 128;                // up to 16 mbarriers
constexpr int SBO = 1024;                     // K-major, 128B swizzle: one 8-row group to the next

// Split buffers hold big_a and small_a, or small_a only when big_a is the FP32 tile (BIG_RAW).
__host__ __device__ constexpr int split_bytes(bool bigRaw) { return (bigRaw ? 1 : 2) * A_BYTES; }
__host__ __device__ constexpr int smem_bytes(bool bigRaw, int stages)
{
    return ALIGN + stages * STAGE_BYTES + 2 * split_bytes(bigRaw) + BAR_BYTES;
}

// Keeps the compiler from moving reads/writes of registers that an asynchronous wgmma reads or
// writes across the wgmma and its wait.
__device__ __forceinline__ void fence_regs(float (&d)[64])
{
#pragma unroll
    for (int i = 0; i < 64; ++i) asm volatile("" : "+f"(d[i]) :: "memory");
}
__device__ __forceinline__ void fence_regs(uint32_t (&f)[4][4])
{
#pragma unroll
    for (int s = 0; s < 4; ++s)
#pragma unroll
        for (int i = 0; i < 4; ++i) asm volatile("" : "+r"(f[s][i]) :: "memory");
}

#define RA_ACC8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), \
                   "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define RA_ACC32(i) RA_ACC8(i), RA_ACC8(i + 8), RA_ACC8(i + 16), RA_ACC8(i + 24)

// D[64x128] (+)= A[64x8] * B[8x128]: A from registers (TF32 bit patterns), B K-major in shared
// memory (descriptor), FP32 accumulate; the first of a group with ACCUMULATE = 0.
template <int ACCUMULATE>
__device__ __forceinline__ void wgmma_rs_m64n128k8(float (&d)[64], const uint32_t (&a)[4], uint64_t descB)
{
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %69, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
        "{%64, %65, %66, %67}, %68, p, 1, 1;\n"
        "}\n"
        : RA_ACC32(0), RA_ACC32(32)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(descB), "r"(ACCUMULATE)
        : "memory");
}

// Splits the FP32 A tile (generic pointer) elementwise into the split buffer, at the same swizzled
// offsets: 1024 float4, 4 per consumer thread. BIG_RAW writes small only, from the truncated big.
template <bool BIG_RAW>
__device__ __forceinline__ void split_a(const unsigned char* tile, unsigned char* split, int ct)
{
    const float4* a = reinterpret_cast<const float4*>(tile);
    uint4* small = reinterpret_cast<uint4*>(split + (BIG_RAW ? 0 : A_BYTES));
    uint4* big = reinterpret_cast<uint4*>(split);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const int i = ct + NCONSUMERS * j;
        const float4 x = a[i];
        uint4 b, s;
        if (BIG_RAW) {
            const float v[4] = {x.x, x.y, x.z, x.w};
            uint32_t r[4];
#pragma unroll
            for (int q = 0; q < 4; ++q)
                r[q] = to_tf32(v[q] - __uint_as_float(__float_as_uint(v[q]) & 0xFFFFE000u));
            s = make_uint4(r[0], r[1], r[2], r[3]);
        } else {
            split_tf32(x.x, b.x, s.x);
            split_tf32(x.y, b.y, s.y);
            split_tf32(x.z, b.z, s.z);
            split_tf32(x.w, b.w, s.w);
            big[i] = b;
        }
        small[i] = s;
    }
}

// This thread's B fragments of one k tile, split: big/small[s][e + 2h] = split(B[8s + t + 4h][n0 + e]).
// `col` points at (k = 0, n0) in the swizzle-free sense: the box of n0 plus (n0 % 4) floats; `chunk`
// is (n0 % 32) / 4.
__device__ __forceinline__ void load_b(const unsigned char* col, int chunk, int t, uint32_t (&big)[4][4],
                                       uint32_t (&small)[4][4])
{
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const int row = t + 4 * h;  // k % 8 of every k this thread reads with this h
        const unsigned char* p = col + row * 128 + ((chunk ^ row) << 4);
#pragma unroll
        for (int s = 0; s < 4; ++s) {
            const float2 x = *reinterpret_cast<const float2*>(p + s * 1024);  // k = 8s + row
            split_tf32(x.x, big[s][2 * h], small[s][2 * h]);
            split_tf32(x.y, big[s][2 * h + 1], small[s][2 * h + 1]);
        }
    }
}

__device__ __forceinline__ void consumers_sync() { asm volatile("bar.sync 1, %0;\n" :: "n"(NCONSUMERS) : "memory"); }

// The consumer warpgroups' part of gemm: prepare, issue and retire each k tile, then the epilogue.
template <bool BIG_RAW, int STAGES>
__device__ __forceinline__ void consume(int N, int kTiles, int bm, int bn, float alpha, float beta,
                                        float* __restrict__ C, uint32_t tiles, unsigned char* gtiles,
                                        uint32_t splits, uint32_t bars)
{
    auto full = [&](int s) { return bars + 8u * s; };
    auto empty = [&](int s) { return bars + 8u * (STAGES + s); };
    const int wg = threadIdx.x / 128;
    const int ct = threadIdx.x - 128;  // consumer thread 0..255
    const int c = wg - 1;              // consumer warpgroup: block columns 64c..64c+63
    const int lane = threadIdx.x % 32;
    const int w = (threadIdx.x / 32) % 4;
    const int g = lane / 4, t = lane % 4;
    const int n0 = 64 * c + 32 * (w / 2) + 8 * (w % 2) + 4 * (g / 4) + 16 * ((g % 4) / 2) + 2 * (g % 2);
    const int bOff = A_BYTES + (n0 / 32) * B_BOX + (n0 % 4) * 4;  // within a stage
    const int chunk = (n0 % 32) / 4;

    float acc[64], part[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] = 0.0f;
#pragma unroll
    for (int i = 0; i < 64; ++i) part[i] = 0.0f;
    uint32_t big0[4][4], small0[4][4], big1[4][4], small1[4][4];

    // Tile kt: wait for its stage, split A into split buffer kt % 2, load and split this thread's B
    // fragments, give the stage back (unless wgmma still reads it), fence the split stores into the
    // async proxy.
    auto prepare = [&](int kt, uint32_t (&big)[4][4], uint32_t (&small)[4][4]) {
        const int s = kt % STAGES;
        mbar_wait(full(s), (kt / STAGES) & 1);
        unsigned char* const stage = gtiles + s * STAGE_BYTES;
        split_a<BIG_RAW>(stage, gtiles + STAGES * STAGE_BYTES + (kt % 2) * split_bytes(BIG_RAW), ct);
        load_b(stage + bOff, chunk, t, big, small);
        if (!BIG_RAW) {
            __syncwarp();
            if (lane == 0) mbar_arrive(empty(s));
        }
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    };
    // The 12 wgmmas of tile kt into a fresh partial.
    auto issue = [&](int kt, uint32_t (&big)[4][4], uint32_t (&small)[4][4]) {
        const uint32_t buf = splits + (kt % 2) * split_bytes(BIG_RAW);
        const uint32_t aBig = BIG_RAW ? tiles + (kt % STAGES) * STAGE_BYTES : buf;
        const uint32_t aSmall = BIG_RAW ? buf : buf + A_BYTES;
        wgmma_fence();
        fence_regs(part);
        wgmma_rs_m64n128k8<0>(part, small[0], smem_desc(aBig, 16, SBO));
        wgmma_rs_m64n128k8<1>(part, big[0], smem_desc(aSmall, 16, SBO));
#pragma unroll
        for (int s = 1; s < BK / 8; ++s) {
            wgmma_rs_m64n128k8<1>(part, small[s], smem_desc(aBig + 32 * s, 16, SBO));
            wgmma_rs_m64n128k8<1>(part, big[s], smem_desc(aSmall + 32 * s, 16, SBO));
        }
#pragma unroll
        for (int s = 0; s < BK / 8; ++s)
            wgmma_rs_m64n128k8<1>(part, big[s], smem_desc(aBig + 32 * s, 16, SBO));
        wgmma_commit();
        fence_regs(part);
    };
    // Wait for tile kt's wgmmas, release what they read, fold the partial in.
    auto retire = [&](int kt, uint32_t (&big)[4][4], uint32_t (&small)[4][4]) {
        wgmma_wait<0>();
        fence_regs(part);
        fence_regs(big);
        fence_regs(small);
        if (BIG_RAW) {
            __syncwarp();
            if (lane == 0) mbar_arrive(empty(kt % STAGES));
        }
#pragma unroll
        for (int i = 0; i < 64; ++i) acc[i] += part[i];
        consumers_sync();  // split buffer kt % 2 is free, tile kt+1 is split by both warpgroups
    };

    prepare(0, big0, small0);
    consumers_sync();
    for (int kt = 0; kt < kTiles; kt += 2) {
        issue(kt, big0, small0);
        if (kt + 1 < kTiles) prepare(kt + 1, big1, small1);
        retire(kt, big0, small0);
        if (kt + 1 < kTiles) {
            issue(kt + 1, big1, small1);
            if (kt + 2 < kTiles) prepare(kt + 2, big0, small0);
            retire(kt + 1, big1, small1);
        }
    }

    // Epilogue: part/acc[4j + 2e + v] is row 16w + g + 8e of C^T (block column n0 + e), column
    // 8j + 2t + v of C^T (block row 8j + 2t + v): one 8-byte store of columns n0, n0 + 1 per row.
#pragma unroll
    for (int j = 0; j < 16; ++j) {
#pragma unroll
        for (int v = 0; v < 2; ++v) {
            float* const out = C + (size_t)(bm + 8 * j + 2 * t + v) * N + bn + n0;
            float2 r = make_float2(alpha * acc[4 * j + v], alpha * acc[4 * j + 2 + v]);
            if (beta != 0.0f) {
                const float2 o = *reinterpret_cast<const float2*>(out);
                r.x += beta * o.x;
                r.y += beta * o.y;
            }
            *reinterpret_cast<float2*>(out) = r;
        }
    }
}

template <bool BIG_RAW, int STAGES>
__device__ __forceinline__ void gemm(int M, int N, int K, float alpha, float beta, float* __restrict__ C,
                                     const CUtensorMap* tmA, const CUtensorMap* tmB)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    // Stages at tiles + s * STAGE_BYTES (A, then B's four boxes), two split buffers after them,
    // barriers last: full[s], then empty[s].
    const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
    const uint32_t tiles = (raw + ALIGN - 1) & ~(uint32_t)(ALIGN - 1);
    unsigned char* const gtiles = smem_raw + (tiles - raw);  // the same place, as a generic pointer
    const uint32_t splits = tiles + STAGES * STAGE_BYTES;
    const uint32_t bars = splits + 2 * split_bytes(BIG_RAW);
    auto full = [&](int s) { return bars + 8u * s; };
    auto empty = [&](int s) { return bars + 8u * (STAGES + s); };
    static_assert(2 * STAGES * 8 <= BAR_BYTES, "mbarriers do not fit");

    const int wg = threadIdx.x / 128;  // 0: producer, 1-2: consumers

    const int tilesM = M / BM, tilesN = N / BN;
    const int perGroup = GROUP_M * tilesN;
    const int group = blockIdx.x / perGroup;
    const int firstM = group * GROUP_M;
    const int rows = min(tilesM - firstM, GROUP_M);
    const int inGroup = blockIdx.x % perGroup;
    const int bm = (firstM + inGroup % rows) * BM;
    const int bn = (inGroup / rows) * BN;
    const int kTiles = K / BK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(full(s), 1);                 // the producer's arrive.expect_tx
            mbar_init(empty(s), NCONSUMERS / 32);  // one arrive per consumer warp
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    }
    __syncthreads();

    if (wg == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (threadIdx.x == 0) {
            asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(tmA)) : "memory");
            asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(tmB)) : "memory");
            for (int kt = 0; kt < kTiles; ++kt) {
                const int s = kt % STAGES;
                if (kt >= STAGES) mbar_wait(empty(s), ((kt / STAGES) - 1) & 1);
                const uint32_t sa = tiles + s * STAGE_BYTES;
                mbar_arrive_expect_tx(full(s), STAGE_BYTES);
                tma_load_2d(sa, tmA, kt * BK, bm, full(s));  // A[bm:+128, k:+32]
#pragma unroll
                for (int i = 0; i < BN / 32; ++i)           // B[k:+32, bn + 32i:+32]
                    tma_load_2d(sa + A_BYTES + i * B_BOX, tmB, bn + 32 * i, kt * BK, full(s));
            }
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        consume<BIG_RAW, STAGES>(N, kTiles, bm, bn, alpha, beta, C, tiles, gtiles, splits, bars);
    }
}

}  // namespace ra
