// The body of skinny and skinny_any (kernels/53_skinny.cu, 55_skinny_any.cu): FP16 mma.sync tiles
// as tall as M (16, 32 or 64 rows) by 128 columns, k tiles of 64, K split over gridDim.z with the
// partials meeting in this module's workspace (split_arrival.cuh), by fragments or, for a tile
// mostly outside C with K split far, by rows (sum_tile). ANY = false wants N and K multiples of 8
// (16-byte rows for cp.async, float2 stores of C) and streams k tiles through 4-6 cp.async stages;
// ANY = true takes any N and K, fetching raw words into registers for a double buffer and storing
// C by floats.
#pragma once

#include <cuda_fp16.h>
#include "cp_async.cuh"
#include "raw_words.cuh"
#include "split_arrival.cuh"

#define BN 128
#define BK 64
#define MAX_THREADS 256                            // 128 a CTA up to 32 rows, 256 for 64
#ifndef SMEM_BYTES                                   // the including kernel's, as its manifest entry says
#error "define SMEM_BYTES (the manifest's smem_bytes) before including skinny.cuh"
#endif
#define WS_FLOATS (1LL << 22)                        // 16 MiB: 512 partial tiles of 64x128
#define SUM_SPLITS 16                                // partials sum_tile loads a round trip
#define WS_SLACK ((SUM_SPLITS - 1) * 64 * 128)       // what its last round trip may read past the end
#define MAX_TILES 4096                               // arrival counters (split grids have <= 2 SMS tiles)

__device__ __align__(16) float g_partials[WS_FLOATS + WS_SLACK];
__device__ unsigned g_counters[MAX_TILES];           // zero at module load; the last split resets its own

namespace skinny {

using namespace raw_words;

// Row r's 16-byte chunk c of a tile whose rows are `chunks` chunks long, XOR-swizzled over 8 rows:
// the 8 rows one ldmatrix reads at the same chunk land in 8 different bank groups.
__device__ __forceinline__ int swz(int r, int c, int chunks) { return r * chunks + (c ^ (r & 7)); }

__device__ __forceinline__ void ldmatrix_x4(unsigned (&d)[4], unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(addr));
}

__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&d)[4], unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(addr));
}

