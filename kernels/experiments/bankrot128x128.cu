// bankrot128x128 (experiment): two blocks per SM of 128x128x16 tiles, 8x8 results per thread,
// 4-stage cp.async pipeline, bank-rotated accumulators, at most 128 registers.
//
// Predecessor: cutlass128x128x8. Idea: cutlass128x128x8 (128x128x8, 2 blocks per SM) loses most
// to barrier and long-scoreboard stalls: it stages the next tile through registers and syncs
// once per 8 k. The cp.async pipeline of cutlass128x256x8 removes the staging registers and the
// long-scoreboard wait, a k tile of 16 halves the barriers per FFMA, and two blocks per SM keep
// the 8 warps of one block from all bursting their post-barrier LDS.128 together (the other block
// is elsewhere in its tile). The accumulators sit in register banks other than the B fragments'
// (regbank128x256x8's rotation, ROT: cutlass128x128x8's SASS pairs acc[i][j] with b[j] in one
// bank).
//
// Design: warps 4 (M) x 2 (N), warp tile 32x64, cutlass128x128x8's lane grid (tr, tc): a lane owns
// rows wRow + mi*16 + tr*4 + i (mi < 2) and columns wCol + ni*32 + tc*4 + j (ni < 2): 2 + 2
// LDS.128 (2 wavefronts each) per 64 FFMA. The pipeline and the epilogue are cutlass128x256x8's
// (read BN = 128, BK = 16, MI = 2): its header explains them.
//
// Contract: block (256), grid (N / 128, M / 128), 66,560 bytes of dynamic shared memory (two
// blocks: 133 KB of the SM's 228 KB on sm_90); sm_80+. M % 128, N % 128, K % 16; 16-byte aligned
// matrices. beta == 0: C is not read.

#include "../cp_async.cuh"

#define BM 128
#define BN 128
#define BK 16
#define STAGES 4
#define MI 2                           // 16-row groups per lane (8 rows)
#define NTHREADS 256
#define AS_LD (BM + 4)                 // padded row of the transposed A tile
#define A_STAGE (BK * AS_LD)           // 2112 floats
#define B_STAGE (BK * BN)              // 2048 floats
#define STAGE (A_STAGE + B_STAGE)      // 4160 floats = 16,640 bytes
#define SMEM_BYTES (STAGES * STAGE * 4)  // experiments.toml: smem_bytes
static_assert(SMEM_BYTES == 66560, "update smem_bytes in experiments.toml");
#define ROT 1                          // accumulator quad rotation (register banks)
#define CS_LD 80                       // row of the epilogue staging tile (64 + 16 floats)


