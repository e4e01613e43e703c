// ragged_tile.cuh: the block tile of the ragged and split-K rungs (ragged128x128x8, ragged64x64x8,
// splitk128x128x8, splitk64x64x8): cpasync's 4-stage cp.async pipeline and 64x32 warp tiles, for ANY M, N, K.
//
// Edges, all decided per launch or per element, never by a contract:
//   * M: rows of A past M are not copied (zero-filled in the first k tile); they only feed rows
//     of C never stored, whatever shared memory holds for them.
//   * N: columns of B past N read column N-1 (N-4..N-1 in the float4 path); they only feed
//     columns of C never stored.
//   * K: K's remainder comes first. k tile t covers [t*8 - kShift, t*8 - kShift + 8) with
//     kShift = 8 * cdiv(K, 8) - K, so only tile 0 reaches outside [0, K): its k below 0 are
//     zero-filled in both A and B by cp.async's src-size operand (0 bytes read from the matrix
//     base, zeros written), products 0 * 0 whatever A and B hold elsewhere. Every other tile is
//     whole, and the main loop copies without predicates.
//   * B is copied as 16-byte cp.async.cg when N % 4 == 0 and B is 16-byte aligned (every row
//     is then whole float4s, wholly inside or outside the matrix), else as four 4-byte copies.
//     C is stored as float4 under the same test on N and C, else element by element. Both tests
//     are uniform over the grid, so each is one branch, not divergence.
//   * beta == 0: C is not read.
// Split-K (gridDim.z = S > 1): split z multiplies k tiles [z*chunk, min((z+1)*chunk, tiles)).
// Each split writes its partial tile to a workspace, fences, and counts itself in on the tile's
// counter; the split that arrives last (whichever it is) sums the S partials in the fixed order
// z = 0..S-1 (deterministic: the sum does not depend on arrival order), writes
// C = alpha * sum + beta * C and resets the counter to 0 for the next launch. No block waits for
// another, so there is no deadlock whatever the scheduling. Launches of one split kernel must
// not overlap in time (one workspace per module): the bench and the tests launch one at a time.
// When S * tiles * BM * BN floats exceed the workspace, or the tiles the counters, split 0
// multiplies the whole K and stores C itself and the other splits return at once.
// gemm (not the other users of multiply and store) prefetches the block's tile of C to L2 as it
// starts when beta != 0 (c_prefetch.cuh).

#pragma once

#include <cstdint>

#include "c_prefetch.cuh"

