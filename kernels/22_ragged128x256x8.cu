// ragged128x256x8: spread128x256x8's main loop for any M, N and K: whole tiles run it unchanged,
// edge tiles run a copy of it whose cp.async copies are predicated by zero-fill.
//
// Predecessor: spread128x256x8, whose contract (M % 128, N % 256, K % 8) sends 4095^3, 2500^3,
// 1000^3 and every odd shape to the 128x128 rungs (76-80% of cuBLAS there on the H100, where
// spread128x256x8 reaches ~101% on whole tiles). Idea: one block-uniform branch chooses among
// three instantiations of the same tile body, so the whole-tile path keeps spread128x256x8's
// branch-free k tile and pays for no predicate:
//   - whole: the block's tile lies inside M and N, K % 8 == 0, N % 4 == 0, B and C 16-byte
//     aligned: spread128x256x8's body as it is (unchecked float4 epilogue);
//   - edge, float4 B (N % 4 == 0, B and C 16-byte aligned): each copy's src-size is 0 where its
//     row is past M, its k past K or its float4 past N (a float4 of a row of B is then wholly
//     inside or outside); those smem words are zeros, so they add 0 * x to results never stored
//     (rows, columns) or 0 * 0 (k); C stored as float4s checked against M and N;
//   - edge, scalar B (N % 4 != 0 or B or C not 16-byte aligned): B copied as four 4-byte
//     cp.async per float4 slot, each with its own predicate; C stored element by element.
// Predicates are per launch (N, alignment), per block (rows of A) and per k tile (k < K): no
// divergence inside a warp's loads beyond the zero-fill operand. A pointer that would point
// past a matrix is replaced by the matrix's base (nothing is read through it: src-size 0).
//
// Contract: none (any M, N, K >= 1; A, B, C 4-byte aligned). beta == 0: C is not read.
// Launch: block (256), grid (cdiv(N, 256), cdiv(M, 128)), 49,664 bytes of dynamic shared memory;
// one block per SM; sm_80+. The tile, lane layout, pipeline and epilogue are spread128x256x8's
// (and cutlass128x256x8's): their headers explain them.

#include <cstdint>

#include "cp_async.cuh"
#include "staged_epilogue.cuh"

#define BM 128
#define BN 256
#define BK 8
#define STAGES 4
#define NTHREADS 256
#define AS_LD (BM + 4)
#define A_STAGE (BK * AS_LD)
#define B_STAGE (BK * BN)
#define STAGE (A_STAGE + B_STAGE)
#define SMEM_BYTES (STAGES * STAGE * 4)
static_assert(SMEM_BYTES == 49664, "update smem_bytes in kernels/ladder.toml");
#define ROT 1

// EDGE: copies predicated (zero-filled past M, N, K); VEC_B: B copied as float4s (else scalars),
// and C stored as float4s (else element by element).
template <bool EDGE, bool VEC_B>
__device__ __forceinline__ void tile128x256(float* smem, int M, int N, int K, float alpha, const float* __restrict__ A,
                                            const float* __restrict__ B, float beta, float* __restrict__ C)
{
    const int tid = threadIdx.x;
    const int warp = tid >> 5, lane = tid & 31;
    const int bm = blockIdx.y * BM;
    const int bn = blockIdx.x * BN;

    const int wRow = (warp >> 2) * 64;
    const int wCol = (warp & 3) * 64;
    const int tr = ((lane >> 1) & 1) | ((lane >> 3) & 2);
    const int tc = (lane & 1) | ((lane >> 1) & 6);

    const int aRow = tid >> 3, aK = tid & 7;
    const int bK = tid >> 6, bCol = (tid & 63) * 4;
    const float* gA = A + (size_t)(bm + aRow) * K + aK;
    const float* gB = B + (size_t)bK * N + bn + bCol;
    const size_t aStep = (size_t)32 * K, bStep = (size_t)4 * N;
    const unsigned sbase = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    const unsigned sAw = sbase + 4u * (aK * AS_LD + aRow);
    const unsigned sBw = sbase + 4u * (A_STAGE + bK * BN + bCol);

    // Edge predicates fixed for the block: which of this thread's 4 rows of A lie inside M, how
    // many of its 4 columns of B lie inside N.
    unsigned rowsIn = 0;
#pragma unroll
    for (int l = 0; l < 4; ++l) rowsIn |= (bm + aRow + 32 * l < M ? 1u : 0u) << l;
    const int colsIn = max(0, min(4, N - (bn + bCol)));
    int kA = aK, kB = bK;  // k of this thread's A column and first B row in the tile gA/gB point at

    auto loadTileZ = [&](int s, bool real) {  // the tile gA/gB point at into stage s; zeros if !real
        const unsigned so = 4u * STAGE * s;
        if (!EDGE) {
            const unsigned n4 = real ? 4u : 0u, n16 = real ? 16u : 0u;
#pragma unroll
            for (int l = 0; l < 4; ++l) cp_async_4z(sAw + so + 128u * l, gA + l * aStep, n4);
#pragma unroll
            for (int l = 0; l < 2; ++l) cp_async_16z(sBw + so + 16u * BN * l, gB + l * bStep, n16);
        } else {
#pragma unroll
            for (int l = 0; l < 4; ++l) {
                const bool ok = real && kA < K && (rowsIn >> l & 1u);
                cp_async_4z(sAw + so + 128u * l, ok ? gA + l * aStep : A, ok ? 4u : 0u);
            }
#pragma unroll
            for (int l = 0; l < 2; ++l) {
                const bool kin = real && kB + 4 * l < K;
                if (VEC_B) {
                    const bool ok = kin && colsIn == 4;
                    cp_async_16z(sBw + so + 16u * BN * l, ok ? gB + l * bStep : B, ok ? 16u : 0u);
                } else {
#pragma unroll
                    for (int j = 0; j < 4; ++j) {
                        const bool ok = kin && j < colsIn;
                        cp_async_4z(sBw + so + 16u * BN * l + 4u * j, ok ? gB + l * bStep + j : B, ok ? 4u : 0u);
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

    float acc[16][8];
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

    const int nTiles = EDGE ? (K + BK - 1) / BK : K / BK;
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
    __syncthreads();

    float4* const stage = reinterpret_cast<float4*>(smem) + warp * CS_LD;
    if (VEC_B)
        store_c_through_smem<4, ROT, EDGE>(stage, acc, C, M, N, bm + wRow, bn, wCol, lane, tr, tc, alpha, beta);
    else
        store_c_through_smem<4, ROT, true, true>(stage, acc, C, M, N, bm + wRow, bn, wCol, lane, tr, tc, alpha, beta);
}

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
sgemm_ragged128x256x8(int M, int N, int K, float alpha, const float* __restrict__ A,
                      const float* __restrict__ B, float beta, float* __restrict__ C)
{
    extern __shared__ __align__(16) float smem[];
    // Uniform over the grid (N, alignment) and over the block (its tile's place): no divergence.
    const bool vec = N % 4 == 0 && ((reinterpret_cast<uintptr_t>(B) | reinterpret_cast<uintptr_t>(C)) & 15) == 0;
    const bool whole = vec && K % BK == 0 && (int)(blockIdx.y + 1) * BM <= M && (int)(blockIdx.x + 1) * BN <= N;
    if (whole)
        tile128x256<false, true>(smem, M, N, K, alpha, A, B, beta, C);
    else if (vec)
        tile128x256<true, true>(smem, M, N, K, alpha, A, B, beta, C);
    else
        tile128x256<true, false>(smem, M, N, K, alpha, A, B, beta, C);
}
