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
// (3) A and B by single halves (legal at every row pitch), zero outside M, N, K, the next k tile
//     in registers while the current one is multiplied (wmma_ragged's register staging); k tiles
//     128 wide (32 or 64 where K is no longer), so that a K of a few hundred takes few DRAM round
//     trips: with 32-wide ones each trip held a tile's 8 MMAs (two a warp), and 62x477x812 (30
//     CTAs) ran 28 us against cuBLAS's 11;
// (4) the epilogue through a shared 32x32 FP32 tile, each thread writing the 8 elements whose C
//     it read: 4 threads a 128-byte row.
// Long K stays with the split-K rungs: nothing here spreads K over CTAs.
//
// Contract: block (128), grid (cdiv(N, 32), cdiv(M, 32)); 23,552 bytes of static shared memory;
// sm_70+. Any M, N, K >= 1. beta == 0: C is not read.

#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define BM 32
#define BN 32
#define BK 128
#define NTHREADS 128
#define A_LD (BK + 8)                     // 136 halves per shared row of A
#define B_LD (BN + 8)                     // 40 halves per shared row of B
#define C_LD (BN + 4)                     // 36 floats per shared row of the C tile
#define PER_THREAD (BM * BN / NTHREADS)   // 8 floats of C per thread

// The k loop over tiles of 32 PARTS columns of k (BK at most): a K of 16-64 loads, stores and
// multiplies no more than it needs, with the registers the widest tiles take.
template <int PARTS>
__device__ __forceinline__ void k_loop(int M, int N, int K, const __half* __restrict__ A,
                                       const __half* __restrict__ B, __half* As, __half* Bs,
                                       wmma::fragment<wmma::accumulator, 16, 16, 16, float>& acc)
{
    constexpr int TK = 32 * PARTS, ELEMS = BM * TK / NTHREADS;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int wRow = (warp / 2) * 16, wCol = (warp % 2) * 16;
    const __half zero = __float2half(0.0f);

    // Element e: A at (row tid / 32 + 4 (e % 8), k lane + 32 (e / 8)), B at (k tid / 32 + 4e,
    // column lane): a warp reads 32 consecutive halves of one row.
    __half ra[ELEMS], rb[ELEMS];
    auto fetch = [&](int k0) {
#pragma unroll
        for (int e = 0; e < ELEMS; ++e) {
            const int r = bm + warp + 4 * (e % 8), k = k0 + lane + 32 * (e / 8);
            ra[e] = (r < M && k < K) ? A[(size_t)r * K + k] : zero;
            const int kb = k0 + warp + 4 * e, c = bn + lane;
            rb[e] = (kb < K && c < N) ? B[(size_t)kb * N + c] : zero;
        }
    };

    const int kTiles = (K + TK - 1) / TK;
    fetch(0);
    for (int kt = 0; kt < kTiles; ++kt) {
        __syncthreads();                                  // the previous tile's MMAs are done reading
#pragma unroll
        for (int e = 0; e < ELEMS; ++e) {
            As[(warp + 4 * (e % 8)) * A_LD + lane + 32 * (e / 8)] = ra[e];
            Bs[(warp + 4 * e) * B_LD + lane] = rb[e];
        }
        __syncthreads();
        if (kt + 1 < kTiles) fetch((kt + 1) * TK);        // in flight during the MMAs below
        const int kLeft = K - kt * TK;                    // past it the tile is zeros: no MMA
#pragma unroll
        for (int kk = 0; kk < TK; kk += 16) {
            if (kk >= kLeft) break;
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
            wmma::load_matrix_sync(fa, As + wRow * A_LD + kk, A_LD);
            wmma::load_matrix_sync(fb, Bs + kk * B_LD + wCol, B_LD);
            wmma::mma_sync(acc, fa, fb, acc);
        }
    }
}

extern "C" __global__ void __launch_bounds__(NTHREADS)
hgemm_wmma_tiny(int M, int N, int K, float alpha, const __half* __restrict__ A,
                const __half* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __align__(128) __half As[BM * A_LD];
    __shared__ __align__(128) __half Bs[BK * B_LD];
    __shared__ __align__(128) float Cs[BM * C_LD];

    const int tid = threadIdx.x, warp = tid / 32;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int wRow = (warp / 2) * 16, wCol = (warp % 2) * 16;

    // This thread's part of C: row tid / 4 of the tile, columns 8 * (tid % 4) .. +7.
    const int cRow = tid / 4, cCol = 8 * (tid % 4);
    const int gRow = bm + cRow;
    float old[PER_THREAD];
#pragma unroll
    for (int e = 0; e < PER_THREAD; ++e) {
        const int c = bn + cCol + e;
        old[e] = (beta != 0.0f && gRow < M && c < N) ? C[(size_t)gRow * N + c] : 0.0f;
    }

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    if (K <= 32) k_loop<1>(M, N, K, A, B, As, Bs, acc);   // one k tile of 32: 32-wide loads only
    else if (K <= 64) k_loop<2>(M, N, K, A, B, As, Bs, acc);
    else k_loop<BK / 32>(M, N, K, A, B, As, Bs, acc);

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
