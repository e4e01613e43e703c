// spread_tile.cuh: the block tile of spread128x256x8 for any M, N, K and any range of k tiles,
// in the shapes its 64x64 warp tiles make: 128x256 (ragged128x256x8, splitk128x256x8,
// splitk128x256x8rs, streamk128x256x8, tailsk128x256x8) and 256x128 or 256x64 (splitk256x128x8rs,
// splitk256x64x8rs: tall-skinny C, where 256 columns would be mostly past N). ragged128x256x8's
// header explains the edge paths; spread128x256x8's and cutlass128x256x8's the tile, lane layout,
// pipeline and epilogue.
//
// A rung's tile body derives from Tile<BM, BN> (its constants and steps then read unqualified).
// Every shape keeps a thread's 16x8 results, its fragment loads and the epilogue; what the shape
// changes is the warps' places (BN / 64 across), the threads (BM * BN / 128) and how many
// cp.async copies each thread issues per k tile (A: BM * 8 / NTHREADS scalars, B: BN * 2 /
// NTHREADS float4s).
//
// Launch: block (NTHREADS), SMEM_BYTES of dynamic shared memory (49,664 at 128x256 and 256x128),
// sm_80+.

#pragma once

#include <cstdint>

#include "cp_async.cuh"
#include "staged_epilogue.cuh"

namespace spread {

// log2 of a power of two: thread indices are split by shifts and masks (a signed / or % is not one).
__host__ __device__ constexpr int log2i(int x) { return x > 1 ? 1 + log2i(x / 2) : 0; }

// This thread's warp and lane, its warp's 64x64 place in the tile and its lane's (tr, tc).
struct Lanes {
    int warp, lane, wRow, wCol, tr, tc;
};

template <int BM_, int BN_>
struct Tile {
    static constexpr int BM = BM_;
    static constexpr int BN = BN_;
    static constexpr int BK = 8;
    static constexpr int STAGES = 4;
    static constexpr int NTHREADS = BM * BN / 128;  // 16x8 results a thread
    static constexpr int AS_LD = BM + 4;  // == 4 (mod 32): the A copies' 32 lanes hit 32 banks
    static constexpr int A_STAGE = BK * AS_LD;
    static constexpr int B_STAGE = BK * BN;
    static constexpr int STAGE = A_STAGE + B_STAGE;
    static constexpr int SMEM_BYTES = STAGES * STAGE * 4;
    static constexpr int ROT = 1;
    // Chunks of C the epilogue reads ahead, after prefetch_c (staged_epilogue.cuh). H100, one run
    // (c-prefetch/abE, abF): 4 gave ragged128x256x8 +0.5 to +1.1% of cuBLAS on 4096-8192^3 and
    // tailsk128x256x8 +0.4 to +2.6%; 1 and 8 less; 2 cost 7-10%, its main loop allocated worse.
    static constexpr int C_AHEAD = 4;
    static constexpr int A_ROWS = NTHREADS / BK;      // rows of A one pass of scalar copies covers
    static constexpr int A_PASSES = BM / A_ROWS;      // scalar A copies a thread issues per k tile
    static constexpr int B_F4 = BN / 4;               // float4s in a row of the B tile
    static constexpr int B_ROWS = NTHREADS / B_F4;    // rows of B one pass of float4 copies covers
    static constexpr int B_PASSES = BK / B_ROWS;      // float4 B copies a thread issues per k tile
    static_assert((BN & (BN - 1)) == 0 && BM % 64 == 0 && BN >= 64 && A_PASSES * A_ROWS == BM && B_PASSES * B_ROWS == BK,
                  "64x64 warp tiles, copies that cover the tile");
    static_assert(NTHREADS / 32 * CS_LD * 16 <= SMEM_BYTES, "the epilogue's staging fits in the pipeline's smem");

