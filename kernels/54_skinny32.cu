// skinny32: strict FP32 (FFMA) for small M (decode: M <= 16 against N, K in the thousands), where
// a product is a stream of B and the GPU's job is to read B once, at full bandwidth, on every SM.
//
// Predecessor: splitk64x64x8rs. Its 64x64 tiles multiply 63 rows of zeros at M = 1, and at
// N = 11008 its 172 tiles of two warps leave the SMs short of loads in flight (1x11008x4096: 35%
// of cuBLAS on an H200). Idea: a tile as tall as M needs (4, 8 or 16 rows, picked from M at run
// time) and 512 columns wide: each of 128 threads owns four adjacent columns and keeps the tile's
// rows of them in registers. B streams straight from global memory into registers, a float4 per
// thread per k row, eight rows in flight; A's rows of a 128-k chunk sit in shared memory as
// A^T, read by every thread at the same address (a broadcast). K is split S ways so that the grid
// fills the SMs twice over; split partials meet as in skinny: every split writes its partial to a
// module-scope workspace and counts itself in, the last to arrive sums the S partials in split
// order and runs the epilogue. No CTA waits for another, so any grid runs.
//
// Grid (the manifest's): x = cdiv(M, 16) row tiles, y = cdiv(N, 512) column tiles, z = S: at least
// 128 k rows a split, and S x x x y <= 2 SMS (two CTAs an SM); more tiles than that run unsplit.
// S * x * y <= 2 SMS partial tiles of 16 x 512 floats fit the workspace (WS_FLOATS); a split grid
// that would not traps.
//
// Contract: block 128, grid as above, no dynamic shared memory. M and K any; N a multiple of 4
// (16-byte rows of B and C). beta == 0: C is not read. Launches must not overlap in time (one
// workspace per loaded module).

#include "split_arrival.cuh"

#define NT 128
#define BN (4 * NT)                                  // 512 columns: a float4 a thread
#define KC 128                                       // k rows of A in shared memory at a time
#define UNROLL 8                                     // B rows in flight a thread
#define WS_FLOATS (1LL << 22)                        // 16 MiB: 512 partial tiles of 16x512
#define MAX_TILES 4096                               // arrival counters (split grids have <= 2 SMS tiles)

__device__ __align__(16) float g_partials[WS_FLOATS];
__device__ unsigned g_counters[MAX_TILES];           // zero at module load; the last split resets its own

namespace skinny32 {

// acc[m][0..3] += A^T row a (BM values, a broadcast read) times the thread's four columns v.
template <int BM>
__device__ __forceinline__ void fma_row(float (&acc)[BM][4], const float* a, float4 v)
{
#pragma unroll
    for (int m = 0; m < BM; m += 4) {
        const float4 am = *reinterpret_cast<const float4*>(a + m);
        const float r[4] = {am.x, am.y, am.z, am.w};
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            acc[m + i][0] = fmaf(r[i], v.x, acc[m + i][0]);
            acc[m + i][1] = fmaf(r[i], v.y, acc[m + i][1]);
            acc[m + i][2] = fmaf(r[i], v.z, acc[m + i][2]);
            acc[m + i][3] = fmaf(r[i], v.w, acc[m + i][3]);
        }
    }
}

