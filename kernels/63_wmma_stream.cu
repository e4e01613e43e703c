// wmma_stream: FP16 products with a short K and a large C, at any M, N, K.
//
// Predecessor: wmma_tiny. Where K is a few dozen, a GEMM is the traffic of C: M*N floats read
// and as many written. At 275x21393x34 that is 47 MB, about 12 us at an H200's bandwidth; cuBLAS
// took 31 us, wgmma_staged128 59 (its grid-wide copy of B to an aligned pitch first), wmma_tiny
// 65 (A and B read again for every 4 KB of C, 8 elements of C a thread). Idea: keep as many
// bytes of C in flight as the SM holds, all the time, and spend nothing else:
// (1) 64x128 C tiles, 8 warps a CTA (32x32 of a tile each, four 16x16 fragments): A and B are a
//     small share of the traffic beside a tile's 32 KB of C;
// (2) a persistent grid of two CTAs an SM, each walking tiles; C's tiles are copied into shared
//     memory by cp.async (4-byte copies, legal at every row pitch; a warp copies 32 consecutive
//     floats of a row), the next tile's as the current one starts, into the other of two buffers:
//     the reads of C run on through the MMAs, the epilogue and the stores (a CTA a tile had them
//     in flight only until its MMAs ended), and no register holds them;
// (3) each warp combines its fragments with C's there (alpha * AB + beta * C, fragment by
//     fragment), and the tile is written back from shared memory, 32 consecutive floats a warp;
// (4) A and B by 16-byte chunks fetched as the 4-byte words that hold them (raw_words.cuh: any
//     pitch), zero outside M, N, K, one 32-wide k tile ahead in registers: about half the loads
//     and an eighth of the shared stores that single halves take, which from K of about a hundred
//     on were most of the instructions.
// A long K is the other rungs' business: nothing here spreads K over CTAs.
//
// Contract: block (256), grid (min(tiles, 2 * SMs)), tiles = cdiv(M, 64) * cdiv(N, 128);
// 83,456 bytes of dynamic shared memory; sm_80+. Any M, N, K >= 1. beta == 0: C is not read.

#include <cuda_fp16.h>
#include <mma.h>

#include "cp_async.cuh"
#include "raw_words.cuh"

using namespace nvcuda;
using namespace raw_words;

#define BM 64
#define BN 128
#define BK 32
#define NTHREADS 256
#define A_LD (BK + 8)                    // 40 halves per shared row of A
#define B_LD (BN + 8)                    // 136 halves per shared row of B
#define C_LD (BN + 8)                    // 136 floats per shared row of C (fragments conflict-free)
#define B_CHUNKS (BK * BN / 8 / NTHREADS)  // 2 chunks of 8 halves of B a thread a k tile (and 1 of A)
#define B_ROWS_AT_ONCE (NTHREADS * 8 / BN)   // 16 rows of B a pass of the block
#define C_PER (BM * BN / NTHREADS)       // 32 floats of C
#define ROWS_AT_ONCE (NTHREADS / BN)     // 2 rows of C a pass of the block
#define C_TILE_BYTES (BM * C_LD * 4)     // 34,816
#define SMEM_BYTES (2 * C_TILE_BYTES + 2 * (BM * A_LD + BK * B_LD))  // 83,456: two tiles of C, A, B

