// wgmma_swap64: decode steps on wgmma with the operands swapped: C^T = B^T A^T, so the small M is
// wgmma's N (64) and B's wide N is wgmma's 64-row M.
//
// Predecessor: skinny. Its mma.sync tiles as tall as M read every B fragment through ldmatrix; at
// 64x4096x4096 the shared-load pipe holds 23% of its stall samples and it runs 78% of cuBLAS
// GemmEx (H200, benchmarks/results/2026-11-29-h200, decode-64x4096x4096). wgmma reads both
// operands from shared memory itself, but its A side is 64 rows at least, which at M <= 64 would
// be mostly zeros. Idea: let B's columns fill wgmma's rows. A consumer warpgroup takes 64 columns
// of B as wgmma's A operand (B is row-major K x N, so a TMA box of 64 n by 64 k is the MN-major,
// transposed operand: imm-trans-a = 1, the same 128B-swizzled box the other rungs read as their
// B) and the CTA's 64 rows of A as wgmma's B operand (A's rows are K-contiguous: the K-major
// layout, imm-trans-b = 0), m64n64k16; rows of A past M are TMA's zeros. The accumulator's row is
// a column n of C and its column a row m, so the epilogue writes C transposed: for each store a
// warp's lanes write 8 consecutive n of 4 rows, whole 32-byte sectors.
//
// A CTA: 64 rows of A by 128 columns of B (two consumer warpgroups of 64 columns, warps 0-7: a
// warpgroup starts at a warp rank that is a multiple of 4), then one producer warp issuing the TMA
// loads into a 4-stage ring of 24 KB stages (99 KB and 288 threads: two CTAs an SM, at most 112
// registers a thread). Grid (the manifest's): x = cdiv(M, 64) row tiles (fastest: the CTAs sharing
// a B slice run together), y = cdiv(N, 128), z = S = max(1, min(K // 256, 2 SMS // (x y))): at
// least 4 k tiles a split, at most two CTAs an SM. Each split writes its FP32 partial (32 KB at
// most: the float4s holding rows of M) to a module workspace and counts itself in; once all S have,
// each sums its slice of the tile over the S partials in split order and writes that slice of C
// (a reduce-scatter: the sum spread over the S CTAs, the same whoever arrived first).
//
// Where it pays (H200, 2026-11-29-h200, decode/): at M 49-128 with a long B, where skinny's 64-row
// mma.sync tiles are at their heaviest (128x4096x14336: 90% of cuBLAS against skinny's 74%,
// 64x8192x28672: 94 against 77-85); at M <= 32 wgmma's 64-wide N is mostly zeros and skinny stays
// ahead (16x4096x4096: 72 against 92), and at 64x4096x4096 too (61 against 78: 8 k tiles a split,
// the pipeline's fill and the partials' round trip are most of the time). Since the splits share
// the sum (2026-11-30-h200, swap160/): 64x4096x4096 78, 16x4096x4096 93, 55x4096x14336 98.
//
// Built again as wgmma_swap160 (nvcc -DTILE_M=160): LLM steps of 129-160 rows (and, with a long K,
// 257-320 as two row tiles), where 128-row tiles pad M to 256 and read B twice. All of M is
// wgmma's N (m64n160k16: 80 accumulators a thread), so B is read once and the math padded by a
// few rows; 36 KB stages, 5 of them, one CTA an SM (139 registers: with 9 warps, 3 share a
// scheduler's 16K registers, so 168 at most), S = max(1, min(K // 256, SMS // (x y))).
// 143x4096x14336 runs at 88% of cuBLAS against 58% for wgmma_splitk128, 152x13824x5120 at 100
// against 79 for wgmma_tmastore_deep (H200, 2026-11-30-h200, swap160/). A small C over a long K
// splits over the SMs the same way: 432x344x16112 at 90% against 53% for 128x256 tiles. Not
// kept: builds 192 and 256 rows tall (slower than this one at every shape, by 10-40 points), and
// clusters of 2 or 4 CTAs side by side sharing A's stages by TMA multicast (no faster: A's L2
// reads are not what holds it).
//
// Built again as wgmma_stagedswap160 (nvcc -DTILE_M=160 -DSTAGED): for N or K not a multiple of 8,
// whose rows TMA cannot address, the grid first copies such an operand to rows on 128-byte lines
// (staged_operands.cuh, then a grid barrier) and the maps read the copy. It takes such shapes from
// wgmma_stagedsplit128, whose 128-row tiles pad 129-160 rows to 256 and read B once per row tile.
//
// Contract: block (288), grid as above, 99,456 bytes of dynamic shared memory (185,472 at
// TILE_M = 160); sm_90a; launched cooperatively where S > 1 (the splits of a tile wait for each
// other), and always when STAGED (every CTA waits for the copy: cdiv(M, 160) * cdiv(N, 128) <= the
// SMs, or the launch fails). M any; N and K multiples of 8 (TMA's 16-byte rows), any when STAGED
// (A and B 4-byte aligned). beta == 0: C is not read. Launches must not overlap in time (one
// workspace per loaded module). Kernel parameters: the fixed list, when STAGED the copies of A
// and B (null: not copied), then the tensor maps of A (box 64 k x TILE_M rows) and B (box 64 n x
// 64 k), both 128B-swizzled.

