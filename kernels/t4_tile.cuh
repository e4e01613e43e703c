// t4_tile.cuh: the block tile of the t4 rungs (splitk64x64x8t4, splitk32x32x8t4, splitk32x64x8t8
// and their experiments): a BM x BN tile of C computed by BM * BN / (4 * TM) threads at TM x 4
// results each (TM = 4 unless a rung asks for 8), with split-K over gridDim.z summed in a
// fixed-order tree, for ANY M, N, K.
//
// Why: ragged_tile.cuh gives each thread 8x8 results, so a 64x64 tile has two warps; at small
// shapes (256^3 .. 1024^3, K-large with small M*N) an SM holds a handful of warps, each walking
// every k step of its range one after another: latency-bound. Here each thread computes 4x4
// results, so the same tile has four times the threads (a 64x64 tile: eight warps), each with a
// quarter of the FFMAs per k step, and an SM holds up to 32 warps of 64 registers.
//
// Lanes: warp w covers rows (w / (BN/32)) * 4TM .. +4TM-1 and columns (w % (BN/32)) * 32 .. +31 of
// the tile; lane l takes rows (l / 8) * TM .. +TM-1 and columns (l % 8) * 4 .. +3 of that. Per k
// step a warp reads TM distinct float4 of A (16 TM contiguous bytes, in TM / 4 loads) and 8 of B
// (128 contiguous bytes): one shared-memory wavefront each, no bank conflicts. Fragments are
// double-buffered in registers. TM = 8 (cuBLAS's 32 results a thread at small products) loads 3
// float4 from shared memory per 32 FFMAs where TM = 4 loads 2 per 16, at twice the registers.
//
// Loads: ragged_tile.cuh's 4-stage cp.async pipeline of 8-deep k tiles and its edge handling
// (A as scalars, transposed in shared memory, rows past M and k past K zero-filled by cp.async's
// src-size; B as 16-byte copies when N % 4 == 0 and B is 16-byte aligned, else scalars; columns
// past N clamped, so they only feed columns of C never stored). C is stored as float4 under the
// same test on N and C, else element by element. beta == 0: C is not read.
//
// Split-K (gridDim.z = S > 1): split z multiplies k tiles [z * kTiles / S, (z + 1) * kTiles / S)
// (balanced: no split is empty unless S > kTiles); the splits' partials are summed in fixed order
// in groups of G (kernels/fold.cuh), so the block that stores C reads NG + G - 1 partials at most
// instead of S. When S * tiles * BM * BN floats exceed the workspace, or the tree's counters the
// workspace's, split 0 multiplies the whole K and stores C itself and the other splits return at
// once. Launches of one split kernel must not overlap in time (one workspace per module).

#pragma once

#include "fold.cuh"
#include "ragged_tile.cuh"

