// tf32x3: FP32 accuracy on TF32 tensor cores by error compensation ("3xTF32").
//
// Predecessor: tf32x1 (same tiles, same pipeline). tf32x1 rounds each FP32 input to TF32 (10-bit
// mantissa) and loses the FP32 bound by orders of magnitude. Here each input x is split into two
// TF32 numbers, big = tf32(x) and small = tf32(x - big) (split_tf32 in tf32_mma.cuh): big + small
// is x to within 2^-22 |x|. A product is then
//     a b = big_a big_b + big_a small_b + small_a big_b + small_a small_b,
// and the last term (at most 2^-22 |a b|) is dropped: three TF32 MMAs per k step, products exact,
// sums in FP32 in the tensor core. Per k step the two small terms are issued first and
// big_a big_b last. The MMAs of one k tile accumulate into a fresh partial tile, which is added to
// the running FP32 accumulator with FADD (round to nearest): the additions inside mma round
// toward zero, a bias that grows with K when one accumulator runs over the whole of K (1024 more
// registers of partial sums per warp buy an error that grows like sqrt(K), as strict SGEMM's).
//
// Tiles as tf32x1: block tile 128x128x16, 8 warps (2 down, 4 across) of 64x32 = 4x4 m16n8
// accumulator tiles, 3-stage cp.async pipeline of FP32 tiles in padded shared memory (A rows of
// 20 floats, B rows of 136: conflict-free fragment loads). The split is done as fragments move
// from shared memory to registers: per k8 step a thread splits its 16 A and 8 B elements once
// each (3 instructions per element) and reuses them over the 4x4 tiles (48 MMAs).
//
// Contract: M and N multiples of 128, K a multiple of 16 (whole tiles, no bounds checks); A, B,
// C 16-byte aligned. beta == 0: C is not read. Launch: block (256), grid (N / 128, M / 128),
// SMEM_BYTES of dynamic shared memory (the launcher opts in above 48 KB). Needs sm_80.

#include "tf32_tile128.cuh"

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
sgemm_tf32x3(int M, int N, int K, float alpha, const float* __restrict__ A,
             const float* __restrict__ B, float beta, float* __restrict__ C)
{
    extern __shared__ __align__(128) float smem[];

    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int g = lane / 4, t = lane % 4;
    const int bm = blockIdx.y * BM;
    const int bn = blockIdx.x * BN;
    const int wRow = (warp / 4) * 64;  // 0, 64
    const int wCol = (warp % 4) * 32;  // 0, 32, 64, 96

    Tile128Copies copies(A, B, N, K, smem, bm, bn, tid);  // this thread's cp.async copies of each k tile

    float acc[MI][NI][4];
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;

    const int kTiles = K / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < kTiles) copies.load(s);
        cp_async_commit();
    }

    for (int kt = 0; kt < kTiles; ++kt) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();  // tile kt visible to all; every warp is done with tile kt-1's stage
        if (kt + STAGES - 1 < kTiles) copies.load((kt + STAGES - 1) % STAGES);
        cp_async_commit();

        const float* As = smem + (kt % STAGES) * STAGE;
        const float* Bs = As + A_STAGE;
        // The tile's products go into a fresh accumulator, added to acc with FADD (round to
        // nearest) once per k tile: inside mma the additions into D round toward zero, a bias that
        // would grow with K on a long-running accumulator.
        float part[MI][NI][4];
#pragma unroll
        for (int i = 0; i < MI; ++i)
#pragma unroll
            for (int j = 0; j < NI; ++j)
#pragma unroll
                for (int r = 0; r < 4; ++r) part[i][j][r] = 0.0f;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            uint32_t aBig[MI][4], aSmall[MI][4], bBig[NI][2], bSmall[NI][2];
#pragma unroll
            for (int i = 0; i < MI; ++i) {
                const float* a = As + (wRow + i * 16 + g) * A_LD + kk + t;
                split_tf32(a[0], aBig[i][0], aSmall[i][0]);
                split_tf32(a[8 * A_LD], aBig[i][1], aSmall[i][1]);
                split_tf32(a[4], aBig[i][2], aSmall[i][2]);
                split_tf32(a[8 * A_LD + 4], aBig[i][3], aSmall[i][3]);
            }
#pragma unroll
            for (int j = 0; j < NI; ++j) {
                const float* b = Bs + (kk + t) * B_LD + wCol + j * 8 + g;
                split_tf32(b[0], bBig[j][0], bSmall[j][0]);
                split_tf32(b[4 * B_LD], bBig[j][1], bSmall[j][1]);
            }
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
                for (int j = 0; j < NI; ++j) mma_tf32(part[i][j], aSmall[i], bBig[j]);
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
                for (int j = 0; j < NI; ++j) mma_tf32(part[i][j], aBig[i], bSmall[j]);
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
                for (int j = 0; j < NI; ++j) mma_tf32(part[i][j], aBig[i], bBig[j]);
        }
#pragma unroll
        for (int i = 0; i < MI; ++i)
#pragma unroll
            for (int j = 0; j < NI; ++j)
#pragma unroll
                for (int r = 0; r < 4; ++r) acc[i][j][r] += part[i][j][r];
    }
    cp_async_wait<0>();

    store_tile128(acc, C, N, bm, bn, wRow, wCol, g, t, alpha, beta);
}
