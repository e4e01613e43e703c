// tall32: strict FP32 (FFMA) for tall products with few columns (N <= 64, M in the thousands, K
// long): skinny32's regime turned over. There the product was a stream of B; here it is a stream
// of A, and the GPU's job is to read A once, at full bandwidth, on every SM.
//
// Predecessor: splitk256x64x8rs. Its 256x64 tiles compute 64 columns at N = 16-30 (a half to three
// quarters of the math wasted), and where the rules sent such shapes to 128x256 tiles (5584x30x36785,
// 12217x16x24971) eight times the math ran at 19-24% of cuBLAS on an H200. Idea: a tile exactly
// as wide as N needs (32 or 64 columns, picked from N at run time), 256 or 128 rows tall so that
// every tile is 8192 results (8 rows x 4 columns a thread of 256), K split to two CTAs per SM.
// A streams into shared memory through 4-byte cp.async copies (any K, any alignment) that place it
// transposed, in four stages of 16 k (three in flight while one is computed); a warp's copies
// cover two rows of 16 k each, which with a pitch of BM + 2 land in 32 different banks. B's few
// columns ride along in the same stages.
// Split partials meet as in skinny32 (split_arrival.cuh): the split counted last sums them in split
// order and stores C, so no CTA waits for another and any grid runs.
//
// Grid (the manifest's): x = cdiv(M, BM) row tiles (BM = 256 where N <= 32, else 128), y =
// cdiv(N, BN) column tiles, z = S splits: at least 256 k rows a split, S x x x y <= 2 SMS. A grid
// whose partials would not fit the workspace runs unsplit (split 0 takes all of K).
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C); fast where N <= 64. Block 256,
// SMEM_BYTES of dynamic shared memory. beta == 0: C is not read. Launches must not overlap in time
// (one workspace per loaded module).

#include "cp_async.cuh"
#include "split_arrival.cuh"

#define NT 256
#define TM 8                                         // rows a thread; four columns a thread
#define KC 16                                        // k rows a stage
#define STAGES 4
#define SMEM_BYTES 74240                             // STAGES * KC * ((256 + 2) + 32) floats: the 256x32 tiles'
#define WS_FLOATS (1LL << 22)                        // 16 MiB: 512 partial tiles of 8192 floats
#define MAX_TILES 4096                               // arrival counters

__device__ __align__(16) float g_partials[WS_FLOATS];
__device__ unsigned g_counters[MAX_TILES];           // zero at module load; the last split resets its own

namespace tall32 {

template <int BN>
struct Tile {
    static constexpr int CG = BN / 4;                // column groups: a float4 of B a thread
    static constexpr int BM = NT / CG * TM;          // 256 rows at BN = 32, 128 at BN = 64
    static constexpr int PA = BM + 2;                // pitch of A^T: a warp's two rows x 16 k hit 32 banks
    static constexpr int A_STAGE = KC * PA, STAGE = A_STAGE + KC * BN;  // floats
    static_assert(STAGES * STAGE * 4 <= SMEM_BYTES, "the manifest's smem_bytes holds the stages");
    static_assert(A_STAGE % 4 == 0, "B's part of a stage starts 16-byte aligned");
};

template <int BN>
__device__ __forceinline__ void body(int M, int N, int K, float alpha, const float* __restrict__ A,
                                     const float* __restrict__ B, float beta, float* __restrict__ C, float* smem)
{
    using T = Tile<BN>;
    constexpr int BM = T::BM, PA = T::PA;
    const int tid = threadIdx.x;
    const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
    const int tiles = gridDim.x * gridDim.y, g = blockIdx.y * gridDim.x + blockIdx.x;
    const bool fits = gridDim.z > 1 && (long long)tiles * gridDim.z * BM * BN <= WS_FLOATS && tiles <= MAX_TILES;
    if (!fits && blockIdx.z != 0) return;            // split 0 takes all of K
    const int S = fits ? gridDim.z : 1, z = fits ? blockIdx.z : 0;
    const int k0 = (int)((long long)z * K / S), k1 = (int)((long long)(z + 1) * K / S);
    const int chunks = (k1 - k0 + KC - 1) / KC;
    const unsigned base = smem_u32(smem);

    // Copies of chunk c into stage s, zero past M, N and this split's K. Element e of the A tile is
    // row e / KC, k e % KC (a warp: two rows of 16 consecutive k, 64 bytes each); of the B tile
    // row e / BN, column e % BN.
    // Thread tid copies k = tid % KC of rows tid / KC + j NT / KC: one pointer, stepped NT / KC rows.
    constexpr int ROW_STEP = NT / KC;
    const int ar = tid / KC, ak = tid % KC, rowsIn = M - m0 - ar;
    const float* const aSrc = A + (size_t)(m0 + ar) * K + ak;
    const size_t aStep = (size_t)ROW_STEP * K;
    const unsigned aDst = 4 * (ak * PA + ar);
    auto load = [&](int c, int s) {
        const int kc = k0 + c * KC;
        const unsigned sA = base + 4 * s * T::STAGE, sB = sA + 4 * T::A_STAGE;
        const bool kIn = kc + ak < k1;
        const float* a = aSrc + kc;
#pragma unroll
        for (int j = 0; j < BM / ROW_STEP; ++j, a += aStep) {
            const bool in = kIn && ROW_STEP * j < rowsIn;
            cp_async_4z(sA + aDst + 4 * ROW_STEP * j, in ? a : A, in ? 4 : 0);
        }
#pragma unroll
        for (int j = 0; j < KC * BN / NT; ++j) {
            const int e = tid + j * NT, k = e / BN, n = e % BN;
            const bool in = n0 + n < N && kc + k < k1;
            cp_async_4z(sB + 4 * e, in ? B + (size_t)(kc + k) * N + n0 + n : B, in ? 4 : 0);
        }
    };

    const int cg = tid % T::CG, rg = tid / T::CG;    // a warp: 8 or 16 column groups of 4 or 2 row groups
    float acc[TM][4];
#pragma unroll
    for (int i = 0; i < TM; ++i) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.0f;

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
        const float* const sA = smem + (c % STAGES) * T::STAGE;
        const float* const sB = sA + T::A_STAGE;
#pragma unroll
        for (int k = 0; k < KC; ++k) {
            float a[TM];
#pragma unroll
            for (int i = 0; i < TM; i += 2) {        // a warp's 2 or 4 row groups: broadcasts
                const float2 v = *reinterpret_cast<const float2*>(sA + k * PA + TM * rg + i);
                a[i] = v.x;
                a[i + 1] = v.y;
            }
            const float4 b = *reinterpret_cast<const float4*>(sB + k * BN + 4 * cg);
#pragma unroll
            for (int i = 0; i < TM; ++i) {
                acc[i][0] = fmaf(a[i], b.x, acc[i][0]);
                acc[i][1] = fmaf(a[i], b.y, acc[i][1]);
                acc[i][2] = fmaf(a[i], b.z, acc[i][2]);
                acc[i][3] = fmaf(a[i], b.w, acc[i][3]);
            }
        }
    }
    cp_async_wait<0>();