#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include "wgmma_fp16.cuh"                            // hopper.cuh's primitives, WGFP16_D32, pin
#ifndef STAGED
#define STAGED 0                                     // 1: wgmma_stagedswap160, rows TMA cannot address copied first
#endif
#if STAGED
#include "staged_operands.cuh"
#define STAGING_PITCH_BYTES 128                      // the manifest's: copies' rows on whole 128-byte lines
__device__ staged::GridBarrier g_barrier;            // zero at module load
#endif

#ifndef TILE_M
#define TILE_M 64                                    // rows of A a CTA: wgmma's N (64 or 160)
#endif
#define NTHREADS 288                                 // two consumer warpgroups, then one producer warp
#define TILE_N 128                                   // columns of B a CTA: 64 per consumer warpgroup
#define A_TILE (TILE_M * wgfp16::BK * 2)             // TILE_M rows of A by 64 k: 8,192 or 20,480 bytes
#define STAGE_BYTES (A_TILE + 2 * wgfp16::B_BOX)     // and a 64 n x 64 k box of B per consumer warpgroup
#define STAGES (4 + (TILE_M > 64))                  // 4 of 24 KB, or 5 of 36 KB
#define SMEM_BYTES (STAGES * STAGE_BYTES + 1024 + 128)  // the manifest's: 99,456 or 185,472
#define NACC (TILE_M / 2)                            // 64 x TILE_M floats over 128 threads
#define CTAS_PER_SM (1 + (TILE_M == 64))
#define WS_FLOATS (1LL << 22)                        // partials: 512 of 64 x 128 floats or 204 of 160 x 128, a wave's
#define MAX_TILES 4096                               // arrival counters

__device__ __align__(16) float g_partials[WS_FLOATS];
__device__ unsigned g_counters[MAX_TILES];           // splits arrived at a tile: zero at module load, reset by the last to leave
__device__ unsigned g_departed[MAX_TILES];           // splits that have written their slice

// D[64 (n) x TILE_M (m)] += Bt[64 x 16] (MN-major: B's rows) * At[16 x TILE_M] (K-major: A's rows).
template <int N_> __device__ __forceinline__ void mma_swapped(float* d, uint64_t descBt, uint64_t descAt);

template <> __device__ __forceinline__ void mma_swapped<64>(float* d, uint64_t descBt, uint64_t descAt)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
        "}, %32, %33, p, 1, 1, 1, 0;\n"
        "}\n"
        : WGFP16_D32(0)
        : "l"(descBt), "l"(descAt), "r"(1)
        : "memory");
}

template <> __device__ __forceinline__ void mma_swapped<160>(float* d, uint64_t descBt, uint64_t descAt)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %82, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n160k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79"
        "}, %80, %81, p, 1, 1, 1, 0;\n"
        "}\n"
        : WGFP16_D32(0), WGFP16_D32(32), WGFP16_D8(64), WGFP16_D8(72)
        : "l"(descBt), "l"(descAt), "r"(1)
        : "memory");
}

