// tf32x1: FP32 inputs on TF32 tensor cores, one MMA per product (fast, not FP32-accurate).
//
// Predecessor: wmma_smem (the same 128x128 block of 8 warps and 3-stage cp.async pipeline, on
// FP16). The first rung of the fp32-tc tier, whose contract is FP32 in, FP32 out and the FP32
// error bound: each FP32 element of A and B is rounded to TF32 (cvt.rna, 10-bit mantissa,
// relative error up to 2^-11) as it moves from shared memory to registers and multiplied with
// mma.sync m16n8k8 (FP32 accumulate). The rounding of the inputs alone gives a relative error
// near 2^-11 / sqrt(3), far above the FP32 tolerance (4 u sqrt(K), u = 2^-24): verification must
// FAIL this rung, and a FAIL is never timed. It is on the ladder as the speed 1xTF32 would have and
// the error it costs (cuBLAS FAST_TF32 is the same trade); tf32x3 recovers FP32 accuracy.
//
// Block tile 128x128x16, 8 warps (2 down, 4 across) of 64x32 = 4x4 m16n8 accumulator tiles;
// FP32 tiles in padded shared memory (A rows of 20 floats, B rows of 136: conflict-free
// fragment loads); per k8 step a thread converts 16 A and 8 B elements and issues 16 MMAs.
//
// Contract: M and N multiples of 128, K a multiple of 16 (whole tiles, no bounds checks); A, B,
// C 16-byte aligned. beta == 0: C is not read. Launch: block (256), grid (N / 128, M / 128),
// SMEM_BYTES of dynamic shared memory (the launcher opts in above 48 KB). Needs sm_80.

#include "tf32_tile128.cuh"

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
sgemm_tf32x1(int M, int N, int K, float alpha, const float* __restrict__ A,
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
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            uint32_t a[MI][4], b[NI][2];
#pragma unroll
            for (int i = 0; i < MI; ++i) {
                const float* p = As + (wRow + i * 16 + g) * A_LD + kk + t;
                a[i][0] = to_tf32(p[0]);
                a[i][1] = to_tf32(p[8 * A_LD]);
                a[i][2] = to_tf32(p[4]);
                a[i][3] = to_tf32(p[8 * A_LD + 4]);
            }
#pragma unroll
            for (int j = 0; j < NI; ++j) {
                const float* p = Bs + (kk + t) * B_LD + wCol + j * 8 + g;
                b[j][0] = to_tf32(p[0]);
                b[j][1] = to_tf32(p[4 * B_LD]);
            }
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
                for (int j = 0; j < NI; ++j) mma_tf32(acc[i][j], a[i], b[j]);
        }
    }
    cp_async_wait<0>();

    store_tile128(acc, C, N, bm, bn, wRow, wCol, g, t, alpha, beta);
}
