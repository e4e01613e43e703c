// cutlass128x256x8: 128x256x8 tile, 16x8 results per thread, 4-stage cp.async pipeline.
//
// Predecessor: cutlass128x128x8. On sm_90 an SM issues one warp instruction per cycle per
// scheduler and an FFMA needs the whole cycle, so every non-FFMA instruction is an FFMA lost.
// cutlass128x128x8 spends 4 LDS.128 per 64 FFMAs plus per-tile LDG/STS/barrier work: at best
// ~92% of issue slots are FFMAs. Idea:
// (1) Twice the results per thread: 16x8 (128 accumulators), fed by 6 LDS.128 per 128 FFMAs,
//     about 95% FFMA issue slots at best. The cost is registers (close to the 255 limit), so one
//     block of 256 threads per SM: 8 warps, 2 per scheduler, which the register double buffering
//     of the fragments has to make enough.
// (2) cpasync's cp.async pipeline instead of cutlass128x128x8's register staging: four
//     shared-memory stages (12,416 bytes each, 49,664 bytes of dynamic shared memory), tiles
//     t+1..t+3 in flight while tile t is multiplied, one cp.async.wait_group + __syncthreads per
//     k tile, no staging registers, no STS instructions. A is transposed by 4-byte cp.async (a
//     warp: 8 consecutive k of 4 rows, 32 distinct banks at k*132 + row); B moves as 16-byte
//     cp.async.cg.
// (3) cutlass128x128x8's lane layout, so every LDS.128 is 2 wavefronts: warps 2 (M) x 4 (N),
//     warp tile 64x64, lane grid 4x8 with tr = lane bits (4, 1), tc = lane bits (3, 2, 0); a lane
//     owns rows wRow + mi*16 + tr*4 + i (mi < 4) and columns wCol + ni*32 + tc*4 + j (ni < 2).
// (4) cutlass128x128x8's epilogue (kernels/staged_epilogue.cuh): C through shared memory, 4 rows
//     x 64 columns per warp at a time, beta applied on the coalesced float4s (C read only when
//     beta != 0).
// Full tiles only: no bounds checks.
//
// Contract: block (256), grid (N / 256, M / 128), 49,664 bytes of dynamic shared memory (the
// launcher raises the opt-in limit above 48 KB); one block per SM; sm_80+. M a multiple of 128,
// N of 256, K of 8; matrices 16-byte aligned. beta == 0: C is not read.

#include "cp_async.cuh"
#include "staged_epilogue.cuh"

#define BM 128
#define BN 256
#define BK 8
#define STAGES 4
#define NTHREADS 256
#define AS_LD (BM + 4)                 // padded row of the transposed A tile
#define A_STAGE (BK * AS_LD)           // 1056 floats
#define B_STAGE (BK * BN)              // 2048 floats
#define STAGE (A_STAGE + B_STAGE)      // 3104 floats = 12,416 bytes
#define SMEM_BYTES (STAGES * STAGE * 4)  // 49,664: the manifest's smem_bytes


extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
sgemm_cutlass128x256x8(int M, int N, int K, float alpha, const float* __restrict__ A,
                       const float* __restrict__ B, float beta, float* __restrict__ C)
{
    // Stage s at smem[s * STAGE]: As[k][m] (A_STAGE floats), then Bs[k][n] (B_STAGE floats).
    extern __shared__ __align__(16) float smem[];

    const int tid = threadIdx.x;
    const int warp = tid >> 5, lane = tid & 31;
    const int bm = blockIdx.y * BM;
    const int bn = blockIdx.x * BN;

    const int wRow = (warp >> 2) * 64;                     // 0, 64
    const int wCol = (warp & 3) * 64;                      // 0, 64, 128, 192
    const int tr = ((lane >> 1) & 1) | ((lane >> 3) & 2);  // 0..3
    const int tc = (lane & 1) | ((lane >> 1) & 6);         // 0..7

    // Copy mapping per k tile:
    //   A (128x8 scalars): (row aRow + 32*l, k aK), l < 4, aRow = tid/8, aK = tid%8
    //   B (8x256 = 512 float4s): (row bK + 4*l, columns bCol..bCol+3), l < 2, bK = tid/64,
    //   bCol = (tid%64)*4: a warp copies 512 contiguous bytes.
    const int aRow = tid >> 3, aK = tid & 7;
    const int bK = tid >> 6, bCol = (tid & 63) * 4;
    const float* gA = A + (size_t)(bm + aRow) * K + aK;  // + 32*l*K; += BK per tile
    const float* gB = B + (size_t)bK * N + bn + bCol;    // + 4*l*N;  += BK*N per tile
    const size_t aStep = (size_t)32 * K, bStep = (size_t)4 * N;
    const unsigned sbase = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    const unsigned sAw = sbase + 4u * (aK * AS_LD + aRow);          // + 128*l bytes
    const unsigned sBw = sbase + 4u * (A_STAGE + bK * BN + bCol);   // + 4*BN*4*l bytes

    auto loadTile = [&](int s) {  // the tile gA/gB point at, into stage s
        const unsigned so = 4u * STAGE * s;
#pragma unroll
        for (int l = 0; l < 4; ++l) cp_async_4(sAw + so + 128u * l, gA + l * aStep);
#pragma unroll
        for (int l = 0; l < 2; ++l) cp_async_16(sBw + so + 16u * BN * l, gB + l * bStep);
        gA += BK;
        gB += (size_t)BK * N;
    };

    const float* const sAr = smem + wRow + tr * 4;            // + k*AS_LD + mi*16
    const float* const sBr = smem + A_STAGE + wCol + tc * 4;  // + k*BN + ni*32
    float4 fa[2][4], fb[2][2];  // fragments: [set][mi], [set][ni]
    auto loadFrag = [&](int set, int off, int k) {
#pragma unroll
        for (int mi = 0; mi < 4; ++mi)
            fa[set][mi] = *reinterpret_cast<const float4*>(sAr + off + k * AS_LD + mi * 16);
#pragma unroll
        for (int ni = 0; ni < 2; ++ni)
            fb[set][ni] = *reinterpret_cast<const float4*>(sBr + off + k * BN + ni * 32);
    };

    float acc[16][8];  // acc[mi*4 + i][ni*4 + j]
#pragma unroll
    for (int i = 0; i < 16; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;
    auto fma = [&](int set) {
        float a[16], b[8];
#pragma unroll
        for (int mi = 0; mi < 4; ++mi) {
            a[mi * 4 + 0] = fa[set][mi].x; a[mi * 4 + 1] = fa[set][mi].y;
            a[mi * 4 + 2] = fa[set][mi].z; a[mi * 4 + 3] = fa[set][mi].w;
        }
#pragma unroll
        for (int ni = 0; ni < 2; ++ni) {
            b[ni * 4 + 0] = fb[set][ni].x; b[ni * 4 + 1] = fb[set][ni].y;
            b[ni * 4 + 2] = fb[set][ni].z; b[ni * 4 + 3] = fb[set][ni].w;
        }
#pragma unroll
        for (int i = 0; i < 16; ++i)
#pragma unroll
            for (int jj = 0; jj < 8; ++jj) {
                const int j = (i & 1) ? 7 - jj : jj;  // serpentine: operand reuse across rows
                acc[i][j] += a[i] * b[j];
            }
    };

    const int nTiles = K / BK;
    // Prologue: tiles 0..STAGES-2 into stages 0..STAGES-2, one commit group per tile slot
    // (empty past the last tile), so that group g always belongs to tile g.
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < nTiles) loadTile(s);
        cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();  // tile 0 has landed (this thread's part)
    __syncthreads();              // ... and everybody's
    int rs = 0;                   // stage of tile t
    int ws = STAGES - 1;          // stage of tile t + STAGES - 1 (== stage of tile t - 1)
    loadFrag(0, 0, 0);

    for (int t = 0; t < nTiles; ++t) {
        const bool more = t + 1 < nTiles;  // uniform
#pragma unroll
        for (int d = 0; d < BK; ++d) {
            if (d == BK - 1 && more) {
                // Committed: groups of tiles 0..t+STAGES-1. <= STAGES-2 pending: tile t+1 is in.
                cp_async_wait<STAGES - 2>();
                __syncthreads();
                rs = rs + 1 == STAGES ? 0 : rs + 1;
            }
            if (d < BK - 1)
                loadFrag((d + 1) & 1, rs * STAGE, d + 1);
            else if (more)
                loadFrag(0, rs * STAGE, 0);  // rs is already tile t+1's stage
            if (d == 0) {
                // Stage ws held tile t-1: every thread read it for the last time before the
                // barrier of iteration t-1, which this thread has passed.
                if (t + STAGES - 1 < nTiles) loadTile(ws);
                cp_async_commit();
                ws = ws + 1 == STAGES ? 0 : ws + 1;
            }
            fma(d & 1);
        }
    }
    cp_async_wait<0>();  // only empty groups can be pending; drain them before reusing smem
    __syncthreads();     // all warps done reading the last tile

    store_c_through_smem<4, 0, false>(reinterpret_cast<float4*>(smem) + warp * CS_LD, acc, C, M, N,
                                      bm + wRow, bn, wCol, lane, tr, tc, alpha, beta);
}