extern "C" __global__ void __launch_bounds__(NTHREADS, 2)
sgemm_bankrot128x128(int M, int N, int K, float alpha, const float* __restrict__ A,
                       const float* __restrict__ B, float beta, float* __restrict__ C)
{
    // Stage s at smem[s * STAGE]: As[k][m] (A_STAGE floats), then Bs[k][n] (B_STAGE floats).
    extern __shared__ __align__(16) float smem[];

    const int tid = threadIdx.x;
    const int warp = tid >> 5, lane = tid & 31;
    const int bm = blockIdx.y * BM;
    const int bn = blockIdx.x * BN;

    const int wRow = (warp >> 1) * 32;                     // 0, 32, 64, 96
    const int wCol = (warp & 1) * 64;                      // 0, 64
    const int tr = ((lane >> 1) & 1) | ((lane >> 3) & 2);  // 0..3
    const int tc = (lane & 1) | ((lane >> 1) & 6);         // 0..7

    // Copy mapping per k tile:
    //   A (128x8 scalars): (row aRow + 32*l, k aK), l < 4, aRow = tid/8, aK = tid%8
    //   B (8x256 = 512 float4s): (row bK + 4*l, columns bCol..bCol+3), l < 2, bK = tid/64,
    //   bCol = (tid%64)*4: a warp copies 512 contiguous bytes.
    const int aRow = tid >> 3, aK = tid & 7;
    const int bK = tid >> 5, bCol = (tid & 31) * 4;
    const float* gA = A + (size_t)(bm + aRow) * K + aK;  // + 32*l*K; += BK per tile
    const float* gB = B + (size_t)bK * N + bn + bCol;    // + 4*l*N;  += BK*N per tile
    const size_t aStep = (size_t)32 * K;
    const unsigned sbase = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    const unsigned sAw = sbase + 4u * (aK * AS_LD + aRow);          // + 128*l bytes
    const unsigned sBw = sbase + 4u * (A_STAGE + bK * BN + bCol);   // + 4*BN*4*l bytes

    auto loadTile = [&](int s) {  // the tile gA/gB point at, into stage s
        const unsigned so = 4u * STAGE * s;
#pragma unroll
        for (int h = 0; h < BK / 8; ++h)
#pragma unroll
            for (int l = 0; l < 4; ++l) cp_async_4(sAw + so + 4u * 8 * AS_LD * h + 128u * l, gA + l * aStep + 8 * h);
#pragma unroll
        for (int h = 0; h < BK / 8; ++h) cp_async_16(sBw + so + 4u * 8 * BN * h, gB + (size_t)8 * h * N);
        gA += BK;
        gB += (size_t)BK * N;
    };

    const float* const sAr = smem + wRow + tr * 4;            // + k*AS_LD + mi*16
    const float* const sBr = smem + A_STAGE + wCol + tc * 4;  // + k*BN + ni*32
    float4 fa[2][MI], fb[2][2];  // fragments: [set][mi], [set][ni]
    auto loadFrag = [&](int set, int off, int k) {
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
            fa[set][mi] = *reinterpret_cast<const float4*>(sAr + off + k * AS_LD + mi * 16);
#pragma unroll
        for (int ni = 0; ni < 2; ++ni)
            fb[set][ni] = *reinterpret_cast<const float4*>(sBr + off + k * BN + ni * 32);
    };

    float acc[MI * 4][8];  // acc[mi*4 + i][ni*4 + j]
#pragma unroll
    for (int i = 0; i < MI * 4; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;
    auto fma = [&](int set) {
        float a[MI * 4], b[8];
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) {
            a[mi * 4 + 0] = fa[set][mi].x; a[mi * 4 + 1] = fa[set][mi].y;
            a[mi * 4 + 2] = fa[set][mi].z; a[mi * 4 + 3] = fa[set][mi].w;
        }
#pragma unroll
        for (int ni = 0; ni < 2; ++ni) {
            b[ni * 4 + 0] = fb[set][ni].x; b[ni * 4 + 1] = fb[set][ni].y;
            b[ni * 4 + 2] = fb[set][ni].z; b[ni * 4 + 3] = fb[set][ni].w;
        }
#pragma unroll
        for (int i = 0; i < MI * 4; ++i)
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

    // This warp's staging tile, 4 rows of CS_LD floats, addressed in float4s (CS_LD / 4 per
    // row). A lane writes row tr, columns ni*32 + tc*4 .. +3 (float4 tc + 8*ni), and reads back
    // rows rr and rr + 2, columns cc .. cc+3 (float4 lane % 16).
    float4* const cs4 = reinterpret_cast<float4*>(smem) + warp * CS_LD;
    float4* const csw = cs4 + tr * (CS_LD / 4) + tc;
    const int rr = lane >> 4;
    const int cc = (lane & 15) * 4;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            // Staged row r is global row bm + wRow + mi*16 + r*4 + i; staged column c is
            // global column bn + wCol + c.
#pragma unroll
            for (int ni = 0; ni < 2; ++ni)
                // Rotated quad (see the header): register slot q of the STS.128 holds column
                // (q + ROT) % 4, so ptxas keeps acc[.][j] in a register of bank (j - ROT) % 4.
                csw[ni * 8] = make_float4(acc[mi * 4 + i][ni * 4 + (0 + ROT) % 4], acc[mi * 4 + i][ni * 4 + (1 + ROT) % 4],
                                          acc[mi * 4 + i][ni * 4 + (2 + ROT) % 4], acc[mi * 4 + i][ni * 4 + (3 + ROT) % 4]);
            __syncwarp();
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = rr + 2 * h;
                const float4 q = cs4[r * (CS_LD / 4) + (lane & 15)];
                const float qq[4] = {q.x, q.y, q.z, q.w};
                const float4 s = make_float4(qq[(4 - ROT) % 4], qq[(5 - ROT) % 4], qq[(6 - ROT) % 4], qq[(7 - ROT) % 4]);
                float* const cp = C + (size_t)(bm + wRow + mi * 16 + r * 4 + i) * N + bn + wCol + cc;
                float4 v = make_float4(alpha * s.x, alpha * s.y, alpha * s.z, alpha * s.w);
                if (beta != 0.0f) {
                    const float4 c = *reinterpret_cast<const float4*>(cp);
                    v.x += beta * c.x;
                    v.y += beta * c.y;
                    v.z += beta * c.z;
                    v.w += beta * c.w;
                }
                *reinterpret_cast<float4*>(cp) = v;
            }
            __syncwarp();  // reads done before the next chunk overwrites the staging tile
        }
}
