// splitk64x64x8st: splitk64x64x8rs on staged operands where rows of A or B are not whole float4s:
// the grid first copies A and B into buffers of the module's at pitches rounded up to 4 floats,
// then runs splitk64x64x8rs's main loop and reduce-scatter on the copies.
//
// Predecessor: splitk64x64x8rs. At 1023^3 (N % 4 != 0) its B copies are scalars, four cp.async
// where a float4 would do, and every row of A starts off the 16-byte grid, so a warp's copies of
// A touch twice the sectors: 0.084 ms there against 0.071 ms at 1024^3 (80% of cuBLAS against
// 94%). Idea: as the FP16 staged rungs (staged_operands.cuh), copy once with the whole grid, A to
// M x Kp and B to Kp x Np (Kp, Np: K, N rounded up to 4; the padding zeros), behind a grid barrier
// (grid_barrier.cuh); the main loop then multiplies the copies as the GEMM (M, Np, Kp), whose
// extra columns and k are zeros, and C is stored at its true N. The copy reads A and B once from
// DRAM and leaves them in L2 for the main loop.
//
// Staged only where it pays and can: N or K not a multiple of 4 (or A, B not 16-byte aligned),
// the grid split (S > 1: launched cooperatively, so every CTA is resident for the barrier), and
// the copies inside the buffer (2^23 floats); elsewhere it is splitk64x64x8rs (the decision is
// the same in every CTA).
//
// Measured (H100, two bench runs, benchmarks/results/2026-11-23-h100/README.md):
// slower where it stages, 1023^3 0.088 ms (76% of cuBLAS) against splitk64x64x8rs's 0.085 and
// splitk64x64x8's 0.082; the copy four float4s at a time gained 1 us of the 16 us it adds to
// 1024^3's time. Kept as a measured dead end: the copy and the grid barrier cost more than the
// scalar B copies and split sectors of A they save.
//
// S (the manifest's grid z), workspace, contract and launch: splitk64x64x8rs's. One staging
// buffer and barrier per loaded module: launches must not overlap in time.

#include "../grid_barrier.cuh"

// splitk64x64x8rs's tile, workspace and split_tile, its kernel under another name (unused here).
#define sgemm_splitk64x64x8rs sgemm_splitk64x64x8st_unstaged
#include "../29_splitk64x64x8rs.cu"
#undef sgemm_splitk64x64x8rs

#define STAGE_FLOATS (1LL << 23) // staged A and B: 32 MiB

__device__ __align__(16) float g_staged[STAGE_FLOATS];  // A (M x Kp), then B (Kp x Np)
__device__ grid::GridBarrier g_barrier;

// rows x cols floats at src (pitch cols) into dst (pitch `pitch` >= cols, a multiple of 4; dstRows
// >= rows rows, the rest zeros), float4s of dst by every thread of the grid, U at a time: all U
// float4s' loads before their stores (one at a time, each step waited a whole DRAM latency).
template <int U = 4>
__device__ __forceinline__ void copy_padded(const float* __restrict__ src, float* __restrict__ dst, int rows, int cols,
                                            int dstRows, int pitch)
{
    const unsigned chunks = pitch / 4, total = (unsigned)dstRows * chunks;
    const unsigned threads = gridDim.x * gridDim.y * gridDim.z * blockDim.x;
    const unsigned first = ((blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
    for (unsigned i0 = first; i0 < total; i0 += U * threads) {
        float v[U][4];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const unsigned i = i0 + u * threads;
            const int r = (int)(i / chunks), c = (int)(i - (unsigned)r * chunks) * 4;
#pragma unroll
            for (int j = 0; j < 4; ++j)
                v[u][j] = i < total && r < rows && c + j < cols ? __ldg(src + (size_t)r * cols + c + j) : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const unsigned i = i0 + u * threads;
            const int r = (int)(i / chunks), c = (int)(i - (unsigned)r * chunks) * 4;
            if (i < total)
                *reinterpret_cast<float4*>(dst + (size_t)r * pitch + c) = make_float4(v[u][0], v[u][1], v[u][2], v[u][3]);
        }
    }
}

extern "C" __global__ void __launch_bounds__(NTHREADS, RS_MIN_BLOCKS)
sgemm_splitk64x64x8st(int M, int N, int K, float alpha, const float* __restrict__ A,
                      const float* __restrict__ B, float beta, float* __restrict__ C)
{
    const int splits = gridDim.z, tiles = gridDim.x * gridDim.y;
    const bool fits = splits > 1 && (long long)splits * tiles * (BM * BN) <= WS_FLOATS && tiles <= MAX_TILES;
    const int Kp = (K + 3) & ~3, Np = (N + 3) & ~3;
    const bool aligned = K % 4 == 0 && N % 4 == 0 && ragged::aligned16(A) && ragged::aligned16(B);
    const bool staged = !aligned && fits && (long long)M * Kp + (long long)Kp * Np <= STAGE_FLOATS;  // uniform
    const float* a = A;
    const float* b = B;
    int n = N, k = K;  // the GEMM the main loop multiplies: the copies' (M, Np, Kp) where staged
    if (staged) {
        float* const As = g_staged;
        float* const Bs = g_staged + (size_t)M * Kp;
        copy_padded(A, As, M, K, M, Kp);
        copy_padded(B, Bs, K, N, Kp, Np);
        grid::grid_sync(&g_barrier);
        a = As, b = Bs, n = Np, k = Kp;
    }
    split_tile(M, N, n, k, alpha, a, b, beta, C, splits, tiles, fits);
}
