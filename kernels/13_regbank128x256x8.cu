// regbank128x256x8: cutlass128x256x8's tile and pipeline with the accumulators moved out of the
// B fragments' register banks.
//
// Predecessor: cutlass128x256x8. Idea: no FFMA reads two fresh operands from one register bank,
// so the FFMAs stop stalling at dispatch (the predecessor's profile shows far more dispatch stalls
// than cuBLAS's; the SASS says why).
//
// Register file of sm_90: four banks (register number mod 4); an FFMA whose source operands
// (those not served by the operand reuse cache) share a bank waits a cycle at dispatch. In
// cutlass128x256x8's SASS every accumulator quad acc[i][0..3] sits in an aligned quadruple (ptxas
// needs one for the STS.128 of the epilogue) and so does every B fragment quad (LDS.128
// destination): acc[i][j] and b[j] are both in bank j % 4, e.g. `FFMA R5, R132.reuse, R137, R5`.
// The A operand comes from the reuse cache, the other two collide, in nearly every FFMA of its
// main loop. cuBLAS's FFMA block has no such pair (`FFMA R7, R132, R136, R7`,
// `FFMA R11, R132, R137, R11`: accumulator banks 3, 3 against B banks 0, 1).
// Change: the epilogue stores each accumulator quad rotated by ROT (STS.128 slot q holds column
// (q + ROT) % 4) and un-rotates when it reads the staged float4 back. ptxas then allocates
// acc[i][j] in bank (j - ROT) % 4 != bank of b[j]. Nothing else differs from cutlass128x256x8,
// whose header explains the tile, lane layout, pipeline and epilogue.
//
// Contract: block (256), grid (N / 256, M / 128), 49,664 bytes of dynamic shared memory; one
// block per SM; sm_80+. M % 128, N % 256, K % 8; 16-byte aligned matrices. beta == 0: C is not
// read.

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
#define SMEM_BYTES (STAGES * STAGE * 4)  // the manifest's smem_bytes
static_assert(SMEM_BYTES == 49664, "update smem_bytes in kernels/ladder.toml");
#define ROT 1                          // accumulator quad rotation (register banks)


extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
sgemm_regbank128x256x8(int M, int N, int K, float alpha, const float* __restrict__ A,
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

    store_c_through_smem<4, ROT, false>(reinterpret_cast<float4*>(smem) + warp * CS_LD, acc, C, M, N,
                                      bm + wRow, bn, wCol, lane, tr, tc, alpha, beta);
}