    static __device__ __forceinline__ Lanes lanes()
    {
        const int tid = threadIdx.x;
        const int warp = tid >> 5, lane = tid & 31;
        return {warp, lane, (warp >> log2i(BN / 64)) * 64, (warp & (BN / 64 - 1)) * 64, ((lane >> 1) & 1) | ((lane >> 3) & 2), (lane & 1) | ((lane >> 1) & 6)};
    }

    // acc = A[bm.., k < kEnd] * B[k < kEnd, bn..] over nTiles k tiles (zero when nTiles <= 0), A and B
    // pointing at the first k of the range (a split passes A + t0 * BK, B + t0 * BK * N and
    // kEnd = K - t0 * BK; the rows of A are still K long). EDGE: copies
    // predicated (zero-filled past M, N, K); else the tile lies inside M and N and K % BK == 0.
    // VEC_B: B copied as float4s (N % 4 == 0, B 16-byte aligned), else as scalars.
    template <bool EDGE, bool VEC_B>
    static __device__ __forceinline__ void multiply(float (&acc)[16][8], float* smem, int M, int N, int K, int kEnd,
                                                    const float* __restrict__ A, const float* __restrict__ B, int bm, int bn,
                                                    int nTiles, const Lanes& ln)
    {
        const int tid = threadIdx.x;
        const int wRow = ln.wRow, wCol = ln.wCol, tr = ln.tr, tc = ln.tc;

        const int aRow = tid >> log2i(BK), aK = tid & (BK - 1);
        const int bK = tid >> log2i(B_F4), bCol = (tid & (B_F4 - 1)) * 4;
        const float* gA = A + (size_t)(bm + aRow) * K + aK;
        const float* gB = B + (size_t)bK * N + bn + bCol;
        const size_t aStep = (size_t)A_ROWS * K, bStep = (size_t)B_ROWS * N;
        const unsigned sbase = static_cast<unsigned>(__cvta_generic_to_shared(smem));
        const unsigned sAw = sbase + 4u * (aK * AS_LD + aRow);
        const unsigned sBw = sbase + 4u * (A_STAGE + bK * BN + bCol);

        // Edge predicates fixed for the block: which of this thread's A_PASSES rows of A lie inside
        // M, how many of its 4 columns of B lie inside N.
        unsigned rowsIn = 0;
#pragma unroll
        for (int l = 0; l < A_PASSES; ++l) rowsIn |= (bm + aRow + A_ROWS * l < M ? 1u : 0u) << l;
        const int colsIn = max(0, min(4, N - (bn + bCol)));
        int kA = aK, kB = bK;  // k of this thread's A column and first B row in the tile gA/gB point at

        auto loadTileZ = [&](int s, bool real) {  // the tile gA/gB point at into stage s; zeros if !real
            const unsigned so = 4u * STAGE * s;
            if (!EDGE) {
                const unsigned n4 = real ? 4u : 0u, n16 = real ? 16u : 0u;
#pragma unroll
                for (int l = 0; l < A_PASSES; ++l) cp_async_4z(sAw + so + 4u * A_ROWS * l, gA + l * aStep, n4);
#pragma unroll
                for (int l = 0; l < B_PASSES; ++l) cp_async_16z(sBw + so + 4u * B_ROWS * BN * l, gB + l * bStep, n16);
            } else {
#pragma unroll
                for (int l = 0; l < A_PASSES; ++l) {
                    const bool ok = real && kA < kEnd && (rowsIn >> l & 1u);
                    cp_async_4z(sAw + so + 4u * A_ROWS * l, ok ? gA + l * aStep : A, ok ? 4u : 0u);
                }
#pragma unroll
                for (int l = 0; l < B_PASSES; ++l) {
                    const bool kin = real && kB + B_ROWS * l < kEnd;
                    if (VEC_B) {
                        const bool ok = kin && colsIn == 4;
                        cp_async_16z(sBw + so + 4u * B_ROWS * BN * l, ok ? gB + l * bStep : B, ok ? 16u : 0u);
                    } else {
                        // Columns (tid & (B_F4 - 1)) + B_F4 j, not bCol + j: a warp's 4-byte copies then
                        // cover 128 contiguous bytes (lanes 16 bytes apart asked L1 for 4x the
                        // sectors and made 4095^3 bound by L1: shapes-profile-2).
                        const int c0 = (tid & (B_F4 - 1)) - bCol;  // this thread's first column, from bCol
#pragma unroll
                        for (int j = 0; j < 4; ++j) {
                            const bool ok = kin && bCol + c0 + B_F4 * j < N - bn;
                            cp_async_4z(sBw + so + 4u * B_ROWS * BN * l + 4u * (c0 + B_F4 * j), ok ? gB + l * bStep + c0 + B_F4 * j : B,
                                        ok ? 4u : 0u);
                        }
                    }
                }
                kA += BK;
                kB += BK;
            }
            gA += BK;
            gB += (size_t)BK * N;
        };

        const float* const sAr = smem + wRow + tr * 4;
        const float* const sBr = smem + A_STAGE + wCol + tc * 4;
        float4 fa[2][4], fb[2][2];
        auto loadFrag = [&](int set, int off, int k) {
#pragma unroll
            for (int mi = 0; mi < 4; ++mi)
                fa[set][mi] = *reinterpret_cast<const float4*>(sAr + off + k * AS_LD + mi * 16);
#pragma unroll
            for (int ni = 0; ni < 2; ++ni)
                fb[set][ni] = *reinterpret_cast<const float4*>(sBr + off + k * BN + ni * 32);
        };

#pragma unroll
        for (int i = 0; i < 16; ++i)
#pragma unroll
            for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;
        auto loadFragHalf = [&](int set, int off, int k, int h) {
            if (h == 0) {
#pragma unroll
                for (int ni = 0; ni < 2; ++ni)
                    fb[set][ni] = *reinterpret_cast<const float4*>(sBr + off + k * BN + ni * 32);
                fa[set][0] = *reinterpret_cast<const float4*>(sAr + off + k * AS_LD);
            } else {
#pragma unroll
                for (int mi = 1; mi < 4; ++mi)
                    fa[set][mi] = *reinterpret_cast<const float4*>(sAr + off + k * AS_LD + mi * 16);
            }
        };
        auto fma = [&](int set, int half) {
            float a[16], b[8];
#pragma unroll
            for (int mi = 0; mi < 4; ++mi) {
                a[mi * 4 + 0] = fa[set][mi].x; a[mi * 4 + 1] = fa[set][mi].y;
                a[mi * 4 + 2] = fa[set][mi].z; a[mi * 4 + 3] = fa[set][mi].w;
            }
#pragma unroll
            for (int ni = 0; ni < 2; ++ni) {
                b[ni * 4 + 0] = fb[set][ni].x; b[ni * 4 + 1] = fb[set][ni].y;
                b[ni * 4 + 2] = fb[set][ni].z; b[ni * 4 + 3] = fb[set][ni].w;
            }
#pragma unroll
            for (int i = half * 8; i < half * 8 + 8; ++i)
#pragma unroll
                for (int jj = 0; jj < 8; ++jj) {
                    const int j = (i & 1) ? 7 - jj : jj;
                    acc[i][j] += a[i] * b[j];
                }
        };

#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
            if (s < nTiles) loadTileZ(s, true);
            cp_async_commit();
        }
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        int rs = 0;
        int ws = STAGES - 1;
        loadFrag(0, 0, 0);