namespace ragged {

constexpr int BK = 8;
#ifndef RAGGED_STAGES
#define RAGGED_STAGES 4  // cp.async stages (kernels/experiments/splitk64x64x8s6.cu: 6)
#endif
constexpr int STAGES = RAGGED_STAGES;

__device__ __forceinline__ void cp_async_4(float* dst, const float* src, bool full)
{
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" :: "r"(d), "l"(src), "r"(full ? 4 : 0) : "memory");
}

// A 4-byte copy issued only where row < rows (nothing written to shared memory otherwise). The
// test is made inside the asm, at each copy: held in predicate registers across a main loop,
// such tests ran out of them and were spilled to local memory.
__device__ __forceinline__ void cp_async_4_below(float* dst, const float* src, int row, int rows)
{
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("{\n .reg .pred p;\n setp.lt.s32 p, %2, %3;\n @p cp.async.ca.shared.global [%0], [%1], 4;\n}\n"
                 :: "r"(d), "l"(src), "r"(row), "r"(rows) : "memory");
}

// cp.async of BYTES (4 or 16) from src where lo <= x and row < rows, else BYTES of zeros (0
// bytes read, from base). The tests are made inside the asm, at each copy, for the same reason
// as cp_async_4_below: a persistent kernel held them in predicate registers across its main
// loop (they do not change from one work unit to the next) and spilled them.
template <int BYTES>
__device__ __forceinline__ void cp_async_zfill(float* dst, const float* src, const float* base, int x, int lo, int row, int rows)
{
    static_assert(BYTES == 4 || BYTES == 16, "cp.async size");
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
#define GEMMPROF_CP_ZFILL(LEVEL)                                                                    \
    asm volatile("{\n .reg .pred p;\n .reg .b64 s;\n .reg .b32 n;\n"                                 \
                 " setp.ge.s32 p, %3, %4;\n setp.lt.and.s32 p, %5, %6, p;\n"                         \
                 " selp.b64 s, %1, %2, p;\n selp.b32 n, %7, 0, p;\n"                                  \
                 " cp.async." LEVEL ".shared.global [%0], [s], %7, n;\n}\n"                            \
                 :: "r"(d), "l"(src), "l"(base), "r"(x), "r"(lo), "r"(row), "r"(rows), "n"(BYTES) : "memory")
    if constexpr (BYTES == 16)
        GEMMPROF_CP_ZFILL("cg");
    else
        GEMMPROF_CP_ZFILL("ca");
#undef GEMMPROF_CP_ZFILL
}

__device__ __forceinline__ void cp_async_16(float* dst, const float* src, bool full)
{
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(d), "l"(src), "r"(full ? 16 : 0) : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory"); }

__device__ __forceinline__ bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

// The workspace of a split-K kernel (defined in its .cu; null for the others).
struct Workspace {
    float* partials;       // capacity floats
    unsigned* counters;    // max_tiles counters, zero between launches
    long long capacity;
    int max_tiles;
};

// One BM x BN tile of C per block; warps of 64x32, (BM/64) x (BN/32) of them; per thread 8x8
// results in two 4x4 sub-tiles each way (cpasync's lane layout).
template <int BM, int BN>
struct Tile {
    static constexpr int WARPS = (BM / 64) * (BN / 32);
    static constexpr int NT = 32 * WARPS;          // threads per block
    static constexpr int AS_LD = BM + 4;           // padded row of the transposed A tile
    static constexpr int A_PER = BM * BK / NT;     // scalars of A each thread copies per k tile
    static constexpr int B_PER = BK * BN / 4 / NT; // float4s of B each thread copies per k tile
    static constexpr int B_SCALARS = BK * BN / NT; // or scalars, when rows of B are not float4s
    static_assert(BM % 64 == 0 && BN % 32 == 0 && A_PER >= 1 && B_PER >= 1, "tile shape");
    static_assert(BM * BK % NT == 0 && BK * BN / 4 % NT == 0 && NT % BN == 0, "copies divide evenly");
};

// acc (8x8 per thread) = A[bm.., k tiles t0..t1) * B[k tiles, bn..]; zero when t0 >= t1.
// The block's shared memory: As[stage][k][m] (A transposed), Bs[stage][k][n].
template <int BM, int BN>
struct Smem {
    __align__(16) float As[STAGES][BK][Tile<BM, BN>::AS_LD];
    __align__(16) float Bs[STAGES][BK][BN];
};

// VEC_B: B rows copied as 16-byte cp.async (N % 4 == 0, B 16-byte aligned), else 4-byte copies.
// A template parameter, not a runtime test inside the loop: each main loop stays lean.
template <int BM, int BN, bool VEC_B>
__device__ __forceinline__ void multiply(float (&acc)[8][8], Smem<BM, BN>& sm, int M, int N, int K, const float* __restrict__ A,
                                         const float* __restrict__ B, int bm, int bn, int t0, int t1)
{
    using T = Tile<BM, BN>;
    auto& As = sm.As;
    auto& Bs = sm.Bs;

    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int wRow = (warp / (BN / 32)) * 64;
    const int wCol = (warp % (BN / 32)) * 32;
    const int tr = lane / 4, tc = lane % 4;

    // Copy mapping: A scalars (aRow + (NT/8)*l, aK); B float4s at rows bRow0 + B_ROWS*l, columns
    // bCol .. bCol + 3, or, when rows of B are not whole float4s, scalars at column bCol
    // (consecutive threads, consecutive columns: coalesced). Columns past N clamp to N - 4 (N - 1).
    const int aRow = tid / BK, aK = tid % BK;
    const int aRowsLeft = M - (bm + aRow);  // rows aRow + (NT/8)*l exist while (NT/8)*l < this
    const float* aSrc = A + (size_t)(bm + aRow) * K + aK;

    // K's remainder goes first: tile t covers k in [t*BK - kShift, t*BK - kShift + BK), so tile 0
    // is the only one that reaches outside [0, K) (below 0, zero-filled) and it is loaded, if at
    // all, by the prologue. The main loop's copies then need no k predicate, and their addresses
    // come from two pointers moved a tile at a time, one add per copy. With the remainder last,
    // every copy was predicated and worked out (k0 + row) * N afresh: splitk64x64x8's main loop
    // issued 783 instructions for its 512 FFMAs at N % 4 != 0 (656 with float4 B), now 637 (618).
    // Rows of A past M are not copied in whole tiles: they only feed rows of C never stored,
    // whatever shared memory holds.
    const int kShift = (K + BK - 1) / BK * BK - K;
    const int bCol = VEC_B ? (tid % (BN / 4)) * 4 : tid % BN;
    const int bRow0 = VEC_B ? tid / (BN / 4) : tid / BN;
    constexpr int B_COPIES = VEC_B ? T::B_PER : T::B_SCALARS;
    constexpr int B_ROWS = VEC_B ? T::NT / (BN / 4) : T::NT / BN;  // rows between a thread's copies
    static_assert(T::NT % (BN / 4) == 0, "a thread's B copies share one column");
    const float* bSrc = B + (size_t)bRow0 * N + min(bn + bCol, N - (VEC_B ? 4 : 1));
    // The next tile's first copies, moved on a tile at a time (tile t0's start is below A and B
    // only when t0 = 0 and kShift != 0: that tile is loadFirst's, which does not read them).
    const float* aNext = aSrc + (t0 * BK - kShift);
    const float* bNext = bSrc + (long long)(t0 * BK - kShift) * N;
    const size_t aStep = (size_t)(T::NT / BK) * K, bStep = (size_t)B_ROWS * N;

    // The next whole tile, inside [0, K).
    auto loadWhole = [&](int s) {
        const float* a = aNext;
#pragma unroll
        for (int l = 0; l < T::A_PER; ++l, a += aStep)
            cp_async_4_below(&As[s][aK][aRow + (T::NT / BK) * l], a, (T::NT / BK) * l, aRowsLeft);
        const float* b = bNext;
#pragma unroll
        for (int l = 0; l < B_COPIES; ++l, b += bStep) {
            if (VEC_B)
                cp_async_16(&Bs[s][bRow0 + B_ROWS * l][bCol], b, true);
            else
                cp_async_4(&Bs[s][bRow0 + B_ROWS * l][bCol], b, true);
        }
        aNext += BK;
        bNext += (size_t)BK * N;
    };

    // Tile 0 when K % BK != 0: k below 0 zero-filled in A and B, and rows of A past M with them.
    auto loadFirst = [&](int s) {
        const float* a = aNext;
#pragma unroll
        for (int l = 0; l < T::A_PER; ++l, a += aStep)
            cp_async_zfill<4>(&As[s][aK][aRow + (T::NT / BK) * l], a, A, aK, kShift, (T::NT / BK) * l, aRowsLeft);
        const float* b = bNext;
#pragma unroll
        for (int l = 0; l < B_COPIES; ++l, b += bStep)
            cp_async_zfill<VEC_B ? 16 : 4>(&Bs[s][bRow0 + B_ROWS * l][bCol], b, B, bRow0 + B_ROWS * l, kShift, 0, 1);
        aNext += BK;
        bNext += (size_t)BK * N;
    };

    float4 fa[2][2], fb[2][2];
    auto loadFrag = [&](int set, int s, int d) {
        fa[set][0] = *reinterpret_cast<const float4*>(&As[s][d][wRow + tr * 4]);
        fa[set][1] = *reinterpret_cast<const float4*>(&As[s][d][wRow + 32 + tr * 4]);
        fb[set][0] = *reinterpret_cast<const float4*>(&Bs[s][d][wCol + tc * 4]);
        fb[set][1] = *reinterpret_cast<const float4*>(&Bs[s][d][wCol + 16 + tc * 4]);
    };
    auto fma = [&](int set) {
        const float a[8] = {fa[set][0].x, fa[set][0].y, fa[set][0].z, fa[set][0].w,
                            fa[set][1].x, fa[set][1].y, fa[set][1].z, fa[set][1].w};
        const float b[8] = {fb[set][0].x, fb[set][0].y, fb[set][0].z, fb[set][0].w,
                            fb[set][1].x, fb[set][1].y, fb[set][1].z, fb[set][1].w};
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int jj = 0; jj < 8; ++jj) {
                const int j = (i & 1) ? 7 - jj : jj;
                acc[i][j] += a[i] * b[j];
            }
    };

#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

    const int nTiles = t1 > t0 ? t1 - t0 : 0;
    // Prologue: local tiles 0 .. STAGES-2, one commit group each (empty past the last tile, so
    // group g always holds local tile g).
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < nTiles) {
            if (s == 0 && t0 == 0 && kShift != 0)
                loadFirst(s);
            else
                loadWhole(s);
        }
        cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();  // local tile 0 has landed (for this thread)
    __syncthreads();
    loadFrag(0, 0, 0);