extern "C" __global__ void __launch_bounds__(NTHREADS, CTAS_PER_SM)
hgemm_wgmma_swap64(int M, int N, int K, float alpha, const __half* __restrict__ A, const __half* __restrict__ B,
                   float beta, float* __restrict__ C,
#if STAGED
                   __half* __restrict__ As, __half* __restrict__ Bs,
#endif
                   const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
#if STAGED
    staged::stage<STAGING_PITCH_BYTES / 2>(M, N, K, A, B, As, Bs, &g_barrier);
#endif
    const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
    const uint32_t tiles = (raw + 1023) & ~1023u;
    const uint32_t bars = tiles + STAGES * STAGE_BYTES;
    auto full = [&](int s) { return bars + 8u * s; };
    auto empty = [&](int s) { return bars + 8u * (STAGES + s); };

    const int S = gridDim.z, j = blockIdx.z;
    const int m0 = blockIdx.x * TILE_M, n0 = blockIdx.y * TILE_N;
    const int kTiles = (K + wgfp16::BK - 1) / wgfp16::BK;
    const int kBegin = (int)((long long)j * kTiles / S), kEnd = (int)((long long)(j + 1) * kTiles / S);
    const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;

    if (threadIdx.x == 0) ring_init(bars, STAGES, 2 * 4);     // one release per consumer warp
    __syncthreads();

    if (wg == 2) {                                   // the producer warp
        if (tid == 0) {
            asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(&tmA)) : "memory");
            asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(&tmB)) : "memory");
            int s = 0, round = 0;
            for (int kt = kBegin; kt < kEnd; ++kt) {
                if (round > 0) mbar_wait(empty(s), (round - 1) & 1);
                const uint32_t sa = tiles + s * STAGE_BYTES;
                mbar_arrive_expect_tx(full(s), STAGE_BYTES);   // whole boxes, zero-filled or not
                tma_load_2d(sa, &tmA, kt * wgfp16::BK, m0, full(s));
                tma_load_2d(sa + A_TILE, &tmB, n0, kt * wgfp16::BK, full(s));
                tma_load_2d(sa + A_TILE + wgfp16::B_BOX, &tmB, n0 + 64, kt * wgfp16::BK, full(s));
                if (++s == STAGES) { s = 0; ++round; }
            }
        }
        return;
    }

    const int c = wg;                                // columns n0 + 64c .. + 63
    const int warp = tid / 32, lane = tid % 32;
    float d[NACC];