        for (int t = 0; t < nTiles; ++t) {
#pragma unroll
            for (int d = 0; d < BK; ++d) {
                if (d == BK - 1) {
                    cp_async_wait<STAGES - 2>();
                    __syncthreads();
                    rs = rs + 1 == STAGES ? 0 : rs + 1;
                }
                loadFragHalf((d + 1) & 1, rs * STAGE, (d + 1) & (BK - 1), 0);
                if (d == 0) {
                    loadTileZ(ws, t + STAGES - 1 < nTiles);
                    cp_async_commit();
                    ws = ws + 1 == STAGES ? 0 : ws + 1;
                }
                fma(d & 1, 0);
                loadFragHalf((d + 1) & 1, rs * STAGE, (d + 1) & (BK - 1), 1);
                fma(d & 1, 1);
            }
        }
        cp_async_wait<0>();
        __syncthreads();  // shared memory free for the epilogue's staging
    }

    // C = alpha * acc + beta * C for the tile at (bm, bn), through shared memory (staged_epilogue.cuh):
    // float4s checked against M and N when EDGE (unchecked otherwise); VEC_B false: element by
    // element, C fetched to L2 and read SCALAR_AHEAD chunks ahead when SCALAR_AHEAD > 0 (0: each
    // chunk's C read as it comes). That code changes the registers ptxas gives the whole kernel,
    // main loop included, so a rung takes it only where it was measured not to slow its aligned
    // shapes: streamk128x256x8 ran 2.5% slower at 4096-8192^3 with it (H200, one run, seven shapes).
    template <bool EDGE, bool VEC_B, int SCALAR_AHEAD = 0>
    static __device__ __forceinline__ void store(const float (&acc)[16][8], float* smem, int M, int N, float alpha,
                                                 float beta, float* __restrict__ C, int bm, int bn, const Lanes& ln)
    {
        float4* const stage = reinterpret_cast<float4*>(smem) + ln.warp * CS_LD;
        if (VEC_B)
            store_c_through_smem<4, ROT, EDGE, false, C_AHEAD>(stage, acc, C, M, N, bm + ln.wRow, bn, ln.wCol, ln.lane, ln.tr, ln.tc, alpha,
                                                            beta);
        else
            store_c_through_smem<4, ROT, true, true, SCALAR_AHEAD>(stage, acc, C, M, N, bm + ln.wRow, bn, ln.wCol, ln.lane, ln.tr, ln.tc, alpha, beta);
    }

