// tall32: strict FP32 (FFMA) for tall products with few columns (N <= 64, M in the thousands, K
// long): skinny32's regime turned over. There the product was a stream of B; here it is a stream
// of A, and the GPU's job is to read A once, at full bandwidth, on every SM.
//
// Predecessor: splitk256x64x8rs. Its 256x64 tiles compute 64 columns at N = 16-30 (a half to three
// quarters of the math wasted), and where the rules sent such shapes to 128x256 tiles (5584x30x36785,
// 12217x16x24971) eight times the math ran at 19-24% of cuBLAS on an H200. Idea: a tile exactly
// as wide as N needs (32 or 64 columns, picked from N at run time) and 256 or 128 rows, so that
// every tile is 8192 results: 8 rows x 8 columns a thread of 128, K split to three CTAs per SM.
// A streams into shared memory row-major through cp.async, KC-deep chunks, STAGES - 1 in flight:
// 16-byte copies where its rows are (K % 4 == 0, A 16-byte aligned), else 4-byte copies (any K).
// A thread's rows are RG apart and the row pitch is KC + 4 floats (a pitch of an odd number of
// float4s), so the float4s of 8 rows at one k land in 8 different bank quads: per 4 k, a thread
// reads 8 float4 of A and 8 of B for 256 FFMAs.
// Split partials meet as in skinny32 (split_arrival.cuh): the split counted last sums them in split
// order and stores C, so no CTA waits for another and any grid runs.
//
// Grid (the manifest's): x = cdiv(M, BM) row tiles (BM = 256 where N <= 32, else 128), y =
// cdiv(N, BN) column tiles, z = S splits of whole KC chunks: at least 256 k a split, S x x x y <=
// 3 SMS. A grid whose partials would not fit the workspace runs unsplit (split 0 takes all of K).
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C); fast where N <= 64. Block 128,
// SMEM_BYTES of dynamic shared memory. beta == 0: C is not read. Launches must not overlap in time
// (one workspace per loaded module).

#include <cstdint>

#include "cp_async.cuh"
#include "split_arrival.cuh"

#define NT 128
#define TM 8                                         // rows a thread, RG apart
#define TN 8                                         // columns a thread: two float4
#ifndef KC
#define KC 16                                        // k a chunk (a multiple of 4)
#endif
#ifndef STAGES
#define STAGES 3
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 3                                 // CTAs an SM: the grid's splits fill this many
#endif
#define PA (KC + 4)                                  // A's row pitch: PA / 4 odd
#define SMEM_BYTES (STAGES * (256 * PA + KC * 32) * 4)  // the 256x32 tiles' (the manifest's smem_bytes)
#define WS_FLOATS (1LL << 22)                        // 16 MiB: 512 partial tiles of 8192 floats
#define MAX_TILES 4096                               // arrival counters

static_assert(KC % 4 == 0 && PA / 4 % 2 == 1, "A's float4s of 8 rows at one k in 8 bank quads");

__device__ __align__(16) float g_partials[WS_FLOATS];
__device__ unsigned g_counters[MAX_TILES];           // zero at module load; the last split resets its own

