// The block tile of the mma.sync TF32 rungs (tf32x1, tf32x3): its geometry, its cp.async copies
// and its epilogue.
//
// Idea: block tile 128x128x16, 8 warps (2 down, 4 across) of 64x32 = MI x NI = 4x4 m16n8
// accumulator tiles; FP32 tiles in padded shared memory (A rows of A_LD = 20 floats, B rows of
// B_LD = 136: conflict-free fragment loads), STAGES of them for the cp.async pipeline. C leaves
// from the m16n8 accumulator layout (tf32_mma.cuh) as float2 stores.
//
// Contract: M and N multiples of 128, K a multiple of 16 (whole tiles, no bounds checks); A, B,
// C 16-byte aligned; SMEM_BYTES of dynamic shared memory. Tile128Copies: `smem` is the kernel's
// dynamic shared memory; load(s) issues (does not commit) the copies of the next k tile into
// stage s. store_tile128: acc[i][j] is the m16n8
// tile at rows wRow + 16i, columns wCol + 8j of the block tile at (bm, bn) (g = lane / 4,
// t = lane % 4); C = alpha * acc + beta * C, C not read when beta == 0.
#pragma once

#include "tf32_mma.cuh"

#define BM 128
#define BN 128
#define BK 16
#define STAGES 3
#define NTHREADS 256
#define A_LD (BK + 4)                 // 20 floats per shared row of A (As[m][k])
#define B_LD (BN + 8)                 // 136 floats per shared row of B (Bs[k][n])
#define A_STAGE (BM * A_LD)           // 2560 floats
#define B_STAGE (BK * B_LD)           // 2176 floats
#define STAGE (A_STAGE + B_STAGE)     // 4736 floats = 18,944 bytes
#define SMEM_BYTES (STAGES * STAGE * 4)  // 56,832: the manifest's smem_bytes
#define MI 4                          // m16 tiles per warp (64 rows)
#define NI 4                          // n8 tiles per warp (32 columns)

// Copy mapping, 16-byte chunks (4 floats), two of each tile per thread (l < 2):
//   A (128x16 = 512 chunks): row aRow + 64*l, floats aC..aC+3; aRow = tid/4, aC = (tid%4)*4
//   B (16x128 = 512 chunks): row bRow + 8*l, floats bC..bC+3; bRow = tid/32, bC = (tid%32)*4
struct Tile128Copies {
    const float* gA;  // += BK per tile
    const float* gB;  // += BK*N per tile
    unsigned sAw, sBw;
    int N, K;

    __device__ __forceinline__ Tile128Copies(const float* A, const float* B, int N_, int K_, float* smem, int bm, int bn, int tid)
    {
        const int aRow = tid / 4, aC = (tid % 4) * 4;
        const int bRow = tid / 32, bC = (tid % 32) * 4;
        N = N_;
        K = K_;
        gA = A + (size_t)(bm + aRow) * K + aC;
        gB = B + (size_t)bRow * N + bn + bC;
        const unsigned sbase = static_cast<unsigned>(__cvta_generic_to_shared(smem));
        sAw = sbase + 4u * (aRow * A_LD + aC);
        sBw = sbase + 4u * (A_STAGE + bRow * B_LD + bC);
    }

    // The tile gA/gB point at, into stage s; then advance them.
    __device__ __forceinline__ void load(int s)
    {
        const unsigned so = 4u * STAGE * s;
#pragma unroll
        for (int l = 0; l < 2; ++l) {
            cp_async_16(sAw + so + 4u * 64 * A_LD * l, gA + (size_t)64 * l * K);
            cp_async_16(sBw + so + 4u * 8 * B_LD * l, gB + (size_t)8 * l * N);
        }
        gA += BK;
        gB += (size_t)BK * N;
    }
};

__device__ __forceinline__ void store_tile128(const float (&acc)[MI][NI][4], float* __restrict__ C, int N, int bm, int bn,
                                              int wRow, int wCol, int g, int t, float alpha, float beta)
{
    // Epilogue: c[0..1] at row g, columns 2t and 2t+1 of each m16n8 tile; c[2..3] 8 rows down.
#pragma unroll
    for (int i = 0; i < MI; ++i) {
#pragma unroll
        for (int j = 0; j < NI; ++j) {
            const int col = bn + wCol + j * 8 + 2 * t;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int row = bm + wRow + i * 16 + g + 8 * h;
                float2* c = reinterpret_cast<float2*>(C + (size_t)row * N + col);
                float2 v = make_float2(alpha * acc[i][j][2 * h], alpha * acc[i][j][2 * h + 1]);
                if (beta != 0.0f) {
                    const float2 old = *c;
                    v.x += beta * old.x;
                    v.y += beta * old.y;
                }
                *c = v;
            }
        }
    }
}
