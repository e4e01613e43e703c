// The body of the register-sourced 3xTF32 wgmma rungs (tf32x3ra, tf32x3raw, tf32x3bits, tf32x3sk):
// C^T = B^T A^T, so that the operand TF32 wgmma would need transposed in shared memory comes from
// registers instead.
//
// Why the transpose: TF32 wgmma reads shared-memory operands K-major only, and B (KxN row-major) is
// N-major; tf32x3wg therefore rewrote B transposed (and A) as big/small TF32 tiles in shared memory,
// and its profile was bound by that traffic. Computed as C^T (N x M) = B^T (N x K) * A^T (K x M):
// - wgmma's A operand is B^T, taken from registers (m64nNk8 .tf32: 4 x b32 per thread, the layout
//   of mma.m16n8k8's A on each warp: register 2q + e of warp w, lane 4g + t holds row 16w + g + 8e,
//   column t + 4q). Each thread loads its B values once per k tile from the TMA tile
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
// Work split (warp specialisation): warp 0 issues the TMA loads into a STAGES-deep full/empty
// mbarrier ring; warps 1-3 ("splitters") split each A tile elementwise into a ring of NSPLIT split
// buffers (sfull/sempty mbarriers), so the consumers never write shared memory; the two consumer
// warpgroups run independently (no barrier between them), so that one's loads, splits and waits
// overlap the other's MMAs. Per k tile a consumer warpgroup issues two halves of 6
// wgmma.m64n128k8 (k8 steps 2h, 2h + 1: small_b * big_a, big_b * small_a, big_b * big_a), fetching
// the next half's B values while the MMAs run; the 12 go into a fresh partial added to the running
// accumulator by FADD (the MMA's internal sums round toward zero; tf32x3's header). Halves keep
// one set of 16 fragment registers: acc and partial take 128 of the 168 a thread has at 384
// threads (with nvcc 13.0, a first version with double-buffered fragments spilled at 168 even
// after setmaxnreg.inc to 232: ptxas allocated the launch bound's share to the consumers too).
// BIG_RAW: big_a is the FP32 tile itself (the tensor core reads only the TF32 bits of an operand,
// i.e. truncates), small_a = tf32_rna(x - trunc(x)) (exact difference, |.| < 2^-10 |x|); then only
// small_a is written and each stage is held until the wgmmas that read it retire.
//
// Contract: block 384 (producer warpgroup + 2 consumer warpgroups), one block per SM
// (__launch_bounds__(384, 1) in the including file: 168 registers a thread); grid cdiv(M, 128) *
// cdiv(N, 128) (grouped rasterisation, 16 block rows per group); tensor maps: A box (32, 128) and
// B box (32, 32), both 128-byte swizzle, over A and B as they are: N and K multiples of 4 (16-byte
// rows, which TMA needs), any M; tiles past M, N and K are read as zeros (TMA's fill) and C is
// stored only within M x N; beta == 0 does not read C. The including file defines SMEM_BYTES,
// checked there against ra::smem_bytes.
//
// SPLIT_K (tf32x3sk): blockIdx.y is a split of K, gridDim.y of them; each split runs k tiles
// [y * per, (y + 1) * per) of the tile's loop, writes its partial to a workspace and is counted in
// (consumer warpgroups only, named barrier 1); the split counted last sums the partials in split
// order (its own from registers) and runs the epilogue, then resets the tile's counter. A grid
// whose partials would not fit the workspace runs unsplit (split 0 takes all of K).
#pragma once

#include <cuda.h>
#include <stdint.h>

#include "hopper.cuh"
#include "tf32_mma.cuh"

