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
//
// Built again as wmma_tinysplit (nvcc -DTINY_SPLIT): the same tiles with K split over S CTAs a
// tile where the tiles are too few for the SMs: 193x38x1256 is 14 tiles, each 10 k tiles deep.
// Split z takes a chunk of K (a multiple of 32 columns) and writes its partial to a module
// workspace; the split counted last (split_arrival.cuh) sums the S partials in split order and
// writes C. A build of its own: in wmma_tiny, whose grids never split, the workspace's code cost
// 5% at a K of 16-330 (H200).
//
// Contract: block (128), grid (cdiv(N, 32), cdiv(M, 32)), and for wmma_tinysplit a third dimension
// S with cdiv(N, 32) cdiv(M, 32) S <= 1024 where S > 1; 23,552 bytes of static shared memory
// (23,556 split); sm_70+. Any M, N, K >= 1. beta == 0: C is not read.

#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#include "split_arrival.cuh"

#define BM 32
#define BN 32
#define BK 128
#define NTHREADS 128
#define A_LD (BK + 8)                     // 136 halves per shared row of A
#define B_LD (BN + 8)                     // 40 halves per shared row of B
#define C_LD (BN + 4)                     // 36 floats per shared row of the C tile
#define PER_THREAD (BM * BN / NTHREADS)   // 8 floats of C per thread

#ifdef TINY_SPLIT
constexpr bool SPLIT = true;
#define MAX_SPLIT_CTAS 1024               // split grids have <= 2 SMS CTAs (the manifest's grid)
__device__ __align__(16) float g_tiny_partials[MAX_SPLIT_CTAS * BM * BN];  // 4 MiB
__device__ unsigned g_tiny_counters[MAX_SPLIT_CTAS];  // zero at module load; the last split resets its own
#else
constexpr bool SPLIT = false;
#endif

// The k loop over tiles of 32 PARTS columns of k (BK at most): a K of 16-64 loads, stores and
// multiplies no more than it needs, with the registers the widest tiles take.
template <int PARTS>
__device__ __forceinline__ void k_loop(int M, int N, int K, int kBegin, int kEnd, const __half* __restrict__ A,
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
            ra[e] = (r < M && k < kEnd) ? A[(size_t)r * K + k] : zero;
            const int kb = k0 + warp + 4 * e, c = bn + lane;
            rb[e] = (kb < kEnd && c < N) ? B[(size_t)kb * N + c] : zero;
        }
    };

    const int kTiles = (kEnd - kBegin + TK - 1) / TK;
    fetch(kBegin);
    for (int kt = 0; kt < kTiles; ++kt) {
        __syncthreads();                                  // the previous tile's MMAs are done reading
#pragma unroll
        for (int e = 0; e < ELEMS; ++e) {
            As[(warp + 4 * (e % 8)) * A_LD + lane + 32 * (e / 8)] = ra[e];
            Bs[(warp + 4 * e) * B_LD + lane] = rb[e];
        }
        __syncthreads();
        if (kt + 1 < kTiles) fetch(kBegin + (kt + 1) * TK);  // in flight during the MMAs below
        const int kLeft = kEnd - kBegin - kt * TK;           // past it the tile is zeros: no MMA
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

    // Split z of S takes K's columns [z chunk, (z + 1) chunk), chunk a multiple of 32.
#ifdef TINY_SPLIT
    const int S = gridDim.z, z = blockIdx.z;
    if (S > 1 && gridDim.x * gridDim.y * S > MAX_SPLIT_CTAS) __trap();
#else
    const int S = 1, z = 0;
#endif
    const int chunk = ((K + S - 1) / S + 31) / 32 * 32;
    const int kBegin = SPLIT ? min(K, z * chunk) : 0, kEnd = SPLIT ? min(K, kBegin + chunk) : K;
    const int len = kEnd - kBegin;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    if (len <= 32) {                                      // one k tile of 32: 32-wide loads only
        if (!SPLIT || len > 0) k_loop<1>(M, N, K, kBegin, kEnd, A, B, As, Bs, acc);  // a split past K: none
    } else if (len <= 64) k_loop<2>(M, N, K, kBegin, kEnd, A, B, As, Bs, acc);
    else k_loop<BK / 32>(M, N, K, kBegin, kEnd, A, B, As, Bs, acc);

    wmma::store_matrix_sync(Cs + wRow * C_LD + wCol, acc, C_LD, wmma::mem_row_major);
    __syncthreads();
    float sum[PER_THREAD];
#pragma unroll
    for (int e = 0; e < PER_THREAD; ++e) sum[e] = Cs[cRow * C_LD + cCol + e];
#ifdef TINY_SPLIT
    if (S > 1) {
        // Each split writes its partial (8 floats a thread, two float4s); the split counted last
        // sums the S partials in split order and writes C.
        __shared__ int last;
        const int tile = blockIdx.y * gridDim.x + blockIdx.x;
        float* const part = g_tiny_partials + (size_t)tile * S * (BM * BN) + BN * cRow + cCol;
        float4* const mine = reinterpret_cast<float4*>(part + (size_t)z * (BM * BN));
        mine[0] = make_float4(sum[0], sum[1], sum[2], sum[3]);
        mine[1] = make_float4(sum[4], sum[5], sum[6], sum[7]);
        if (!arrived_last(&g_tiny_counters[tile], S, last)) return;
#pragma unroll
        for (int e = 0; e < PER_THREAD; ++e) sum[e] = 0.0f;
        for (int u = 0; u < S; ++u) {
            const float4* const p = reinterpret_cast<const float4*>(part + (size_t)u * (BM * BN));
            const float4 lo = __ldcg(p), hi = __ldcg(p + 1);
            sum[0] += lo.x; sum[1] += lo.y; sum[2] += lo.z; sum[3] += lo.w;
            sum[4] += hi.x; sum[5] += hi.y; sum[6] += hi.z; sum[7] += hi.w;
        }
        if (tid == 0) g_tiny_counters[tile] = 0;       // ready for the next launch
    }
#endif
    if (gRow < M) {
        float* const row = C + (size_t)gRow * N;
#pragma unroll
        for (int e = 0; e < PER_THREAD; ++e) {
            const int c = bn + cCol + e;
            if (c < N) row[c] = alpha * sum[e] + beta * old[e];
        }
    }
}