namespace t4 {

using ragged::BK;
using ragged::STAGES;

template <int BM, int BN, int TM = 4>
struct Tile {
    static constexpr int WN = BN / 32;                   // warps along N, each 4TM x 32
    static constexpr int NT = 32 * (BM / (4 * TM)) * WN;  // threads per block: BM * BN / (4 * TM)
    static constexpr int AS_LD = BM + 4;            // padded row of the transposed A tile
    static constexpr int A_PER = BM * BK / NT;      // scalars of A each thread copies per k tile
    static constexpr int B_VECS = BK * BN / 4;      // float4s of B per k tile
    static constexpr int B_VEC_PER = (B_VECS + NT - 1) / NT;  // per thread (the last round may be partial)
    static constexpr int B_SCALARS = BK * BN / NT;  // scalars per thread, when rows of B are not float4s
    static_assert((TM == 4 || TM == 8) && BM % (4 * TM) == 0 && BN % 32 == 0, "tile shape");
    static_assert(BM * BK % NT == 0 && A_PER >= 1 && NT % BK == 0, "A copies divide evenly");
    static_assert(NT % BN == 0 && B_SCALARS >= 1, "scalar B copies divide evenly");
};

template <int BM, int BN>
struct Smem {
    __align__(16) float As[STAGES][BK][Tile<BM, BN>::AS_LD];  // A transposed: [k][m]
    __align__(16) float Bs[STAGES][BK][BN];
};

// This thread's first row and column in the tile (see Lanes above).
template <int BN, int TM = 4>
__device__ __forceinline__ int row0()
{
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    return (warp / (BN / 32)) * (4 * TM) + (lane / 8) * TM;
}

template <int BN>
__device__ __forceinline__ int col0()
{
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    return (warp % (BN / 32)) * 32 + (lane % 8) * 4;
}

// acc (TM x 4 per thread) = A[bm.., k tiles t0..t1) * B[k tiles, bn..]; zero when t0 >= t1.
// VEC_B: B rows copied as 16-byte cp.async (N % 4 == 0, B 16-byte aligned), else 4-byte copies.
template <int BM, int BN, bool VEC_B, int TM = 4>
__device__ __forceinline__ void multiply(float (&acc)[TM][4], Smem<BM, BN>& sm, int M, int N, int K, const float* __restrict__ A,
                                         const float* __restrict__ B, int bm, int bn, int t0, int t1)
{
    using T = Tile<BM, BN, TM>;
    auto& As = sm.As;
    auto& Bs = sm.Bs;
    const int tid = threadIdx.x;
    const int r0 = row0<BN, TM>(), c0 = col0<BN>();

    // A scalars (aRow + (NT/BK)*l, aK): a warp copies 4 rows x 8 k; in shared memory, bank
    // (aK * AS_LD + row) % 32 = aK * 4 + row % 4 (AS_LD % 32 == 4): conflict-free.
    const int aRow = tid / BK, aK = tid % BK;
    const int aRowsLeft = M - (bm + aRow);  // rows aRow + (NT/BK)*l exist while (NT/BK)*l < this
    const float* aSrc = A + (size_t)(bm + aRow) * K + aK;

    auto loadTile = [&](int tile, int s) {
        const int k0 = tile * BK;
        const bool kOk = k0 + aK < K;
#pragma unroll
        for (int l = 0; l < T::A_PER; ++l) {
            const bool aOk = kOk && (T::NT / BK) * l < aRowsLeft;
            ragged::cp_async_4(&As[s][aK][aRow + (T::NT / BK) * l], aOk ? aSrc + (size_t)((T::NT / BK) * l) * K + k0 : A, aOk);
        }
        if (VEC_B) {
#pragma unroll
            for (int l = 0; l < T::B_VEC_PER; ++l) {
                const int f = tid + T::NT * l;
                if (T::B_VECS % T::NT == 0 || f < T::B_VECS) {  // warp-uniform: NT and B_VECS are multiples of 32
                    const int bRow = f / (BN / 4), bCol = (f % (BN / 4)) * 4;
                    const bool bOk = k0 + bRow < K;
                    const float* src = B + (size_t)(k0 + bRow) * N + min(bn + bCol, N - 4);
                    ragged::cp_async_16(&Bs[s][bRow][bCol], bOk ? src : B, bOk);
                }
            }
        } else {
            // One column per thread (coalesced), rows bRow0 + (NT / BN) * l; the column clamped to N - 1.
            const int bCol = tid % BN, bRow0 = tid / BN;
            const float* src = B + (size_t)(k0 + bRow0) * N + min(bn + bCol, N - 1);
#pragma unroll
            for (int l = 0; l < T::B_SCALARS; ++l) {
                const int bRow = bRow0 + (T::NT / BN) * l;
                const bool bOk = k0 + bRow < K;
                ragged::cp_async_4(&Bs[s][bRow][bCol], bOk ? src + (size_t)((T::NT / BN) * l) * N : B, bOk);
            }
        }
    };

    float4 fa[2][TM / 4], fb[2];
    auto loadFrag = [&](int set, int s, int d) {
#pragma unroll
        for (int q = 0; q < TM / 4; ++q) fa[set][q] = *reinterpret_cast<const float4*>(&As[s][d][r0 + 4 * q]);
        fb[set] = *reinterpret_cast<const float4*>(&Bs[s][d][c0]);
    };
    auto fma = [&](int set) {
        float a[TM];
#pragma unroll
        for (int q = 0; q < TM / 4; ++q) {
            a[4 * q] = fa[set][q].x;
            a[4 * q + 1] = fa[set][q].y;
            a[4 * q + 2] = fa[set][q].z;
            a[4 * q + 3] = fa[set][q].w;
        }
        const float b[4] = {fb[set].x, fb[set].y, fb[set].z, fb[set].w};
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
    };

    fold::zero(acc);
    const int nTiles = t1 > t0 ? t1 - t0 : 0;
    // Prologue: local tiles 0 .. STAGES-2, one commit group each (empty past the last tile, so
    // group g always holds local tile g).
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < nTiles) loadTile(t0 + s, s);
        ragged::cp_async_commit();
    }
    ragged::cp_async_wait<STAGES - 2>();  // local tile 0 has landed (for this thread)
    __syncthreads();
    loadFrag(0, 0, 0);

    int rs = 0, ws = STAGES - 1;
    for (int t = 0; t < nTiles; ++t) {
        const bool more = t + 1 < nTiles;  // uniform
        const int rsNext = rs + 1 == STAGES ? 0 : rs + 1;
#pragma unroll
        for (int d = 0; d < BK; ++d) {
            if (d == BK - 1 && more) {
                ragged::cp_async_wait<STAGES - 2>();  // local tile t+1 has landed (for this thread)
                __syncthreads();                      // ... and for every thread
            }
            if (d < BK - 1)
                loadFrag((d + 1) & 1, rs, d + 1);
            else if (more)
                loadFrag(0, rsNext, 0);
            if (d == 0) {
                // Stage ws held local tile t-1, last read before the barrier of iteration t-1.
                if (t + STAGES - 1 < nTiles) loadTile(t0 + t + STAGES - 1, ws);
                ragged::cp_async_commit();
            }
            fma(d & 1);
        }
        rs = rsNext;
        ws = ws + 1 == STAGES ? 0 : ws + 1;
    }
    ragged::cp_async_wait<0>();  // leave nothing in flight (only empty groups can be pending)
}

