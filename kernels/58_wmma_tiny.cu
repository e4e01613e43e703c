// wmma_tiny: FP16 products of a few microseconds at any M, N, K, on 32x32 tiles.
//
// Predecessor: wmma_ragged. At 112x188x28 (cuBLAS 3.6 us) wmma_ragged, skinny_any and
// wgmma_staged128 each ran 15-17 us under ncu: their 128-row tiles make 2-4 CTAs, each thread
// owns 64 or more elements of C, and with beta != 0 it reads them fragment by fragment in the
// epilogue, a DRAM round trip after another on a handful of SMs. Idea: the tile cuBLAS picks for
// such products, and nothing serial:
// (1) a 32x32 C tile per CTA of 4 warps (one 16x16 fragment each): 24 CTAs at 112x188 instead
//     of 2, and 8 elements of C per thread;
// (2) each thread loads its 8 elements of C at the start, so their latency overlaps the loads of
//     A and B instead of following the MMAs;
// (3) A and B by single halves (legal at every row pitch), zero outside M, N, K, the next 32-wide
//     k tile in registers while the current one is multiplied (wmma_ragged's register staging);
// (4) the epilogue through a shared 32x32 FP32 tile, each thread writing the 8 elements whose C
//     it read: 4 threads a 128-byte row.
// Long K stays with the split-K rungs: nothing here spreads K over CTAs.
//
// Contract: block (128), grid (cdiv(N, 32), cdiv(M, 32)); 9,728 bytes of static shared memory;
// sm_70+. Any M, N, K >= 1. beta == 0: C is not read.

#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define BM 32
#define BN 32
#define BK 32
#define NTHREADS 128
#define AB_LD (BK + 8)                    // 40 halves per shared row of A and of B
#define C_LD (BN + 4)                     // 36 floats per shared row of the C tile
#define PER_THREAD (BM * BK / NTHREADS)   // 8 halves of A, 8 of B and 8 floats of C per thread

extern "C" __global__ void __launch_bounds__(NTHREADS)
hgemm_wmma_tiny(int M, int N, int K, float alpha, const __half* __restrict__ A,
                const __half* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __align__(128) __half As[BM * AB_LD];
    __shared__ __align__(128) __half Bs[BK * AB_LD];
    __shared__ __align__(128) float Cs[BM * C_LD];

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int wRow = (warp / 2) * 16, wCol = (warp % 2) * 16;
    const __half zero = __float2half(0.0f);

    // This thread's part of C: row tid / 4 of the tile, columns 8 * (tid % 4) .. +7.
    const int cRow = tid / 4, cCol = 8 * (tid % 4);
    const int gRow = bm + cRow;
    float old[PER_THREAD];
#pragma unroll
    for (int e = 0; e < PER_THREAD; ++e) {
        const int c = bn + cCol + e;
        old[e] = (beta != 0.0f && gRow < M && c < N) ? C[(size_t)gRow * N + c] : 0.0f;
    }

    // Element e: A at (row tid / 32 + 4e, k lane), B at (k tid / 32 + 4e, column lane): a warp
    // reads 32 consecutive halves of one row.
    __half ra[PER_THREAD], rb[PER_THREAD];
    auto fetch = [&](int k0) {
#pragma unroll
        for (int e = 0; e < PER_THREAD; ++e) {
            const int r = bm + warp + 4 * e, k = k0 + lane;
            ra[e] = (r < M && k < K) ? A[(size_t)r * K + k] : zero;
            const int kb = k0 + warp + 4 * e, c = bn + lane;
            rb[e] = (kb < K && c < N) ? B[(size_t)kb * N + c] : zero;
        }
    };

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);

    const int kTiles = (K + BK - 1) / BK;
    fetch(0);
    for (int kt = 0; kt < kTiles; ++kt) {
        __syncthreads();                                  // the previous tile's MMAs are done reading
#pragma unroll
        for (int e = 0; e < PER_THREAD; ++e) {
            As[(warp + 4 * e) * AB_LD + lane] = ra[e];
            Bs[(warp + 4 * e) * AB_LD + lane] = rb[e];
        }
        __syncthreads();
        if (kt + 1 < kTiles) fetch((kt + 1) * BK);        // in flight during the MMAs below
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
            wmma::load_matrix_sync(fa, As + wRow * AB_LD + kk, AB_LD);
            wmma::load_matrix_sync(fb, Bs + kk * AB_LD + wCol, AB_LD);
            wmma::mma_sync(acc, fa, fb, acc);
        }
    }

    wmma::store_matrix_sync(Cs + wRow * C_LD + wCol, acc, C_LD, wmma::mem_row_major);
    __syncthreads();
    if (gRow < M) {
        float* const row = C + (size_t)gRow * N;
#pragma unroll
        for (int e = 0; e < PER_THREAD; ++e) {
            const int c = bn + cCol + e;
            if (c < N) row[c] = alpha * Cs[cRow * C_LD + cCol + e] + beta * old[e];
        }
    }
}