extern "C" __global__ void __launch_bounds__(NTHREADS, 2)
hgemm_wmma_stream(int M, int N, int K, float alpha, const __half* __restrict__ A,
                  const __half* __restrict__ B, float beta, float* __restrict__ C)
{
    extern __shared__ __align__(128) unsigned char smem[];
    float* const Cbuf = reinterpret_cast<float*>(smem);                  // two tiles of C
    __half* const As = reinterpret_cast<__half*>(smem + 2 * C_TILE_BYTES);
    __half* const Bs = As + BM * A_LD;

    const int tid = threadIdx.x, warp = tid / 32;
    const int wRow = (warp / 4) * 32, wCol = (warp % 4) * 32;
    const int tilesN = (N + BN - 1) / BN, tiles = tilesN * ((M + BM - 1) / BM);
    // This thread's column of a tile, and its rows there: firstRow, firstRow + 2, ...
    const int col = tid % BN, firstRow = tid / BN;
    const bool readC = beta != 0.0f;

    // Copy tile t's C into buffer `into` (zeros outside C); one commit group, empty without C.
    auto copyC = [&](int t, float* into) {
        if (readC && t < tiles) {
            const int bm = (t / tilesN) * BM, c = (t % tilesN) * BN + col;
#pragma unroll
            for (int i = 0; i < C_PER; ++i) {
                const int r = firstRow + ROWS_AT_ONCE * i;
                const bool in = c < N && bm + r < M;
                const float* src = in ? C + (size_t)(bm + r) * N + c : C;
                cp_async_4z(smem_u32(into + r * C_LD + col), src, in ? 4u : 0u);
            }
        }
        cp_async_commit();
    };

    // A's chunk: row aRow, k aCol..+7 of the k tile; B's: rows bRow + 16j, columns bCol..+7.
    const int aRow = tid / (BK / 8), aCol = 8 * (tid % (BK / 8));
    const int bRow = tid / (BN / 8), bCol = 8 * (tid % (BN / 8));
    unsigned ra[5], rb[B_CHUNKS][5];                      // the next k tile's chunks as raw words
    copyC(blockIdx.x, Cbuf);
    for (int t = blockIdx.x, round = 0; t < tiles; t += gridDim.x, ++round) {
        const int bm = (t / tilesN) * BM, bn = (t % tilesN) * BN;
        const bool colIn = bn + col < N;
        float* const Cs = Cbuf + (round & 1) * (C_TILE_BYTES / 4);
        __syncthreads();                                  // the last tile's stores have read the other buffer
        copyC(t + gridDim.x, Cbuf + ((round + 1) & 1) * (C_TILE_BYTES / 4));

        auto fetch = [&](int k0) {
            fetch_words(ra, A, M, K, bm + aRow, k0 + aCol);
#pragma unroll
            for (int j = 0; j < B_CHUNKS; ++j) fetch_words(rb[j], B, K, N, k0 + bRow + B_ROWS_AT_ONCE * j, bn + bCol);
        };

        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

        const int kTiles = (K + BK - 1) / BK;
        fetch(0);
        for (int kt = 0; kt < kTiles; ++kt) {
            if (kt > 0) __syncthreads();                  // the previous k tile's MMAs are done reading
            const int k0 = kt * BK;
            unsigned v[4];
            chunk(v, ra, A, M, K, bm + aRow, k0 + aCol);
            st_shared_16(smem_u32(As + aRow * A_LD + aCol), v);
#pragma unroll
            for (int j = 0; j < B_CHUNKS; ++j) {
                const int r = bRow + B_ROWS_AT_ONCE * j;
                chunk(v, rb[j], B, K, N, k0 + r, bn + bCol);
                st_shared_16(smem_u32(Bs + r * B_LD + bCol), v);
            }
            __syncthreads();
            if (kt + 1 < kTiles) fetch((kt + 1) * BK);    // in flight during the MMAs below
#pragma unroll
            for (int kk = 0; kk < BK; kk += 16) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[2];
#pragma unroll
                for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(fa[i], As + (wRow + 16 * i) * A_LD + kk, A_LD);
#pragma unroll
                for (int j = 0; j < 2; ++j) {
                    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
                    wmma::load_matrix_sync(fb, Bs + kk * B_LD + wCol + 16 * j, B_LD);
#pragma unroll
                    for (int i = 0; i < 2; ++i) wmma::mma_sync(acc[i][j], fa[i], fb, acc[i][j]);
                }
            }
        }

        cp_async_wait<1>();                               // this tile's C (the next one's may fly on)
        __syncthreads();                                  // every thread's copies have landed
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int j = 0; j < 2; ++j) {
                float* const tile = Cs + (wRow + 16 * i) * C_LD + wCol + 16 * j;
                wmma::fragment<wmma::accumulator, 16, 16, 16, float> old;
                if (readC) wmma::load_matrix_sync(old, tile, C_LD, wmma::mem_row_major);
#pragma unroll
                for (int e = 0; e < acc[i][j].num_elements; ++e)
                    acc[i][j].x[e] = alpha * acc[i][j].x[e] + (readC ? beta * old.x[e] : 0.0f);
                wmma::store_matrix_sync(tile, acc[i][j], C_LD, wmma::mem_row_major);
            }
        __syncthreads();
        if (colIn) {
#pragma unroll
            for (int i = 0; i < C_PER; ++i) {
                const int r = firstRow + ROWS_AT_ONCE * i;
                if (bm + r < M) C[(size_t)(bm + r) * N + bn + col] = Cs[r * C_LD + col];
            }
        }
    }
    cp_async_wait<0>();                                   // no copy outlives the CTA
}