    int rs = 0, ws = STAGES - 1;
    for (int t = 0; t < nTiles; ++t) {
        const bool more = t + 1 < nTiles;  // uniform
        const int rsNext = rs + 1 == STAGES ? 0 : rs + 1;
#pragma unroll
        for (int d = 0; d < BK; ++d) {
            if (d == BK - 1 && more) {
                cp_async_wait<STAGES - 2>();  // local tile t+1 has landed (for this thread)
                __syncthreads();              // ... and for every thread
            }
            if (d < BK - 1)
                loadFrag((d + 1) & 1, rs, d + 1);
            else if (more)
                loadFrag(0, rsNext, 0);
            if (d == 0) {
                // Stage ws held local tile t-1, last read before the barrier of iteration t-1.
                if (t + STAGES - 1 < nTiles) loadWhole(ws);
                cp_async_commit();
            }
            fma(d & 1);
        }
        rs = rsNext;
        ws = ws + 1 == STAGES ? 0 : ws + 1;
    }
    cp_async_wait<0>();  // leave nothing in flight (only empty groups can be pending)
}

// The epilogue reads all the C it needs before it writes any (store's AHEAD). Interleaved, each
// read waits for the writes before it (the compiler cannot prove that a write to one row of C
// misses a later read of another): one memory latency per float4 or scalar. At 1023^3
// splitk64x64x8 spent a third of its stall samples at those reads (shapes-profile-2).