    // A split's partial tile in a workspace slot, row-major BM x BN floats (C's layout, so a slice of
    // it maps to rows and columns of C): acc[mi*4 + e][ni*4 + j] is the tile's row
    // wRow + mi*16 + tr*4 + e, column wCol + ni*32 + tc*4 + j. Written through L2 (.cg).
    static __device__ __forceinline__ float4* slot_at(float* slot, int i, int ni, const Lanes& ln)
    {
        float* const base = slot + (ln.wRow + ln.tr * 4) * BN + ln.wCol + ln.tc * 4;  // one pointer, constant offsets:
        return reinterpret_cast<float4*>(base + ((i / 4) * 16 + i % 4) * BN + ni * 32);  // 32 addresses held live cost ~40 registers
    }

    static __device__ __forceinline__ void put_slot(float* slot, const float (&acc)[16][8], const Lanes& ln)
    {
#pragma unroll
        for (int i = 0; i < 16; ++i)
#pragma unroll
            for (int ni = 0; ni < 2; ++ni)
                __stcg(slot_at(slot, i, ni, ln), make_float4(acc[i][ni * 4], acc[i][ni * 4 + 1], acc[i][ni * 4 + 2], acc[i][ni * 4 + 3]));
    }

    // put_slot for the stream-K fix-up, each quad rotated as the epilogue stages it: slot q of a
    // float4 holds column (q + ROT) % 4 (rsum::sum_tile turns it back). A float4 store asks ptxas for
    // its four floats in an aligned register quadruple. Unrotated (put_slot), that put acc[i][j] in
    // b[j]'s register bank, against the epilogue's rotated STS.128: 840-940 of streamk128x256x8's
    // 1024 main-loop FFMAs read two operands from one bank (register mod 4). Stored a float at a
    // time, 51-114, but four times the stores, held back by the LSU queue (0.7% of the kernel's
    // samples at 4096^3, LG throttle). Rotated, the store asks for the quadruple the epilogue does.
    // H100 against the same main loop (A/B run ab16b): +0.4 to +1.4% of cuBLAS on 3072-7168^3,
    // -0.1 at 8192^3.
    static __device__ __forceinline__ void put_slot_rotated(float* slot, const float (&acc)[16][8], const Lanes& ln)
    {
#pragma unroll
        for (int i = 0; i < 16; ++i)
#pragma unroll
            for (int ni = 0; ni < 2; ++ni)
                __stcg(slot_at(slot, i, ni, ln), make_float4(acc[i][ni * 4 + (0 + ROT) % 4], acc[i][ni * 4 + (1 + ROT) % 4],
                                                             acc[i][ni * 4 + (2 + ROT) % 4], acc[i][ni * 4 + (3 + ROT) % 4]));
    }
};