__device__ __forceinline__ void mma16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The split counted last, where the partials were written by rows (body's byRows): C = alpha (sum
// of the S partials) + beta C over the part of a BM x BN tile inside C (rows x cols from the
// tile's corner, C's row pitch ldc), its quads of 4 columns spread over all the CTA's threads.
// Each quad's SPLITS partials are loaded together and added in split order: a tile mostly outside
// C (M = 1, N = 17) reads only what is inside, in S / SPLITS round trips to L2 a quad. The loads
// are unconditional, at fixed offsets from one pointer (a split past S reads the slack after the
// workspace and is not added): loads under a predicate each waited on their own address arithmetic.
template <int BM, int NTHREADS, int SPLITS>
__device__ __noinline__ void sum_tile(const float* __restrict__ part, int S, int rows, int cols, float alpha,
                                      float beta, float* __restrict__ C, int ldc)
{
    constexpr int SPLIT = BM * BN;                   // floats from one split's partial to the next
    rows = min(rows, BM);
    cols = min(cols, BN);
    const int quads = (cols + 3) / 4, items = rows * quads;
    const bool vector = ldc % 4 == 0 && reinterpret_cast<size_t>(C) % 16 == 0;
#pragma unroll 1
    for (int item = threadIdx.x; item < items; item += NTHREADS) {
        const int r = item / quads, c = 4 * (item % quads);
        float* const dst = C + (size_t)r * ldc + c;
        float old[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) old[e] = beta != 0.0f && c + e < cols ? dst[e] : 0.0f;  // in flight with the partials
        const float* src = part + BN * r + c;
        float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll 1
        for (int k0 = 0; k0 < S; k0 += SPLITS, src += SPLITS * SPLIT) {
            float4 v[SPLITS];
#pragma unroll
            for (int u = 0; u < SPLITS; ++u) v[u] = __ldcg(reinterpret_cast<const float4*>(src + u * SPLIT));
#pragma unroll
            for (int u = 0; u < SPLITS; ++u)
                if (k0 + u < S) {
                    sum.x += v[u].x; sum.y += v[u].y; sum.z += v[u].z; sum.w += v[u].w;
                }
        }
        const float out[4] = {alpha * sum.x + beta * old[0], alpha * sum.y + beta * old[1],
                              alpha * sum.z + beta * old[2], alpha * sum.w + beta * old[3]};
        if (vector && c + 4 <= cols)
            *reinterpret_cast<float4*>(dst) = make_float4(out[0], out[1], out[2], out[3]);
        else
#pragma unroll
            for (int e = 0; e < 4; ++e)
                if (c + e < cols) dst[e] = out[e];
    }
}

// One CTA of 128 WM threads: rows [m0, m0 + 16 MT) of C, columns [n0, n0 + 128), k tiles
// [kt0, kt1) of split z. Warp w owns columns n0 + 32 (w % 4) .. + 31 (four n8 tiles) of MT / WM
// m16 tiles from row 16 (MT / WM) (w / 4): a 64-row tile takes 8 warps, so that two of them
// per scheduler hide the MMAs' latency.
template <int MT, int WM, bool ANY>
__device__ __forceinline__ void body(int M, int N, int K, float alpha, const __half* __restrict__ A,
                                     const __half* __restrict__ B, float beta, float* __restrict__ C,
                                     unsigned char* smem)
{
    constexpr int BM = 16 * MT;
    constexpr int A_CHUNKS = BK / 8;                 // 16-byte chunks per row of the A tile (8)
    constexpr int B_CHUNKS = BN / 8;                 // and of the B tile (16)
    constexpr int A_STAGE = BM * BK * 2, B_STAGE = BK * BN * 2;
    constexpr int NTHREADS = 128 * WM, MW = MT / WM;  // threads; m16 tiles a warp
    constexpr int ACC = MW * 4 * 4;                  // MW m16 tiles x 4 n8 tiles x 4 floats
    // cp.async: <= 110,592 bytes, two CTAs per SM. ANY loads through registers, which a double
    // buffer overlaps with the MMAs; its 48 KB leave room for four CTAs of 128 threads per SM.
    constexpr int STAGES = ANY ? 2 : MT == 1 ? 6 : MT == 2 ? 5 : 4;
    static_assert(STAGES * (A_STAGE + B_STAGE) <= SMEM_BYTES, "the manifest's smem_bytes holds the stages");

    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int wn = warp % 4, wr = 16 * MW * (warp / 4);  // the warp's column group, first row
    const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
    const int S = gridDim.z, z = blockIdx.z;
    const int kTiles = (K + BK - 1) / BK;
    const int kt0 = (int)((long long)z * kTiles / S), kt1 = (int)((long long)(z + 1) * kTiles / S);
    const int nk = kt1 - kt0;

    const unsigned sA = smem_u32(smem), sB = sA + STAGES * A_STAGE;
    if (S > 1 && (long long)gridDim.x * gridDim.y * S * BM * BN > WS_FLOATS) __trap();

    // Loads of k tile t into stage s, zero-filled past M, N and K. Thread tid copies chunk tid % 16
    // of B rows tid / 16 + 8 j and chunk tid % 8 of A rows tid / 8 + 16 j: rows 8 apart share a
    // swizzle, so one base offset serves every j. With N and K multiples of 8 a chunk is all in or
    // all out and cp.async copies it (load); ANY fetches it into registers and stores it.
    constexpr int B_ROWS_PER_PASS = NTHREADS / B_CHUNKS, A_ROWS_PER_PASS = NTHREADS / A_CHUNKS;
    const int bc = tid % B_CHUNKS, br = tid / B_CHUNKS, ac = tid % A_CHUNKS, ar = tid / A_CHUNKS;
    const bool bIn = n0 + 8 * bc < N;
    const __half* const bSrc = B + (size_t)(kt0 * BK + br) * N + n0 + 8 * bc;
    const __half* const aSrc = A + (size_t)(m0 + ar) * K + kt0 * BK + 8 * ac;
    const unsigned bDst = sB + 16 * swz(br, bc, B_CHUNKS), aDst = sA + 16 * swz(ar, ac, A_CHUNKS);
    auto load = [&](int t, int s) {
        const int k = (kt0 + t) * BK;
#pragma unroll
        for (int j = 0; j < BK / B_ROWS_PER_PASS; ++j) {
            const bool in = bIn && k + br + B_ROWS_PER_PASS * j < K;
            cp_async_16z(bDst + s * B_STAGE + j * B_ROWS_PER_PASS * BN * 2,
                         in ? bSrc + (size_t)(t * BK + B_ROWS_PER_PASS * j) * N : B, in ? 16 : 0);
        }
#pragma unroll
        for (int j = 0; j < BM / A_ROWS_PER_PASS; ++j) {
            const bool in = m0 + ar + A_ROWS_PER_PASS * j < M && k + 8 * ac < K;
            cp_async_16z(aDst + s * A_STAGE + j * A_ROWS_PER_PASS * BK * 2,
                         in ? aSrc + (size_t)A_ROWS_PER_PASS * j * K + t * BK : A, in ? 16 : 0);
        }
    };
    constexpr int NB = BK / B_ROWS_PER_PASS, NA = BM / A_ROWS_PER_PASS;  // chunks a thread loads
    unsigned rb[NB][5], ra[NA][5];                   // the next tile's chunks as raw words (fetch_words)
    auto fetch = [&](int t) {
        const int k = (kt0 + t) * BK;
#pragma unroll
        for (int j = 0; j < NB; ++j) fetch_words(rb[j], B, K, N, k + br + B_ROWS_PER_PASS * j, n0 + 8 * bc);
#pragma unroll
        for (int j = 0; j < NA; ++j) fetch_words(ra[j], A, M, K, m0 + ar + A_ROWS_PER_PASS * j, k + 8 * ac);
    };
    auto store = [&](int t, int s) {
        const int k = (kt0 + t) * BK;
        unsigned v[4];
#pragma unroll
        for (int j = 0; j < NB; ++j) {
            chunk(v, rb[j], B, K, N, k + br + B_ROWS_PER_PASS * j, n0 + 8 * bc);
            st_shared_16(bDst + s * B_STAGE + j * B_ROWS_PER_PASS * BN * 2, v);
        }
#pragma unroll
        for (int j = 0; j < NA; ++j) {
            chunk(v, ra[j], A, M, K, m0 + ar + A_ROWS_PER_PASS * j, k + 8 * ac);
            st_shared_16(aDst + s * A_STAGE + j * A_ROWS_PER_PASS * BK * 2, v);
        }
    };

    float d[ACC];
#pragma unroll
    for (int i = 0; i < ACC; ++i) d[i] = 0.0f;

    // Tile stage s's MMAs into d.
    auto mma_stage = [&](int s) {
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk) {
            // B: four 8x8 matrices per ldmatrix.x4.trans, (k 0-7 | 8-15) x (n 0-7 | 8-15) of 16 columns.
            unsigned b[4][2];
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int kr = 16 * kk + (lane / 8 % 2) * 8 + lane % 8;
                const int nc = (32 * wn + 16 * h + (lane / 16) * 8) / 8;
                unsigned r[4];
                ldmatrix_x4_trans(r, sB + s * B_STAGE + 16 * swz(kr, nc, B_CHUNKS));
                b[2 * h][0] = r[0]; b[2 * h][1] = r[1]; b[2 * h + 1][0] = r[2]; b[2 * h + 1][1] = r[3];
            }
#pragma unroll
            for (int mt = 0; mt < MW; ++mt) {
                unsigned a[4];
                const int ar16 = wr + 16 * mt + lane % 16, ac16 = 2 * kk + lane / 16;
                ldmatrix_x4(a, sA + s * A_STAGE + 16 * swz(ar16, ac16, A_CHUNKS));
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    mma16816(*reinterpret_cast<float(*)[4]>(&d[(mt * 4 + j) * 4]), a, b[j][0], b[j][1]);
            }
        }
    };

    if constexpr (ANY) {
        // Tile t + 1's loads are in flight while tile t's MMAs run, and stored after them.
        if (nk > 0) {
            fetch(0);
            store(0, 0);
        }
#pragma unroll 1
        for (int t = 0; t < nk; ++t) {
            __syncthreads();                         // tile t stored; every warp is done with t - 1's stage
            if (t + 1 < nk) fetch(t + 1);
            mma_stage(t % 2);
            if (t + 1 < nk) store(t + 1, (t + 1) % 2);
        }
    } else {
        // Rolled loops: a CTA runs a handful of k tiles, so an unrolled body would be fetched from
        // memory once per warp and never reused (the instruction fetch, not DRAM, set the pace).
#pragma unroll 1
        for (int t = 0; t < STAGES - 1; ++t) {
            if (t < nk) load(t, t);
            cp_async_commit();
        }
        int s = 0, sNext = STAGES - 1;               // stages of tile t and of tile t + STAGES - 1
#pragma unroll 1
        for (int t = 0; t < nk; ++t) {
            cp_async_wait<STAGES - 2>();
            __syncthreads();                             // tile t landed; every warp is done with t - 1's stage
            if (t + STAGES - 1 < nk) load(t + STAGES - 1, sNext);
            cp_async_commit();
            mma_stage(s);
            s = s + 1 == STAGES ? 0 : s + 1;
            sNext = sNext + 1 == STAGES ? 0 : sNext + 1;
        }
        cp_async_wait<0>();
    }

    if (S > 1) {
        // The splits of tile g meet in the workspace (split_arrival.cuh) by one of two layouts.
        // By fragments: split z writes its whole partial as each thread holds it, and the split
        // counted last sums its own fragments over the S partials. A 16-row tile's partials (8 KB
        // a split) come back by cp.async into the stages, FRAGMENT_SPLITS a round trip (13 in
        // skinny's 108 KB, 6 in skinny_any's 48); taller tiles' (16 and 32 KB) one split a round
        // trip into registers, about 550 cycles each. Batched, 12-16 rows ran 1-2.4 points
        // faster at N = K = 5120 and N = 4096, K = 14336, and 24-64 rows 0.5-1.4 points slower
        // (A/B in one run, H200). By rows (byRows): split z writes the part of its partial
        // inside C, row-major at partials[(g S + z) BM BN + BN r + c], and the split counted
        // last sums it quad by quad (sum_tile), SUM_SPLITS partials a round trip. A round trip
        // by rows took about twice as long (clock64 stamps of the last split: 1,000-1,500 cycles
        // against 550; about half of sum_tile's stall samples waited on instruction fetch, its
        // code cold), and a fragment tile mostly outside C writes and reads back all of it (M =
        // 1: 8 KB a split where rows move 512 bytes; 1x5120x5120 98% by rows, 94% by fragments).
        // So rows are taken where twice their round trips are fewer than the fragments' plus two
        // where C holds at most a quarter of the tile: one row of 16 (2 against 3), tiles mostly
        // outside C with S large (27x17x14214: 16 against 57), not 8 rows of 16 (4 against 1) or
        // a whole tile of 32 or 64 rows with S = 16 (16 against 16: 4-7 points slower by rows).
        constexpr int Q = ACC / 4;                   // float4s of a thread's partial
        constexpr int FRAGMENT_SPLITS = MT == 1 ? SMEM_BYTES / (Q * NTHREADS * 16) : 1;
        static_assert(FRAGMENT_SPLITS >= 1, "the stages hold one split's partial");
        const int g = blockIdx.y * gridDim.x + blockIdx.x;
        const int quads = (min(BN, N - n0) + 3) / 4, items = min(BM, M - m0) * quads;
        const int rowTrips = (items + NTHREADS - 1) / NTHREADS * ((S + SUM_SPLITS - 1) / SUM_SPLITS);
        const int fragmentCost = (S + FRAGMENT_SPLITS - 1) / FRAGMENT_SPLITS + (16 * items <= BM * BN ? 2 : 0);
        const bool byRows = 2 * rowTrips < fragmentCost;
        __shared__ int lastSplit;
        if (byRows) {
            // The fragments go to global memory through shared memory (the stages, free now), so
            // that the rows are written by float4s: a fragment's float2s written straight out
            // took twice the stores and stalled on the store queue.
            constexpr int LD = BN + 8;               // a half-warp's float2s land in 32 different banks
            static_assert(BM * LD * 4 <= STAGES * (A_STAGE + B_STAGE), "the stages hold the tile of floats");
            float* const tile = reinterpret_cast<float*>(smem);
            __syncthreads();                         // every warp is done with the stages
#pragma unroll
            for (int i = 0; i < MW * 8; ++i) {
                const int mt = i / 8, j = i / 2 % 4, h = i % 2;
                const int r = wr + 16 * mt + lane / 4 + 8 * h, c = 32 * wn + 8 * j + 2 * (lane % 4);
                *reinterpret_cast<float2*>(tile + LD * r + c) = make_float2(d[4 * (i / 2) + 2 * h], d[4 * (i / 2) + 2 * h + 1]);
            }
            __syncthreads();
            float* const part = g_partials + (size_t)g * S * (BM * BN);
#pragma unroll 1
            for (int item = tid; item < items; item += NTHREADS) {
                const int r = item / quads, c = 4 * (item % quads);
                *reinterpret_cast<float4*>(part + (size_t)z * (BM * BN) + BN * r + c) = *reinterpret_cast<const float4*>(tile + LD * r + c);
            }
            if (!arrived_last(&g_counters[g], S, lastSplit)) return;
            sum_tile<BM, NTHREADS, SUM_SPLITS>(part, S, M - m0, N - n0, alpha, beta, C + (size_t)m0 * N + n0, N);
            if (tid == 0) g_counters[g] = 0;         // ready for the next launch
            return;
        }
        // By fragments: float4 q of thread tid at partials[((g S + z) Q + q) NTHREADS + tid], a
        // warp's float4 stores covering 512 contiguous bytes.
        float4* const part = reinterpret_cast<float4*>(g_partials);
#pragma unroll
        for (int q = 0; q < Q; ++q)
            part[((size_t)(g * S + z) * Q + q) * NTHREADS + tid] = make_float4(d[4 * q], d[4 * q + 1], d[4 * q + 2], d[4 * q + 3]);
        if (!arrived_last(&g_counters[g], S, lastSplit)) return;
#pragma unroll
        for (int i = 0; i < ACC; ++i) d[i] = 0.0f;
        if constexpr (FRAGMENT_SPLITS > 1) {
            // cp.async into the stages (free now), FRAGMENT_SPLITS partials a round trip, each
            // thread reading back only what it copied itself.
#pragma unroll 1
            for (int k0 = 0; k0 < S; k0 += FRAGMENT_SPLITS) {
                const int n = min(FRAGMENT_SPLITS, S - k0);
#pragma unroll 1
                for (int u = 0; u < n; ++u)
#pragma unroll
                    for (int q = 0; q < Q; ++q)
                        cp_async_16(sA + 16 * ((u * Q + q) * NTHREADS + tid), &part[((size_t)(g * S + k0 + u) * Q + q) * NTHREADS + tid]);
                cp_async_commit();
                cp_async_wait<0>();
#pragma unroll 1
                for (int u = 0; u < n; ++u)
#pragma unroll
                    for (int q = 0; q < Q; ++q) {
                        const float4 v = *reinterpret_cast<const float4*>(smem + 16 * ((u * Q + q) * NTHREADS + tid));
                        d[4 * q] += v.x; d[4 * q + 1] += v.y; d[4 * q + 2] += v.z; d[4 * q + 3] += v.w;
                    }
            }
        } else {
            // One split's Q float4s loaded into registers together, then added.
#pragma unroll 1
            for (int k = 0; k < S; ++k) {
                float4 v[Q];
#pragma unroll
                for (int q = 0; q < Q; ++q) v[q] = __ldcg(&part[((size_t)(g * S + k) * Q + q) * NTHREADS + tid]);
#pragma unroll
                for (int q = 0; q < Q; ++q) {
                    d[4 * q] += v[q].x; d[4 * q + 1] += v[q].y; d[4 * q + 2] += v[q].z; d[4 * q + 3] += v[q].w;
                }
            }
        }
        if (tid == 0) g_counters[g] = 0;             // ready for the next launch
    }

    // d[(mt * 4 + j) * 4 + {0,1}] = (row wr + 16 mt + lane / 4, column 32 wn + 8 j + 2 (lane % 4) + {0,1}),
    // + {2,3}: the same columns 8 rows down. With N a multiple of 8 an n8 tile is all in or all out,
    // and a float2 of C is 8-byte aligned. With beta != 0 the thread's C is read whole before its
    // first store: a load cannot pass the store before it, so reads between stores wait one by one.
    if constexpr (ANY) {                             // an odd N misaligns float2: one float at a time
        float old[MW * 16];
#pragma unroll
        for (int i = 0; i < MW * 16; ++i) {
            const int mt = i / 16, j = i / 4 % 4, h = i / 2 % 2, e = i % 2;
            const int row = m0 + wr + 16 * mt + lane / 4 + 8 * h, col = n0 + 32 * wn + 8 * j + 2 * (lane % 4) + e;
            old[i] = beta != 0.0f && row < M && col < N ? C[(size_t)row * N + col] : 0.0f;
        }
#pragma unroll
        for (int i = 0; i < MW * 16; ++i) {
            const int mt = i / 16, j = i / 4 % 4, h = i / 2 % 2, e = i % 2;
            const int row = m0 + wr + 16 * mt + lane / 4 + 8 * h, col = n0 + 32 * wn + 8 * j + 2 * (lane % 4) + e;
            if (row < M && col < N) C[(size_t)row * N + col] = alpha * d[4 * (mt * 4 + j) + 2 * h + e] + beta * old[i];
        }
    } else {
        float2 old[MW * 8];
#pragma unroll
        for (int i = 0; i < MW * 8; ++i) {
            const int mt = i / 8, j = i / 2 % 4, h = i % 2;
            const int row = m0 + wr + 16 * mt + lane / 4 + 8 * h, col = n0 + 32 * wn + 8 * j + 2 * (lane % 4);
            old[i] = beta != 0.0f && row < M && col < N ? *reinterpret_cast<const float2*>(C + (size_t)row * N + col)
                                                        : make_float2(0.0f, 0.0f);
        }
#pragma unroll
        for (int i = 0; i < MW * 8; ++i) {
            const int mt = i / 8, j = i / 2 % 4, h = i % 2;
            const int row = m0 + wr + 16 * mt + lane / 4 + 8 * h, col = n0 + 32 * wn + 8 * j + 2 * (lane % 4);
            if (row < M && col < N)
                *reinterpret_cast<float2*>(C + (size_t)row * N + col) =
                    make_float2(alpha * d[4 * (i / 2) + 2 * h] + beta * old[i].x, alpha * d[4 * (i / 2) + 2 * h + 1] + beta * old[i].y);
        }
    }
}