// v += beta * C[cp .. cp + 3] for the columns col .. col + 3 below N: one float4 when `vec`
// (N % 4 == 0 and C 16-byte aligned, so the four are wholly in or out), else each element alone.
__device__ __forceinline__ void add_c4(float (&v)[4], const float* cp, bool vec, int col, int N, float beta)
{
    if (vec) {
        if (col >= N) return;
        const float4 c = *reinterpret_cast<const float4*>(cp);
        v[0] += beta * c.x;
        v[1] += beta * c.y;
        v[2] += beta * c.z;
        v[3] += beta * c.w;
        return;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j)
        if (col + j < N) v[j] += beta * cp[j];
}

// C[cp .. cp + 3] = v for the columns below N (as add_c4).
__device__ __forceinline__ void put4(float* cp, bool vec, int col, int N, const float (&v)[4])
{
    if (vec) {
        if (col < N) *reinterpret_cast<float4*>(cp) = make_float4(v[0], v[1], v[2], v[3]);
        return;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j)
        if (col + j < N) cp[j] = v[j];
}

// C[cp .. cp + 3] (columns col .. col + 3) = alpha * v (+ beta * C) where the column is below N:
// one float4 when `vec` (N % 4 == 0 and C 16-byte aligned, so the four are wholly in or out),
// else each element alone.
__device__ __forceinline__ void store4(float* cp, bool vec, int col, int N, float alpha, float beta, float v0, float v1,
                                       float v2, float v3)
{
    if (vec) {
        if (col >= N) return;
        float4 v = make_float4(alpha * v0, alpha * v1, alpha * v2, alpha * v3);
        if (beta != 0.0f) {
            const float4 c = *reinterpret_cast<const float4*>(cp);
            v.x += beta * c.x;
            v.y += beta * c.y;
            v.z += beta * c.z;
            v.w += beta * c.w;
        }
        *reinterpret_cast<float4*>(cp) = v;
        return;
    }
    const float vs[4] = {v0, v1, v2, v3};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        if (col + j >= N) continue;
        const float v = alpha * vs[j];
        cp[j] = beta != 0.0f ? v + beta * cp[j] : v;
    }
}

// C[rows, cols of this thread] = alpha * acc + beta * C, rows < M and columns < N only. AHEAD:
// every read of C before the first write (add_c4, put4); else store4, each float4 read, then
// written: streamk64x64x8's epilogue, which any other order spilled at its 128 registers.
template <int BM, int BN, bool AHEAD = true>
__device__ __forceinline__ void store(const float (&acc)[8][8], int M, int N, float alpha, float beta, float* C, int bm, int bn)
{
    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int wRow = (warp / (BN / 32)) * 64;
    const int wCol = (warp % (BN / 32)) * 32;
    const int tr = lane / 4, tc = lane % 4;
    const bool vecC = N % 4 == 0 && aligned16(C);  // uniform: float4 groups wholly in or out
    if (!AHEAD) {
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            const int row = bm + wRow + (i / 4) * 32 + tr * 4 + (i % 4);
            if (row >= M) continue;
#pragma unroll
            for (int ni = 0; ni < 2; ++ni) {
                const int col = bn + wCol + ni * 16 + tc * 4;
                store4(C + (size_t)row * N + col, vecC, col, N, alpha, beta, acc[i][ni * 4 + 0], acc[i][ni * 4 + 1],
                       acc[i][ni * 4 + 2], acc[i][ni * 4 + 3]);
            }
        }
        return;
    }
    auto row = [&](int i) { return bm + wRow + (i / 4) * 32 + tr * 4 + (i % 4); };
    auto col = [&](int ni) { return bn + wCol + ni * 16 + tc * 4; };
    auto at = [&](int i, int ni) { return C + (size_t)row(i) * N + col(ni); };
    float v[8][2][4];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int ni = 0; ni < 2; ++ni)