// C[this thread's rows and columns] = alpha * acc + beta * C, rows < M and columns < N only;
// every read of C before the first write (ragged_tile.cuh's epilogue says why).
template <int BM, int BN, int TM = 4>
__device__ __forceinline__ void store(const float (&acc)[TM][4], int M, int N, float alpha, float beta, float* C, int bm, int bn)
{
    const int col = bn + col0<BN>();
    const bool vecC = N % 4 == 0 && ragged::aligned16(C);  // uniform: float4 groups wholly in or out
    float v[TM][4];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) v[i][j] = alpha * acc[i][j];
    if (beta != 0.0f) {
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const int row = bm + row0<BN, TM>() + i;
            if (row < M) ragged::add_c4(v[i], C + (size_t)row * N + col, vecC, col, N, beta);
        }
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = bm + row0<BN, TM>() + i;
        if (row < M) ragged::put4(C + (size_t)row * N + col, vecC, col, N, v[i]);
    }
}

// The whole GEMM for one block: its tile of C, its split of K (gridDim.z splits; 1 = no split),
// the splits of a tile summed in groups of G.
template <int BM, int BN, int G, int TM = 4>
__device__ __forceinline__ void gemm(int M, int N, int K, float alpha, const float* __restrict__ A,
                                     const float* __restrict__ B, float beta, float* __restrict__ C, ragged::Workspace ws)
{
    using T = Tile<BM, BN, TM>;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int kTiles = (K + BK - 1) / BK;
    const int splits = gridDim.z;
    const int tiles = gridDim.x * gridDim.y;
    // Counters for every group and tile (fold.cuh's layout, one more than fold::counters when there
    // is one group): written out here because the call spilled splitk32x32x8t4 at 64 registers.
    const int groups = (splits + G - 1) / G;
    const bool fits = splits > 1 && ws.partials != nullptr && (long long)splits * tiles * (BM * BN) <= ws.capacity
                      && (long long)tiles * (groups + 1) <= ws.max_tiles;
    __shared__ Smem<BM, BN> sm;
    __shared__ int last;
    const bool vecB = N % 4 == 0 && ragged::aligned16(B);  // uniform
    float acc[TM][4];
    int t0 = 0, t1 = kTiles;
    if (!fits) {  // one split takes the whole K and stores C; any others have nothing to do
        if (blockIdx.z != 0) return;
    } else {
        t0 = (int)((long long)blockIdx.z * kTiles / splits);
        t1 = (int)((long long)(blockIdx.z + 1) * kTiles / splits);
    }
    if (vecB)
        multiply<BM, BN, true, TM>(acc, sm, M, N, K, A, B, bm, bn, t0, t1);
    else
        multiply<BM, BN, false, TM>(acc, sm, M, N, K, A, B, bm, bn, t0, t1);
    if (!fits) {
        store<BM, BN, TM>(acc, M, N, alpha, beta, C, bm, bn);
        return;
    }

    const int tile = blockIdx.y * gridDim.x + blockIdx.x;
    if (!fold::tree<T::NT>(acc, ws, tile, tiles, blockIdx.z, splits, G, last)) return;
    store<BM, BN, TM>(acc, M, N, alpha, beta, C, bm, bn);
}

}  // namespace t4