namespace ra {

constexpr int BM = 128, BN = 128, BK = 32;   // BK: 32 floats = one 128-byte swizzle row of A
constexpr int NCONSUMERS = 256;               // warpgroups 1-2
constexpr int NSPLITTERS = 96;                // warps 1-3 (warp 0 issues the TMA loads)
constexpr int GROUP_M = 16;                   // block rows per rasterisation group
constexpr int A_BYTES = BM * BK * 4;          // 16,384: one 32(k) x 128(m) TMA box
constexpr int B_BOX = 32 * BK * 4;            // 4,096: one 32(n) x 32(k) TMA box
constexpr int B_BYTES = BK * BN * 4;          // 16,384: four boxes
constexpr int STAGE_BYTES = A_BYTES + B_BYTES;  // the expect_tx count of a stage
constexpr int ALIGN = 1024;                   // swizzled tiles start on 1024-byte boundaries
constexpr int BAR_BYTES = 256;                // up to 32 mbarriers
constexpr int SBO = 1024;                     // K-major, 128B swizzle: one 8-row group to the next
constexpr int MAX_SPLIT_CTAS = 256;           // split grids (tiles x splits) the workspace holds

// One 128x128 partial per CTA of a split grid, float4 j of consumer thread ct of split z of tile t
// at [((t * S + z) * 16 + j) * NCONSUMERS + ct]: a warp's float4s are 512 contiguous bytes.
// Variable templates of SPLIT_K, so that only a module whose kernel splits K holds the 16 MB.
template <bool SPLIT_K> __device__ __align__(16) float4 g_partials[MAX_SPLIT_CTAS * 16 * NCONSUMERS];
template <bool SPLIT_K> __device__ unsigned g_counters[MAX_SPLIT_CTAS];  // zero at module load; the last split resets its tile's

// Split buffers hold big_a and small_a, or small_a only when big_a is the FP32 tile (BIG_RAW).
__host__ __device__ constexpr int split_bytes(bool bigRaw) { return (bigRaw ? 1 : 2) * A_BYTES; }
__host__ __device__ constexpr int smem_bytes(bool bigRaw, int stages, int nsplit)
{
    return ALIGN + stages * STAGE_BYTES + nsplit * split_bytes(bigRaw) + BAR_BYTES;
}

// Keeps the compiler from moving reads/writes of registers that an asynchronous wgmma reads or
// writes across the wgmma and its wait.
__device__ __forceinline__ void fence_regs(float (&d)[64])
{
#pragma unroll
    for (int i = 0; i < 64; ++i) asm volatile("" : "+f"(d[i]) :: "memory");
}

// INT_ROUND (tf32x3bits): the split by integer arithmetic. cvt.rna.tf32.f32 is emulated on sm_90
// (five instructions: an Inf/NaN test, the add, a select, the mask; the profile of tf32x3raw has
// the splitters, and their cvt, as what the consumers wait for). Adding half a TF32 ulp (0x1000) to
// a finite float's bit pattern carries into the 10-bit mantissa exactly when round-to-nearest (ties
// away) rounds up, and into the exponent when the mantissa overflows; the mask then gives
// cvt.rna's bits. Inf and NaN are not kept, as with cvt: their split is NaN either way (x - big).
__device__ __forceinline__ uint32_t rna_unmasked(float x) { return __float_as_uint(x) + 0x1000u; }
__device__ __forceinline__ uint32_t tf32_bits(uint32_t b) { return b & 0xFFFFE000u; }
// x minus its TF32 truncation (the bits the tensor core reads of x): exact in FP32, below 2^-10 |x|.
__device__ __forceinline__ float residual(float x) { return x - __uint_as_float(tf32_bits(__float_as_uint(x))); }

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

// Splits one float4 of the FP32 A tile (generic pointer) into the split buffer, at the same
// swizzled offset. BIG_RAW writes small only, from the truncated big (the bits the tensor core
// reads of the FP32 tile).
template <bool BIG_RAW>
__device__ __forceinline__ void split_a4(const float4* a, uint4* big, uint4* small, int i)
{
    const float4 x = a[i];
    uint4 b, s;
    if (BIG_RAW) {
        s.x = to_tf32(residual(x.x));
        s.y = to_tf32(residual(x.y));
        s.z = to_tf32(residual(x.z));
        s.w = to_tf32(residual(x.w));
    } else {
        split_tf32(x.x, b.x, s.x);
        split_tf32(x.y, b.y, s.y);
        split_tf32(x.z, b.z, s.z);
        split_tf32(x.w, b.w, s.w);
        big[i] = b;
    }
    small[i] = s;
}

// small_a of BIG_RAW by integer rounding, left unmasked: the tensor core ignores the 13 low bits of
// a shared-memory operand (what BIG_RAW's big_a already relies on), so it reads rna(x - trunc(x)).
// Three instructions an element (mask, FADD, IADD).
__device__ __forceinline__ uint32_t small_raw(float x) { return rna_unmasked(residual(x)); }

// The whole A tile: 1024 float4 over the NSPLITTERS threads (st = 0..95), 10 whole rounds unrolled
// and the 64 left over. INT_ROUND (BIG_RAW only) issues all of a thread's loads before its first
// store: with the stores in between, the compiler cannot move a load above a store to the same
// (shared) memory, and each round waited out a load's latency on its own.
template <bool BIG_RAW, bool INT_ROUND>
__device__ __forceinline__ void split_a(const unsigned char* tile, unsigned char* split, int st)
{
    static_assert(!INT_ROUND || BIG_RAW, "the integer split writes small_a only");
    const float4* a = reinterpret_cast<const float4*>(tile);
    uint4* small = reinterpret_cast<uint4*>(split + (BIG_RAW ? 0 : A_BYTES));
    uint4* big = reinterpret_cast<uint4*>(split);
    constexpr int CHUNKS = A_BYTES / 16, ROUNDS = CHUNKS / NSPLITTERS;
    const bool tail = st < CHUNKS - ROUNDS * NSPLITTERS;
    if (INT_ROUND) {
        float4 x[ROUNDS + 1];
#pragma unroll
        for (int j = 0; j < ROUNDS; ++j) x[j] = a[st + NSPLITTERS * j];
        if (tail) x[ROUNDS] = a[st + NSPLITTERS * ROUNDS];
#pragma unroll
        for (int j = 0; j <= ROUNDS; ++j)
            if (j < ROUNDS || tail)
                small[st + NSPLITTERS * j] = make_uint4(small_raw(x[j].x), small_raw(x[j].y), small_raw(x[j].z), small_raw(x[j].w));
        return;
    }
#pragma unroll
    for (int j = 0; j < ROUNDS; ++j) split_a4<BIG_RAW>(a, big, small, st + NSPLITTERS * j);
    if (tail) split_a4<BIG_RAW>(a, big, small, st + NSPLITTERS * ROUNDS);
}

// This thread's FP32 B values of half h of a k tile (k8 steps 2h, 2h + 1):
// raw[2 ss + q] = B[8(2h + ss) + t + 4q][n0 .. n0 + 1]. `col` points at the box of n0 plus (n0 % 4)
// floats; `chunk` is (n0 % 32) / 4: row k of a box is 128 bytes, its 16-byte chunk c at c ^ (k % 8).
__device__ __forceinline__ void fetch_b(const unsigned char* col, int chunk, int t, int h, float2 (&raw)[4])
{
#pragma unroll
    for (int q = 0; q < 2; ++q) {
        const int row = t + 4 * q;  // k % 8
        const unsigned char* p = col + row * 128 + ((chunk ^ row) << 4);
#pragma unroll
        for (int ss = 0; ss < 2; ++ss)
            raw[2 * ss + q] = *reinterpret_cast<const float2*>(p + (2 * h + ss) * 1024);  // k = 8(2h + ss) + row
    }
}

// The wgmma A fragments of the two k8 steps of `raw`: big/small[ss][e + 2q] = split(B[..][n0 + e]).
// INT_ROUND: big and small rounded by integer arithmetic and masked (five instructions an element
// instead of nine), so a register operand holds exact TF32 bits.
template <bool INT_ROUND>
__device__ __forceinline__ void split_b(const float2 (&raw)[4], uint32_t (&big)[2][4], uint32_t (&small)[2][4])
{
    auto split = [](float x, uint32_t& b, uint32_t& s) {
        if (INT_ROUND) {
            b = tf32_bits(rna_unmasked(x));
            s = tf32_bits(rna_unmasked(x - __uint_as_float(b)));
        } else {
            split_tf32(x, b, s);
        }
    };
#pragma unroll
    for (int ss = 0; ss < 2; ++ss)
#pragma unroll
        for (int q = 0; q < 2; ++q) {
            split(raw[2 * ss + q].x, big[ss][2 * q], small[ss][2 * q]);
            split(raw[2 * ss + q].y, big[ss][2 * q + 1], small[ss][2 * q + 1]);
        }
}

__device__ __forceinline__ void fence_regs(uint32_t (&f)[2][4])
{
#pragma unroll
    for (int s = 0; s < 2; ++s)
#pragma unroll
        for (int i = 0; i < 4; ++i) asm volatile("" : "+r"(f[s][i]) :: "memory");
}

// Where things are in shared memory (32-bit shared addresses; gtiles: `tiles` as a generic pointer).
// Stages at tiles + s * STAGE_BYTES (A, then B's four boxes), NSPLIT split buffers after them,
// barriers last: full[STAGES], empty[STAGES], sfull[NSPLIT], sempty[NSPLIT].
template <bool BIG_RAW, int STAGES, int NSPLIT>
struct Layout {
    uint32_t tiles;
    unsigned char* gtiles;
    __device__ uint32_t split(int b) const { return tiles + STAGES * STAGE_BYTES + b * split_bytes(BIG_RAW); }
    __device__ unsigned char* gsplit(int b) const { return gtiles + (split(b) - tiles); }
    __device__ uint32_t bar(int i) const { return split(NSPLIT) + 8u * i; }
    __device__ uint32_t full(int s) const { return bar(s); }                        // TMA landed
    __device__ uint32_t empty(int s) const { return bar(STAGES + s); }              // stage read
    __device__ uint32_t sfull(int b) const { return bar(2 * STAGES + b); }          // A split
    __device__ uint32_t sempty(int b) const { return bar(2 * STAGES + NSPLIT + b); }  // split read
};

// One consumer warpgroup: per k tile, two halves of 6 wgmmas each (k8 steps 2h, 2h + 1: small_b *
// big_a, big_b * small_a, big_b * big_a), the next half's B values fetched while the MMAs run; the
// partial folded into acc once the tile's last wgmma retired. No barrier between the two consumer
// warpgroups: each runs at its own pace, so one's fetch, split and waits overlap the other's MMAs.
template <bool BIG_RAW, bool INT_ROUND, int STAGES, int NSPLIT, bool SPLIT_K>
__device__ __forceinline__ void consume(const Layout<BIG_RAW, STAGES, NSPLIT>& L, int M, int N, int kTiles, int bm,
                                        int bn, float alpha, float beta, float* __restrict__ C, int splits)
{
    const int c = threadIdx.x / 128 - 1;  // consumer warpgroup: block columns 64c..64c+63
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
    float2 raw[4];
    uint32_t big[2][4], small[2][4];

    // The 6 wgmmas of half h of a tile whose big_a / small_a tiles start at aBig / aSmall.
    auto issue = [&](int h, uint32_t aBig, uint32_t aSmall) {
        wgmma_fence();
        fence_regs(part);
#pragma unroll
        for (int ss = 0; ss < 2; ++ss) {
            const int s = 2 * h + ss;
            if (h == 0 && ss == 0)
                wgmma_rs_m64n128k8<0>(part, small[ss], smem_desc(aBig + 32 * s, 16, SBO));
            else
                wgmma_rs_m64n128k8<1>(part, small[ss], smem_desc(aBig + 32 * s, 16, SBO));
            wgmma_rs_m64n128k8<1>(part, big[ss], smem_desc(aSmall + 32 * s, 16, SBO));
            wgmma_rs_m64n128k8<1>(part, big[ss], smem_desc(aBig + 32 * s, 16, SBO));
        }
        wgmma_commit();
        fence_regs(part);
    };
    auto retire = [&]() {
        wgmma_wait<0>();
        fence_regs(part);
        fence_regs(big);
        fence_regs(small);
    };

    if (kTiles > 0) {
        mbar_wait(L.full(0), 0);
        fetch_b(L.gtiles + bOff, chunk, t, 0, raw);
    }
    for (int kt = 0; kt < kTiles; ++kt) {
        const int s = kt % STAGES, b = kt % NSPLIT;
        const uint32_t stage = L.tiles + s * STAGE_BYTES;
        const uint32_t aBig = BIG_RAW ? stage : L.split(b);
        const uint32_t aSmall = BIG_RAW ? L.split(b) : L.split(b) + A_BYTES;
        mbar_wait(L.sfull(b), (kt / NSPLIT) & 1);
        split_b<INT_ROUND>(raw, big, small);
        issue(0, aBig, aSmall);
        fetch_b(L.gtiles + s * STAGE_BYTES + bOff, chunk, t, 1, raw);
        retire();
        split_b<INT_ROUND>(raw, big, small);
        issue(1, aBig, aSmall);
        if (kt + 1 < kTiles) {
            const int s1 = (kt + 1) % STAGES;
            mbar_wait(L.full(s1), ((kt + 1) / STAGES) & 1);
            fetch_b(L.gtiles + s1 * STAGE_BYTES + bOff, chunk, t, 0, raw);
        }
        retire();
        __syncwarp();
        if (lane == 0) {
            mbar_arrive(L.empty(s));
            mbar_arrive(L.sempty(b));
        }
#pragma unroll
        for (int i = 0; i < 64; ++i) acc[i] += part[i];
    }

    if constexpr (SPLIT_K) if (splits > 1) {  // meet the other splits of this tile; only the one counted last goes on
        const int ct = threadIdx.x - 128, z = blockIdx.y;
        float4* const ws = g_partials<SPLIT_K> + (size_t)blockIdx.x * splits * 16 * NCONSUMERS;
#pragma unroll
        for (int j = 0; j < 16; ++j)
            ws[(z * 16 + j) * NCONSUMERS + ct] = make_float4(acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]);
        volatile int* const last = reinterpret_cast<volatile int*>(L.gtiles + (L.bar(31) - L.tiles));
        __threadfence();  // the partial is visible device-wide before this split is counted
        asm volatile("bar.sync 1, %0;\n" :: "n"(NCONSUMERS) : "memory");
        if (ct == 0) *last = atomicAdd(&g_counters<SPLIT_K>[blockIdx.x], 1u) == (unsigned)(splits - 1);
        asm volatile("bar.sync 1, %0;\n" :: "n"(NCONSUMERS) : "memory");
        if (!*last) return;
        __threadfence();  // the other partials are read after their counts were seen
#pragma unroll
        for (int j = 0; j < 16; ++j) {
            float4 r = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            for (int y = 0; y < splits; ++y) {  // in split order, whichever split is last
                const float4 p = y == z ? make_float4(acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3])
                                        : __ldcg(&ws[(y * 16 + j) * NCONSUMERS + ct]);
                r.x += p.x;
                r.y += p.y;
                r.z += p.z;
                r.w += p.w;
            }
            acc[4 * j] = r.x;
            acc[4 * j + 1] = r.y;
            acc[4 * j + 2] = r.z;
            acc[4 * j + 3] = r.w;
        }
        if (ct == 0) g_counters<SPLIT_K>[blockIdx.x] = 0;  // for the next launch
    }

    // Epilogue: acc[4j + 2e + v] is row 16w + g + 8e of C^T (block column n0 + e), column
    // 8j + 2t + v of C^T (block row 8j + 2t + v): one 8-byte store of columns n0, n0 + 1 per row,
    // within M x N (N even and n0 even: the pair is all in or all out).
    if (bn + n0 >= N) return;