#pragma unroll
            for (int j = 0; j < 4; ++j) v[i][ni][j] = alpha * acc[i][ni * 4 + j];
    if (beta != 0.0f) {
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int ni = 0; ni < 2; ++ni)
                if (row(i) < M) add_c4(v[i][ni], at(i, ni), vecC, col(ni), N, beta);
    }
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int ni = 0; ni < 2; ++ni)
            if (row(i) < M) put4(at(i, ni), vecC, col(ni), N, v[i][ni]);
}

// The whole GEMM for one block: its tile of C, its split of K (gridDim.z splits; 1 = no split).
template <int BM, int BN>
__device__ __forceinline__ void gemm(int M, int N, int K, float alpha, const float* __restrict__ A,
                                     const float* __restrict__ B, float beta, float* __restrict__ C, Workspace ws)
{
    using T = Tile<BM, BN>;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int kTiles = (K + BK - 1) / BK;
    const int splits = gridDim.z;
    const int tiles = gridDim.x * gridDim.y;
    const bool fits = splits > 1 && ws.partials != nullptr
                      && (long long)splits * tiles * (BM * BN) <= ws.capacity && tiles <= ws.max_tiles;
    __shared__ Smem<BM, BN> sm;
    const bool vecB = N % 4 == 0 && aligned16(B);  // uniform
    float acc[8][8];
    int t0 = 0, t1 = kTiles;
    if (!fits) {  // one split takes the whole K and stores C; any others have nothing to do
        if (blockIdx.z != 0) return;
    } else {
        const int chunk = (kTiles + splits - 1) / splits;
        t0 = min(kTiles, (int)blockIdx.z * chunk);
        t1 = min(kTiles, t0 + chunk);
    }
    if (blockIdx.z == 0) prefetch_c<BM, BN, T::NT>(C, M, N, beta, bm, bn);  // one block per tile
    if (vecB)
        multiply<BM, BN, true>(acc, sm, M, N, K, A, B, bm, bn, t0, t1);
    else
        multiply<BM, BN, false>(acc, sm, M, N, K, A, B, bm, bn, t0, t1);
    if (!fits) {
        store<BM, BN>(acc, M, N, alpha, beta, C, bm, bn);
        return;
    }

    // This split's partial, as 16 float4s per thread at [q * NT + tid] (coalesced per q).
    const int tile = blockIdx.y * gridDim.x + blockIdx.x;
    const int tid = threadIdx.x;
    float4* mine = reinterpret_cast<float4*>(ws.partials + ((size_t)blockIdx.z * tiles + tile) * (BM * BN));
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h)
            __stcg(&mine[(i * 2 + h) * T::NT + tid],
                   make_float4(acc[i][h * 4], acc[i][h * 4 + 1], acc[i][h * 4 + 2], acc[i][h * 4 + 3]));
    __threadfence();  // the partial is visible device-wide before this split is counted
    __syncthreads();
    __shared__ int last;
    if (tid == 0) last = atomicAdd(&ws.counters[tile], 1u) == (unsigned)(splits - 1);
    __syncthreads();
    if (!last) return;
    __threadfence();  // every other split's partial is read after its count was seen

#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
    for (int z = 0; z < splits; ++z) {  // fixed order: the sum does not depend on who came last
        const float4* part = reinterpret_cast<const float4*>(ws.partials + ((size_t)z * tiles + tile) * (BM * BN));
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const float4 p = __ldcg(&part[(i * 2 + h) * T::NT + tid]);
                acc[i][h * 4] += p.x;
                acc[i][h * 4 + 1] += p.y;
                acc[i][h * 4 + 2] += p.z;
                acc[i][h * 4 + 3] += p.w;
            }
    }
    store<BM, BN>(acc, M, N, alpha, beta, C, bm, bn);
    if (tid == 0) ws.counters[tile] = 0;  // every split of this tile has arrived: ready for the next launch
}

}  // namespace ragged
