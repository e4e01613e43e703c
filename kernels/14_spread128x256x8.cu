// spread128x256x8: regbank128x256x8 with a branch-free k tile and the next step's fragments
// loaded in two halves, so the shared loads spread among the FFMAs instead of queueing in bursts.
//
// Predecessor: regbank128x256x8. Idea: (1) the k tile is one basic block, (2) at most 3 LDS.128
// in a row.
//
// (1) Branch-free tile. regbank128x256x8's unrolled k tile is four basic blocks: `if (more)`
// around the wait + barrier, `if (more)` around the next tile's first fragment loads and
// `if (t + 3 < nTiles)` around the cp.async copies each become a BRA, and ptxas schedules within
// a basic block only. Its SASS: 12 of the 48 LDS.128 sit back to back right before the BAR (step
// 6's and 7's fragments, sunk to the end of their block) and 6 more in a row after it. Change:
// every tile does the same thing, so the tile is one basic block ending in the back edge.
//   - the wait + __syncthreads run every tile (one barrier too many in the block's last tile);
//   - the next tile's step-0 fragments are always loaded (in the last tile: stale, in-bounds
//     shared memory, never used);
//   - the cp.async copies are always issued, with src-size 0 (zero-fill, nothing read from
//     global memory) for tiles past the end of K.
//
// (2) Split fragment loads. With (1) alone (the experiment kernel flat128x256) ptxas hoists all
// 6 LDS.128 of step k+1 to the start of step k (runs of 6-7 back to back): 8 warps that left the
// same barrier queue 48 LDS.128 (96 wavefronts) on the MIO at once. Here each step issues the B
// quads and A quad 0 of the next step, multiplies rows 0..7, then issues A quads 1..3 and
// multiplies rows 8..15; the second half of the loads depends on nothing but ptxas keeps it after
// the first 64 FFMAs.
//
// Contract: block (256), grid (N / 256, M / 128), 49,664 bytes of dynamic shared memory; one
// block per SM; sm_80+. M % 128, N % 256, K % 8; 16-byte aligned matrices. beta == 0: C is not
// read. The tile, lane layout, pipeline and epilogue are cutlass128x256x8's: its header explains
// them.

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
sgemm_spread128x256x8(int M, int N, int K, float alpha, const float* __restrict__ A,
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
    auto loadTileZ = [&](int s, bool real) {  // as loadTile; zero-fill without reading if !real
        const unsigned so = 4u * STAGE * s;
        const unsigned n4 = real ? 4u : 0u, n16 = real ? 16u : 0u;
#pragma unroll
        for (int l = 0; l < 4; ++l) cp_async_4z(sAw + so + 128u * l, gA + l * aStep, n4);
#pragma unroll
        for (int l = 0; l < 2; ++l) cp_async_16z(sBw + so + 16u * BN * l, gB + l * bStep, n16);
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
    auto loadFragHalf = [&](int set, int off, int k, int h) {  // h 0: B quads + A quad 0; h 1: A quads 1..3
        if (h == 0) {
#pragma unroll
            for (int ni = 0; ni < 2; ++ni)
                fb[set][ni] = *reinterpret_cast<const float4*>(sBr + off + k * BN + ni * 32);
            fa[set][0] = *reinterpret_cast<const float4*>(sAr + off + k * AS_LD);
        } else {
#pragma unroll
            for (int mi = 1; mi < 4; ++mi)
                fa[set][mi] = *reinterpret_cast<const float4*>(sAr + off + k * AS_LD + mi * 16);
        }
    };
    auto fma = [&](int set, int half) {  // rows half*8 .. half*8+7
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
        for (int i = half * 8; i < half * 8 + 8; ++i)
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
#pragma unroll
        for (int d = 0; d < BK; ++d) {
            if (d == BK - 1) {
                // Committed: groups of tiles 0..t+STAGES-1. <= STAGES-2 pending: tile t+1 is in
                // (in the last tile: nothing to wait for; the barrier is one too many).
                cp_async_wait<STAGES - 2>();
                __syncthreads();
                rs = rs + 1 == STAGES ? 0 : rs + 1;
            }
            // d == BK-1: tile t+1's step 0 (rs is already its stage); in the last tile a stale
            // stage, loaded and never used.
            // Next step's fragments in two halves around this step's first 8 rows of FFMAs.
            loadFragHalf((d + 1) & 1, rs * STAGE, (d + 1) & (BK - 1), 0);
            if (d == 0) {
                // Stage ws held tile t-1: every thread read it for the last time before the
                // barrier of iteration t-1, which this thread has passed. Past the end of K:
                // zero-fill, no global read (the pointers are not dereferenced).
                loadTileZ(ws, t + STAGES - 1 < nTiles);
                cp_async_commit();
                ws = ws + 1 == STAGES ? 0 : ws + 1;
            }
            fma(d & 1, 0);
            loadFragHalf((d + 1) & 1, rs * STAGE, (d + 1) & (BK - 1), 1);
            fma(d & 1, 1);
        }
    }
    cp_async_wait<0>();  // only empty groups can be pending; drain them before reusing smem
    __syncthreads();     // all warps done reading the last tile

    store_c_through_smem<4, ROT, false>(reinterpret_cast<float4*>(smem) + warp * CS_LD, acc, C, M, N,
                                      bm + wRow, bn, wCol, lane, tr, tc, alpha, beta);
}