    if (S > 1) {
        // Row i's float4 of thread tid for tile g's split z at partials[((g * S + z) * TM + i) * NT + tid]:
        // a warp's stores cover 512 contiguous bytes.
        float4* const part = reinterpret_cast<float4*>(g_partials);
#pragma unroll
        for (int i = 0; i < TM; ++i)
            part[((size_t)(g * S + z) * TM + i) * NT + tid] = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        __shared__ int lastSplit;
        if (!arrived_last(&g_counters[g], S, lastSplit)) return;
#pragma unroll
        for (int i = 0; i < TM; ++i) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.0f;
        // A split's TM float4s are loaded together, then added: S round trips to L2, not S * TM.
#pragma unroll 1
        for (int s = 0; s < S; ++s) {
            float4 v[TM];
#pragma unroll
            for (int i = 0; i < TM; ++i) v[i] = __ldcg(&part[((size_t)(g * S + s) * TM + i) * NT + tid]);
#pragma unroll
            for (int i = 0; i < TM; ++i) {
                acc[i][0] += v[i].x; acc[i][1] += v[i].y; acc[i][2] += v[i].z; acc[i][3] += v[i].w;
            }
        }
        if (tid == 0) g_counters[g] = 0;             // ready for the next launch
    }

    // Rows m0 + TM rg + i, columns n0 + 4 cg .. + 3: a float4 where the row holds all four and is
    // 16-byte aligned (N % 4 == 0), else by floats.
    const int n = n0 + 4 * cg;
    if (n >= N) return;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int m = m0 + TM * rg + i;
        if (m >= M) break;
        float* const c = C + (size_t)m * N + n;
        if (N % 4 == 0) {
            float4 old = beta != 0.0f ? *reinterpret_cast<const float4*>(c) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            *reinterpret_cast<float4*>(c) = make_float4(alpha * acc[i][0] + beta * old.x, alpha * acc[i][1] + beta * old.y,
                                                        alpha * acc[i][2] + beta * old.z, alpha * acc[i][3] + beta * old.w);
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j)
                if (n + j < N) c[j] = alpha * acc[i][j] + (beta != 0.0f ? beta * c[j] : 0.0f);
        }
    }
}

}  // namespace tall32

extern "C" __global__ void __launch_bounds__(NT, 2)
sgemm_tall32(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
             float beta, float* __restrict__ C)
{
    extern __shared__ __align__(16) float smem[];
    if (N <= 32)
        tall32::body<32>(M, N, K, alpha, A, B, beta, C, smem);
    else
        tall32::body<64>(M, N, K, alpha, A, B, beta, C, smem);
}