#pragma unroll
    for (int j = 0; j < 16; ++j) {
#pragma unroll
        for (int v = 0; v < 2; ++v) {
            if (bm + 8 * j + 2 * t + v >= M) continue;
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

// The whole block: warp 0 issues the TMA loads, warps 1-3 split A, warpgroups 1-2 consume.
// smem_raw: the kernel's dynamic shared memory (SMEM_BYTES, ra::smem_bytes).
template <bool BIG_RAW, int STAGES, int NSPLIT, bool INT_ROUND = false, bool SPLIT_K = false>
__device__ __forceinline__ void gemm(int M, int N, int K, float alpha, float beta, float* __restrict__ C,
                                     const CUtensorMap* tmA, const CUtensorMap* tmB, unsigned char* smem_raw)
{
    static_assert(2 * (STAGES + NSPLIT) * 8 <= BAR_BYTES, "mbarriers do not fit");
    const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
    Layout<BIG_RAW, STAGES, NSPLIT> L;
    L.tiles = (raw + ALIGN - 1) & ~(uint32_t)(ALIGN - 1);
    L.gtiles = smem_raw + (L.tiles - raw);

    // Tiles past M, N and K: TMA fills what lies outside A and B with zeros.
    const int tilesM = (M + BM - 1) / BM, tilesN = (N + BN - 1) / BN;
    const Tile tile = tile_of(blockIdx.x, tilesM, tilesN, GROUP_M);
    const int bm = tile.m * BM, bn = tile.n * BN;
    int kt0 = 0, kTiles = (K + BK - 1) / BK, splits = 1;  // this CTA's k tiles [kt0, kt0 + kTiles)
    if constexpr (SPLIT_K) {
        if ((long long)gridDim.x * gridDim.y <= MAX_SPLIT_CTAS) splits = gridDim.y;
        if (blockIdx.y >= splits) return;  // a split grid too large for the workspace: split 0 takes all of K
        const int all = kTiles, per = (all + splits - 1) / splits;
        kt0 = min(all, (int)blockIdx.y * per);
        kTiles = min(all, kt0 + per) - kt0;
    }

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(L.full(s), 1);                                  // the producer's arrive.expect_tx
            mbar_init(L.empty(s), NSPLITTERS / 32 + NCONSUMERS / 32);  // every splitter and consumer warp
        }
        for (int b = 0; b < NSPLIT; ++b) {
            mbar_init(L.sfull(b), NSPLITTERS / 32);  // each splitter warp, its stores fenced
            mbar_init(L.sempty(b), NCONSUMERS / 32);  // each consumer warp, its wgmmas retired
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    }
    __syncthreads();

    // No setmaxnreg: the consumers are written to fit the launch bound's 168 registers, and the
    // splitters' unrolled loads want more than a released producer's 40.
    if (threadIdx.x < 128) {
        if (threadIdx.x == 0) {
            asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(tmA)) : "memory");
            asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(tmB)) : "memory");
            for (int kt = 0; kt < kTiles; ++kt) {
                const int s = kt % STAGES;
                if (kt >= STAGES) mbar_wait(L.empty(s), ((kt / STAGES) - 1) & 1);
                const uint32_t sa = L.tiles + s * STAGE_BYTES;
                mbar_arrive_expect_tx(L.full(s), STAGE_BYTES);
                tma_load_2d(sa, tmA, (kt0 + kt) * BK, bm, L.full(s));  // A[bm:+128, k:+32]
#pragma unroll
                for (int i = 0; i < BN / 32; ++i)             // B[k:+32, bn + 32i:+32]
                    tma_load_2d(sa + A_BYTES + i * B_BOX, tmB, bn + 32 * i, (kt0 + kt) * BK, L.full(s));
            }
        } else if (threadIdx.x >= 32) {
            const int st = threadIdx.x - 32;
            for (int kt = 0; kt < kTiles; ++kt) {
                const int s = kt % STAGES, b = kt % NSPLIT;
                mbar_wait(L.full(s), (kt / STAGES) & 1);
                if (kt >= NSPLIT) mbar_wait(L.sempty(b), ((kt / NSPLIT) - 1) & 1);
                split_a<BIG_RAW, INT_ROUND>(L.gtiles + s * STAGE_BYTES, L.gsplit(b), st);
                asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
                __syncwarp();
                if (threadIdx.x % 32 == 0) {
                    mbar_arrive(L.sfull(b));
                    mbar_arrive(L.empty(s));
                }
            }
        }
    } else {
        consume<BIG_RAW, INT_ROUND, STAGES, NSPLIT, SPLIT_K>(L, M, N, kTiles, bm, bn, alpha, beta, C, splits);
    }
}

}  // namespace ra