// ANY's bodies are called, not inlined: inlined side by side in one function their registers ran
// past 128 and spilled, where each alone uses at most 113.
template <int MT, int WM>
__device__ __noinline__ void body_any(int M, int N, int K, float alpha, const __half* __restrict__ A,
                                      const __half* __restrict__ B, float beta, float* __restrict__ C, unsigned char* smem)
{
    body<MT, WM, true>(M, N, K, alpha, A, B, beta, C, smem);
}

// The tile height from M: 16 and 32 rows on 128 threads, 64 on 256.
template <bool ANY>
__device__ __forceinline__ void gemm(int M, int N, int K, float alpha, const __half* __restrict__ A,
                                     const __half* __restrict__ B, float beta, float* __restrict__ C, unsigned char* smem)
{
    if constexpr (ANY) {
        if (M <= 16)
            body_any<1, 1>(M, N, K, alpha, A, B, beta, C, smem);
        else if (M <= 32)
            body_any<2, 1>(M, N, K, alpha, A, B, beta, C, smem);
        else
            body_any<4, 2>(M, N, K, alpha, A, B, beta, C, smem);
    } else {
        if (M <= 16)
            body<1, 1, false>(M, N, K, alpha, A, B, beta, C, smem);
        else if (M <= 32)
            body<2, 1, false>(M, N, K, alpha, A, B, beta, C, smem);
        else
            body<4, 2, false>(M, N, K, alpha, A, B, beta, C, smem);
    }
}

}  // namespace skinny