#pragma unroll
    for (int i = 0; i < NACC; ++i) d[i] = 0.0f;
    wgfp16::pin<NACC>(d);
    int s = 0, round = 0, held = -1;
    for (int kt = kBegin; kt < kEnd; ++kt) {
        mbar_wait(full(s), round & 1);
        const uint32_t sa = tiles + s * STAGE_BYTES, sb = sa + A_TILE + c * wgfp16::B_BOX;
        wgmma_fence();
#pragma unroll
        for (int k = 0; k < wgfp16::BK / 16; ++k)
            mma_swapped<TILE_M>(d, smem_desc(sb + 2048 * k, wgfp16::B_BOX, 1024), smem_desc(sa + 32 * k, 16, 1024));
        wgmma_commit();
        wgfp16::pin<NACC>(d);
        wgmma_wait<1>();                             // the previous k tile's MMAs have retired...
        wgfp16::pin<NACC>(d);
        if (held >= 0 && lane == 0) mbar_arrive(empty(held));   // ...so its stage is free
        held = s;
        if (++s == STAGES) { s = 0; ++round; }
    }
    wgmma_wait<0>();
    wgfp16::pin<NACC>(d);
    if (held >= 0 && lane == 0) mbar_arrive(empty(held));

    // Float4 q of a thread holds C's rows m0 + 8q .. + 7 (below), so the q past M are zeros that
    // neither the partials nor the sums need: Qm of them are real (uniform over the CTA). Element
    // 4q + e is C's row mb + 8q + (e & 1), column n + 8 (e >> 1): one base pointer and offsets (a
    // pointer and a branch per element made the register epilogue of wgmma_swap160 so long an
    // instruction stream that its fetches held the last splits' 26 us tail at 143x4096x14336).
    constexpr int Q = NACC / 4;
    const int Qm = min(Q, (M - m0 + 7) / 8);
    const int n = n0 + 64 * c + warp * 16 + lane / 4, mb = m0 + 2 * (lane % 4);
    const bool col0 = n < N, col1 = n + 8 < N;
    float* const base = C + (size_t)mb * N + n;
    auto in = [&](int q, int e) { return mb + 8 * q + (e & 1) < M && (e >> 1 ? col1 : col0); };
    auto at = [&](int q, int e) { return base + (size_t)(8 * q + (e & 1)) * N + 8 * (e >> 1); };

    if (S > 1) {
        // Split j's partial: float4 q of consumer thread th at partials[((u * Q + q) * 256 + th) * 4],
        // u = g * S + j, g the tile: each float4 store of a warp covers 512 contiguous bytes. Then
        // every split, once all S have put theirs, sums a slice of the float4s [j Qm / S, (j + 1)
        // Qm / S) over the S partials in split order (the same sum whoever arrived first) and
        // writes its C: the sum is spread over the S CTAs, not left to the last to arrive (which
        // summed the whole tile while the others idled: a 26 us tail at 143x4096x14336). The
        // wait needs every split of a tile resident at once: S splits fill at most one wave, and
        // the launch is cooperative.
        const int g = blockIdx.y * gridDim.x + blockIdx.x;
        const int th = c * 128 + tid;
        if ((long long)(g + 1) * S * Q * 256 * 4 > WS_FLOATS || g >= MAX_TILES) __trap();
        float4* const part = reinterpret_cast<float4*>(g_partials);
#pragma unroll
        for (int q = 0; q < Q; ++q)
            if (q < Qm)
                part[((size_t)(g * S + j) * Q + q) * 256 + th] = make_float4(d[4 * q], d[4 * q + 1], d[4 * q + 2], d[4 * q + 3]);
        __threadfence();                             // the partial is visible before this split is counted
        asm volatile("bar.sync 1, 256;\n" ::: "memory");
        if (th == 0) {
            atomicAdd(&g_counters[g], 1u);
            while (*reinterpret_cast<volatile unsigned*>(&g_counters[g]) < (unsigned)S) __nanosleep(64);
        }
        asm volatile("bar.sync 1, 256;\n" ::: "memory");
        __threadfence();                             // the others' partials are read after their counts were seen
        const int lo = (int)((long long)j * Qm / S), hi = (int)((long long)(j + 1) * Qm / S);
        for (int q = lo; q < hi; ++q) {
            const float4* const p = part + (size_t)g * S * Q * 256 + (size_t)q * 256 + th;
            float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
            for (int k0 = 0; k0 < S; k0 += 8) {      // 8 partials' loads in flight, those past S predicated off
                float4 t[8];
#pragma unroll
                for (int u = 0; u < 8; ++u)
                    t[u] = k0 + u < S ? __ldcg(p + (size_t)(k0 + u) * Q * 256) : make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
                for (int u = 0; u < 8; ++u) {
                    v.x += t[u].x; v.y += t[u].y; v.z += t[u].z; v.w += t[u].w;
                }
            }
            float e[4] = {alpha * v.x, alpha * v.y, alpha * v.z, alpha * v.w};
            if (beta != 0.0f) {
                float cv[4];
#pragma unroll
                for (int i = 0; i < 4; ++i) cv[i] = in(q, i) ? *at(q, i) : 0.0f;
#pragma unroll
                for (int i = 0; i < 4; ++i) e[i] += beta * cv[i];
            }
#pragma unroll
            for (int i = 0; i < 4; ++i)
                if (in(q, i)) *at(q, i) = e[i];
        }
        asm volatile("bar.sync 1, 256;\n" ::: "memory");
        if (th == 0 && atomicAdd(&g_departed[g], 1u) == (unsigned)(S - 1)) {
            g_counters[g] = 0;                       // every split is past its wait: ready for the next launch
            g_departed[g] = 0;
        }
        return;
    }

    // One split: C from the accumulators. With beta != 0 the C of CB elements is read before their
    // stores: a load cannot pass a store the compiler cannot prove apart, so reads and writes by
    // turns waited one DRAM latency per element (38% of the samples after the loop at
    // 64x4096x4096, measured).
    constexpr int CB = NACC < 16 ? NACC : 16;
#pragma unroll
    for (int q0 = 0; q0 < NACC; q0 += CB) {
        if (q0 / 4 >= Qm) break;
        if (beta != 0.0f) {
            float cv[CB];
#pragma unroll
            for (int q = 0; q < CB; ++q) cv[q] = q0 + q < NACC && in((q0 + q) / 4, q % 4) ? *at((q0 + q) / 4, q % 4) : 0.0f;
#pragma unroll
            for (int q = 0; q < CB; ++q)
                if (q0 + q < NACC) d[q0 + q] = alpha * d[q0 + q] + beta * cv[q];
        } else {
#pragma unroll
            for (int q = 0; q < CB; ++q)
                if (q0 + q < NACC) d[q0 + q] *= alpha;
        }
#pragma unroll
        for (int q = 0; q < CB; ++q)
            if (q0 + q < NACC && in((q0 + q) / 4, q % 4)) *at((q0 + q) / 4, q % 4) = d[q0 + q];
    }
}