template <int BM>
__device__ __forceinline__ void body(int M, int N, int K, float alpha, const float* __restrict__ A,
                                     const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __align__(16) float sA[KC][BM];       // A^T: row k holds A[m0 .. m0 + BM)[kc + k]
    const int tid = threadIdx.x;
    const int m0 = blockIdx.x * 16, n = blockIdx.y * BN + 4 * tid;
    const int S = gridDim.z, z = blockIdx.z;
    const int k0 = (int)((long long)z * K / S), k1 = (int)((long long)(z + 1) * K / S);
    const bool nIn = n < N;                          // N % 4 == 0: a float4 is all in or all out
    if (S > 1 && (long long)gridDim.x * gridDim.y * S * 16 * BN > WS_FLOATS) __trap();

    float acc[BM][4];
#pragma unroll
    for (int m = 0; m < BM; ++m) acc[m][0] = acc[m][1] = acc[m][2] = acc[m][3] = 0.0f;

    // Rolled outer loops (a CTA runs a few chunks: unrolled, its code would be fetched and not reused).
#pragma unroll 1
    for (int kc = k0; kc < k1; kc += KC) {
        const int kn = min(KC, k1 - kc);
        __syncthreads();                             // every thread is done with the last chunk
        // consecutive threads read consecutive k of one row of A (coalesced)
#pragma unroll 1
        for (int i = tid; i < KC * BM; i += NT) {
            const int m = i / KC, k = i % KC;
            sA[k][m] = m0 + m < M && k < kn ? A[(size_t)(m0 + m) * K + kc + k] : 0.0f;
        }
        __syncthreads();
        if (!nIn) continue;
        const float* b = B + (size_t)kc * N + n;
        int k = 0;
#pragma unroll 1
        for (; k + UNROLL <= kn; k += UNROLL) {
            float4 v[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) v[u] = __ldg(reinterpret_cast<const float4*>(b + (size_t)(k + u) * N));
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) fma_row<BM>(acc, sA[k + u], v[u]);
        }
#pragma unroll 1
        for (; k < kn; ++k) fma_row<BM>(acc, sA[k], __ldg(reinterpret_cast<const float4*>(b + (size_t)k * N)));
    }

    if (S > 1) {
        // Row m's float4 of thread tid for tile g's split z at partials[((g * S + z) * BM + m) * NT + tid]:
        // a warp's float4 stores cover 512 contiguous bytes.
        const int g = blockIdx.y * gridDim.x + blockIdx.x;
        float4* const part = reinterpret_cast<float4*>(g_partials);
#pragma unroll
        for (int m = 0; m < BM; ++m)
            part[((size_t)(g * S + z) * BM + m) * NT + tid] = make_float4(acc[m][0], acc[m][1], acc[m][2], acc[m][3]);
        __shared__ int lastSplit;
        if (!arrived_last(&g_counters[g], S, lastSplit)) return;
#pragma unroll
        for (int m = 0; m < BM; ++m) acc[m][0] = acc[m][1] = acc[m][2] = acc[m][3] = 0.0f;
        // A split's BM float4s are loaded together, then added: S round trips to L2, not S * BM.
#pragma unroll 1
        for (int s = 0; s < S; ++s) {
            float4 v[BM];
#pragma unroll
            for (int m = 0; m < BM; ++m) v[m] = __ldcg(&part[((size_t)(g * S + s) * BM + m) * NT + tid]);
#pragma unroll
            for (int m = 0; m < BM; ++m) {
                acc[m][0] += v[m].x; acc[m][1] += v[m].y; acc[m][2] += v[m].z; acc[m][3] += v[m].w;
            }
        }
        if (tid == 0) g_counters[g] = 0;             // ready for the next launch
    }

    // With beta != 0 the thread's C is read whole before its first store: a load cannot pass the
    // store before it, so reads between stores would wait one by one.
    if (!nIn) return;
    float4 old[BM];
#pragma unroll
    for (int m = 0; m < BM; ++m)
        old[m] = beta != 0.0f && m0 + m < M ? *reinterpret_cast<const float4*>(C + (size_t)(m0 + m) * N + n)
                                            : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int m = 0; m < BM; ++m)
        if (m0 + m < M)
            *reinterpret_cast<float4*>(C + (size_t)(m0 + m) * N + n) =
                make_float4(alpha * acc[m][0] + beta * old[m].x, alpha * acc[m][1] + beta * old[m].y,
                            alpha * acc[m][2] + beta * old[m].z, alpha * acc[m][3] + beta * old[m].w);
}

}  // namespace skinny32

extern "C" __global__ void __launch_bounds__(NT, 2)
sgemm_skinny32(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
               float beta, float* __restrict__ C)
{
    if (M <= 4)
        skinny32::body<4>(M, N, K, alpha, A, B, beta, C);
    else if (M <= 8)
        skinny32::body<8>(M, N, K, alpha, A, B, beta, C);
    else
        skinny32::body<16>(M, N, K, alpha, A, B, beta, C);
}