// Where a block's tile lies, in tiles (row tm, column tn): the grid's own place for one block a tile.
struct GridPlace {
    __device__ __forceinline__ unsigned tm() const { return blockIdx.y; }
    __device__ __forceinline__ unsigned tn() const { return blockIdx.x; }
};

// A place given by the rung (a block that works out its tile from its index).
struct TilePlace {
    unsigned row, col;
    __device__ __forceinline__ unsigned tm() const { return row; }
    __device__ __forceinline__ unsigned tn() const { return col; }
};

// The kernel body of a spread-tile rung in its three paths, chosen uniformly over the grid (N,
// alignment) or the block (its tile's place), so no warp diverges: whole tiles (the tile inside M
// and N, K % 8 == 0, N % 4 == 0, B and C 16-byte aligned: spread128x256x8's body as it is), edge
// tiles with float4 B, and edge tiles with scalar B. Body (a Tile) ::run<EDGE, VEC_B>(smem, M, ...,
// C, at) is the rung's tile at `at` (ragged128x256x8's header explains the paths).
template <class Body, class Place = GridPlace>
__device__ __forceinline__ void three_paths(float* smem, int M, int N, int K, float alpha, const float* __restrict__ A,
                                            const float* __restrict__ B, float beta, float* __restrict__ C, Place at = {})
{
    const bool vec = N % 4 == 0 && ((reinterpret_cast<uintptr_t>(B) | reinterpret_cast<uintptr_t>(C)) & 15) == 0;
    const bool whole = vec && K % Body::BK == 0 && (int)(at.tm() + 1) * Body::BM <= M && (int)(at.tn() + 1) * Body::BN <= N;
    if (whole)
        Body::template run<false, true>(smem, M, N, K, alpha, A, B, beta, C, at);
    else if (vec)
        Body::template run<true, true>(smem, M, N, K, alpha, A, B, beta, C, at);
    else
        Body::template run<true, false>(smem, M, N, K, alpha, A, B, beta, C, at);
}

// The tile at `at`, all of K, stored straight to C: ragged128x256x8's body.
template <int BM_, int BN_>
struct WholeK : Tile<BM_, BN_> {
    using T = Tile<BM_, BN_>;

    template <bool EDGE, bool VEC_B, class Place>
    static __device__ __forceinline__ void run(float* smem, int M, int N, int K, float alpha, const float* __restrict__ A,
                                               const float* __restrict__ B, float beta, float* __restrict__ C, const Place& at)
    {
        constexpr int BM = T::BM, BN = T::BN, BK = T::BK;
        const int bm = at.tm() * BM, bn = at.tn() * BN;
        const Lanes ln = T::lanes();
        float acc[16][8];
        T::template multiply<EDGE, VEC_B>(acc, smem, M, N, K, K, A, B, bm, bn, EDGE ? (K + BK - 1) / BK : K / BK, ln);
        T::template store<EDGE, VEC_B, T::C_AHEAD>(acc, smem, M, N, alpha, beta, C, bm, bn, ln);
    }
};

}  // namespace spread