namespace tall32 {

template <int BN>
struct Tile {
    static constexpr int CG = BN / TN;               // column groups
    static constexpr int RG = NT / CG;               // row groups: a thread's rows are rg + RG i
    static constexpr int BM = RG * TM;               // 256 rows at BN = 32, 128 at BN = 64
    static constexpr int A_STAGE = BM * PA, STAGE = A_STAGE + KC * BN;  // floats
    static_assert(STAGES * STAGE * 4 <= SMEM_BYTES, "the manifest's smem_bytes holds the stages");
};

// VEC: A's rows are 16-byte aligned (K % 4 == 0 and A aligned), copied a float4 at a time.
template <int BN, bool VEC>
__device__ __forceinline__ void body(int M, int N, int K, float alpha, const float* __restrict__ A,
                                     const float* __restrict__ B, float beta, float* __restrict__ C, float* smem)
{
    using T = Tile<BN>;
    constexpr int BM = T::BM, RG = T::RG;
    const int tid = threadIdx.x;
    const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
    const int tiles = gridDim.x * gridDim.y, g = blockIdx.y * gridDim.x + blockIdx.x;
    const bool fits = gridDim.z > 1 && (long long)tiles * gridDim.z * BM * BN <= WS_FLOATS && tiles <= MAX_TILES;
    if (!fits && blockIdx.z != 0) return;            // split 0 takes all of K
    const int S = fits ? gridDim.z : 1, z = fits ? blockIdx.z : 0;
    const int allChunks = (K + KC - 1) / KC;
    const int c0 = (int)((long long)z * allChunks / S), chunks = (int)((long long)(z + 1) * allChunks / S) - c0;
    const unsigned base = smem_u32(smem);

    // A: thread tid copies piece tid % PIECES of rows tid / PIECES + j ROW_STEP (a piece: a float4,
    // or a float); one pointer, stepped ROW_STEP rows. Zero past M and K.
    constexpr int PIECE = VEC ? 4 : 1, PIECES = KC / PIECE, ROW_STEP = NT / PIECES;
    const int ar = tid / PIECES, ak = PIECE * (tid % PIECES), rowsIn = M - m0 - ar;
    const float* const aSrc = A + (size_t)(m0 + ar) * K + (size_t)c0 * KC + ak;
    const size_t aStep = (size_t)ROW_STEP * K;
    const unsigned aDst = 4 * (ar * PA + ak);
    auto load = [&](int c, int s) {
        const int kc = (c0 + c) * KC;
        const unsigned sA = base + 4 * s * T::STAGE, sB = sA + 4 * T::A_STAGE;
        const bool kIn = kc + ak < K;                // VEC: K % 4 == 0, a float4 is all in or out
        const float* a = aSrc + (size_t)c * KC;
#pragma unroll
        for (int j = 0; j < BM / ROW_STEP; ++j, a += aStep) {
            const bool in = kIn && ROW_STEP * j < rowsIn;
            if (VEC)
                cp_async_16z(sA + aDst + 4 * ROW_STEP * j * PA, in ? a : A, in ? 16 : 0);
            else
                cp_async_4z(sA + aDst + 4 * ROW_STEP * j * PA, in ? a : A, in ? 4 : 0);
        }
#pragma unroll
        for (int j = 0; j < KC * BN / NT; ++j) {
            const int e = tid + j * NT, k = e / BN, n = e % BN;
            const bool in = n0 + n < N && kc + k < K;
            cp_async_4z(sB + 4 * e, in ? B + (size_t)(kc + k) * N + n0 + n : B, in ? 4 : 0);
        }
    };

    const int cg = tid % T::CG, rg = tid / T::CG;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

#pragma unroll
    for (int c = 0; c < STAGES - 1; ++c) {
        if (c < chunks) load(c, c);
        cp_async_commit();
    }
#pragma unroll 1
    for (int c = 0; c < chunks; ++c) {
        cp_async_wait<STAGES - 2>();                 // chunk c has landed (for this thread's copies)
        __syncthreads();                             // for everyone's; and chunk c - 1's stage is free
        if (c + STAGES - 1 < chunks) load(c + STAGES - 1, (c + STAGES - 1) % STAGES);
        cp_async_commit();
        const float* const sA = smem + (c % STAGES) * T::STAGE + rg * PA;
        const float* const sB = smem + (c % STAGES) * T::STAGE + T::A_STAGE + TN * cg;
#pragma unroll
        for (int k = 0; k < KC; k += 4) {
            float4 a[TM];
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = *reinterpret_cast<const float4*>(sA + RG * i * PA + k);
#pragma unroll
            for (int kk = 0; kk < 4; ++kk) {
                const float4 b0 = *reinterpret_cast<const float4*>(sB + (k + kk) * BN);
                const float4 b1 = *reinterpret_cast<const float4*>(sB + (k + kk) * BN + 4);
                const float b[TN] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
                for (int i = 0; i < TM; ++i) {
                    const float ai = kk == 0 ? a[i].x : kk == 1 ? a[i].y : kk == 2 ? a[i].z : a[i].w;
#pragma unroll
                    for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(ai, b[j], acc[i][j]);
                }
            }
        }
    }
    cp_async_wait<0>();

    if (S > 1) {
        // Thread tid's float4 h of row i for tile g's split z at partials[((g * S + z) * 2 TM + 2 i + h) * NT + tid]:
        // a warp's stores cover 512 contiguous bytes.
        float4* const part = reinterpret_cast<float4*>(g_partials);
        const size_t at = (size_t)g * S * 2 * TM * NT + tid;
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int h = 0; h < 2; ++h)
                part[at + ((size_t)z * 2 * TM + 2 * i + h) * NT] =
                    make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
        __shared__ int lastSplit;
        if (!arrived_last(&g_counters[g], S, lastSplit)) return;
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
        // A split's rows are loaded TM float4s together, then added: 2 S round trips to L2.
#pragma unroll 1
        for (int s = 0; s < S; ++s) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                float4 v[TM];
#pragma unroll
                for (int i = 0; i < TM; ++i) v[i] = __ldcg(&part[at + ((size_t)s * 2 * TM + 2 * i + h) * NT]);
#pragma unroll
                for (int i = 0; i < TM; ++i) {
                    acc[i][4 * h] += v[i].x; acc[i][4 * h + 1] += v[i].y; acc[i][4 * h + 2] += v[i].z; acc[i][4 * h + 3] += v[i].w;
                }
            }
        }
        if (tid == 0) g_counters[g] = 0;             // ready for the next launch
    }

    // Rows m0 + rg + RG i, columns n0 + TN cg .. + 7: float4s where N % 4 == 0 and C is 16-byte
    // aligned (a float4 is then all in or all out), else floats.
    const int n = n0 + TN * cg;
    if (n >= N) return;
    const bool vecC = N % 4 == 0 && (reinterpret_cast<uintptr_t>(C) & 15) == 0;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int m = m0 + rg + RG * i;
        if (m >= M) break;
        float* const c = C + (size_t)m * N + n;
        if (vecC) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                if (n + 4 * h >= N) break;
                float4* const p = reinterpret_cast<float4*>(c + 4 * h);
                const float4 old = beta != 0.0f ? *p : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
                *p = make_float4(alpha * acc[i][4 * h] + beta * old.x, alpha * acc[i][4 * h + 1] + beta * old.y,
                                 alpha * acc[i][4 * h + 2] + beta * old.z, alpha * acc[i][4 * h + 3] + beta * old.w);
            }
        } else {
#pragma unroll
            for (int j = 0; j < TN; ++j)
                if (n + j < N) c[j] = alpha * acc[i][j] + (beta != 0.0f ? beta * c[j] : 0.0f);
        }
    }
}

template <int BN>
__device__ __forceinline__ void either(int M, int N, int K, float alpha, const float* __restrict__ A,
                                       const float* __restrict__ B, float beta, float* __restrict__ C, float* smem)
{
    if (K % 4 == 0 && (reinterpret_cast<uintptr_t>(A) & 15) == 0)
        body<BN, true>(M, N, K, alpha, A, B, beta, C, smem);
    else
        body<BN, false>(M, N, K, alpha, A, B, beta, C, smem);
}

}  // namespace tall32

extern "C" __global__ void __launch_bounds__(NT, MIN_BLOCKS)
sgemm_tall32_rewrite(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
             float beta, float* __restrict__ C)
{
    extern __shared__ __align__(16) float smem[];
    if (N <= 32)
        tall32::either<32>(M, N, K, alpha, A, B, beta, C, smem);
    else
        tall32::either<64>(M, N, K, alpha, A, B, beta, C, smem);
}
