// wmma_ragged: FP16 tensor cores for every shape, the FP16 tier's fallback for leading
// dimensions TMA cannot describe (K or N not a multiple of 8: 1023, 4095, 2500).
//
// Predecessor: wmma_smem. wmma_smem copies 16-byte chunks (cp.async) of whole 128x128x32 tiles,
// so it needs M, N multiples of 128 and K of 32, and its 16-byte copies need rows that are
// multiples of 8 halves; the TMA rungs need the latter too. A row of 1023 halves starts on a
// 2-byte boundary, so the only load that is legal everywhere is a single half. Idea: keep
// wmma_smem's 128x128x32 block tile and 8 warps of 64x32 (4x2 fragments, padded shared rows of 40
// and 136 halves), but
// (1) fill shared memory from 16 single-half loads per thread and operand, zero outside M, N, K
//     (consecutive threads read consecutive halves of a row: coalesced 64-byte runs);
// (2) the loads of tile k+1 go to registers before tile k is multiplied and to shared memory
//     after it (one buffer, two barriers per k tile), so their latency hides behind the MMAs;
// (3) the epilogue goes through a 16x16 FP32 scratch per warp: store_matrix_sync there, then each
//     lane writes 8 elements of C with row < M, column < N checks (C's rows need no alignment).
// Slow next to the TMA rungs (scalar loads); the dispatcher sends it only shapes they refuse.
//
// Contract: block (256), grid (cdiv(N, 128), cdiv(M, 128)); 27,136 bytes of static shared
// memory; sm_70+. Any M, N, K >= 1. beta == 0: C is not read.

#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define BM 128
#define BN 128
#define BK 32
#define NTHREADS 256
#define A_LD (BK + 8)                 // 40 halves per shared row of A
#define B_LD (BN + 8)                 // 136 halves per shared row of B
#define PER_THREAD (BM * BK / NTHREADS)  // 16 halves of A and 16 of B per thread and k tile

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
hgemm_wmma_ragged(int M, int N, int K, float alpha, const __half* __restrict__ A,
                  const __half* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __align__(128) __half As[BM * A_LD];
    __shared__ __align__(128) __half Bs[BK * B_LD];
    __shared__ __align__(128) float scratch[NTHREADS / 32][16 * 16];

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int wRow = (warp / 4) * 64, wCol = (warp % 4) * 32;
    const __half zero = __float2half(0.0f);

    // Element e of this thread: A at (row (tid + 256e) / 32, k (tid + 256e) % 32) = (tid/32 + 8e, lane);
    // B at (k (tid + 256e) / 128, col (tid + 256e) % 128) = (tid/128 + 2e, tid % 128).
    __half ra[PER_THREAD], rb[PER_THREAD];
    auto fetch = [&](int k0) {
#pragma unroll
        for (int e = 0; e < PER_THREAD; ++e) {
            const int r = bm + warp + 8 * e, k = k0 + lane;
            ra[e] = (r < M && k < K) ? A[(size_t)r * K + k] : zero;
            const int kb = k0 + tid / 128 + 2 * e, c = bn + tid % 128;
            rb[e] = (kb < K && c < N) ? B[(size_t)kb * N + c] : zero;
        }
    };

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    const int kTiles = (K + BK - 1) / BK;
    fetch(0);
    for (int kt = 0; kt < kTiles; ++kt) {
        __syncthreads();                                   // the previous tile's MMAs are done reading
#pragma unroll
        for (int e = 0; e < PER_THREAD; ++e) {
            As[(warp + 8 * e) * A_LD + lane] = ra[e];
            Bs[(tid / 128 + 2 * e) * B_LD + tid % 128] = rb[e];
        }
        __syncthreads();
        if (kt + 1 < kTiles) fetch((kt + 1) * BK);         // in flight during the MMAs below
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[4];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb[2];
#pragma unroll
            for (int i = 0; i < 4; ++i) wmma::load_matrix_sync(fa[i], As + (wRow + 16 * i) * A_LD + kk, A_LD);
#pragma unroll
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(fb[j], Bs + kk * B_LD + wCol + 16 * j, B_LD);
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
    }

    // Epilogue, fragment by fragment through this warp's scratch: lane l writes row l / 2,
    // columns 8 * (l % 2) .. +7 of the 16x16 fragment.
    float* const s = scratch[warp];
    const int fr = lane / 2, fc = 8 * (lane % 2);
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            wmma::store_matrix_sync(s, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            const int r = bm + wRow + 16 * i + fr, c0 = bn + wCol + 16 * j + fc;
            if (r < M) {
                float* const row = C + (size_t)r * N;
#pragma unroll
                for (int e = 0; e < 8; ++e) {
                    const int c = c0 + e;
                    if (c < N) row[c] = alpha * s[fr * 16 + fc + e] + (beta != 0.0f ? beta * row[c] : 0.0f);
                }
            }
            __syncwarp();
        }
}
