// cutlass128x128x8: the CUTLASS SIMT SGEMM design, 128x128x8 tile, 256 threads.
//
// Predecessor: doublebuffer (same register-staged pipeline: two shared buffers, fragments
// double-buffered in registers, one barrier per k tile; cpasync's cp.async comes back in
// cutlass128x256x8). What doublebuffer still pays for, and the changes:
// (1) The broadcast limit of LDS.128. Shared memory returns 128 bytes per cycle, one 32-bit
//     register for all 32 lanes, so an LDS.128 takes 4 wavefronts unless lanes pair up on equal
//     addresses: when every lane n reads the address of lane n^1 (or every lane that of lane
//     n^2) two lanes' results are packed together and 2 wavefronts do. In warptile's and
//     doublebuffer's layout (tr = lane/4, tc = lane%4) the A loads pair up but the B loads do
//     not: 3 wavefronts per LDS.128 on average. Here the lanes of a warp form a 4x8 grid whose
//     row index tr takes lane bits {1, 4} and whose column index tc takes lane bits {0, 2, 3}: A
//     (depends on tr only) is equal on lanes n and n^1, B (tc only) on lanes n and n^2. Every
//     fragment load should take 2 wavefronts, 8 per k step instead of 12, and the 64 distinct
//     bytes of A and 128 of B per load are free of bank conflicts.
// (2) Warp tile 32x64 (warps 4 down, 2 across), a lane's 8x8 results at rows
//     wRow + mi*16 + tr*4 + i, columns wCol + ni*32 + tc*4 + j (mi, ni < 2; i, j < 4).
// (3) One shared array holds both buffers; the read and write offsets are switched with an XOR
//     (0 <-> STAGE), so every fragment load is [base + offset register + immediate].
// (4) A is stored transposed with rows padded to 132 floats: the four transposing STS.32 of a
//     warp hit 32 different banks. B goes in as one STS.128 per thread.
// (5) C goes out through shared memory (kernels/staged_epilogue.cuh): each warp stages 4 rows x
//     64 columns at a time (rows of 80 floats: no bank conflicts within any quarter warp, writing
//     or reading), reads them back as 16 float4s per row and writes 256 contiguous bytes per row.
//     beta is applied there: C is read with the same coalesced float4s, and only when beta != 0.
// (6) Full tiles only (contract below): no bounds checks anywhere in the main loop.
//
// Contract: block (256), grid (N / 128, M / 128); 16,640 bytes of static shared memory; 2 blocks
// per SM (<= 128 registers). M and N multiples of 128, K a multiple of 8; matrices 16-byte
// aligned. beta == 0: C is not read.

#include "staged_epilogue.cuh"

#define BM 128
#define BN 128
#define BK 8
#define NTHREADS 256
#define AS_LD (BM + 4)                 // padded row of the transposed A tile
#define A_STAGE (BK * AS_LD)           // 1056 floats
#define B_STAGE (BK * BN)              // 1024 floats
#define STAGE (A_STAGE + B_STAGE)      // 2080 floats = 8320 bytes per buffer

extern "C" __global__ void __launch_bounds__(NTHREADS, 2)
sgemm_cutlass128x128x8(int M, int N, int K, float alpha, const float* __restrict__ A,
                       const float* __restrict__ B, float beta, float* __restrict__ C)
{
    // Buffer b (b = 0, 1) at smem[b * STAGE]: As[k][m] (A_STAGE floats), then Bs[k][n].
    __shared__ __align__(16) float smem[2 * STAGE];

    const int tid = threadIdx.x;
    const int warp = tid >> 5, lane = tid & 31;
    const int bm = blockIdx.y * BM;
    const int bn = blockIdx.x * BN;

    // Compute mapping. Warps 4 (M) x 2 (N), warp tile 32x64. Lane grid 4x8:
    // tr = lane bits (4, 1), tc = lane bits (3, 2, 0): see (1) in the header.
    const int wRow = (warp >> 1) * 32;                  // 0, 32, 64, 96
    const int wCol = (warp & 1) * 64;                   // 0, 64
    const int tr = ((lane >> 1) & 1) | ((lane >> 3) & 2);  // 0..3
    const int tc = (lane & 1) | ((lane >> 1) & 6);         // 0..7

    // Load mapping, one float4 of each tile per thread, full tiles:
    //   A (128x8): row aRow, k aK..aK+3             B (8x128): row bK, columns bCol..bCol+3
    const int aRow = tid >> 1, aK = (tid & 1) * 4;
    const int bK = tid >> 5, bCol = (tid & 31) * 4;
    const float* gA = A + (size_t)(bm + aRow) * K + aK;
    const float* gB = B + (size_t)bK * N + bn + bCol;

    // Thread-constant shared-memory positions (floats, buffer 0).
    float* const sAw = smem + aK * AS_LD + aRow;          // + c*AS_LD, c < 4
    float* const sBw = smem + A_STAGE + bK * BN + bCol;
    const float* const sAr = smem + wRow + tr * 4;        // + k*AS_LD + mi*16
    const float* const sBr = smem + A_STAGE + wCol + tc * 4;  // + k*BN + ni*32

    // Staging registers of the next tile; tile 0 goes through them first.
    float4 ldA = *reinterpret_cast<const float4*>(gA);
    float4 ldB = *reinterpret_cast<const float4*>(gB);
    auto storeTile = [&](int off) {
        sAw[off + 0 * AS_LD] = ldA.x;
        sAw[off + 1 * AS_LD] = ldA.y;
        sAw[off + 2 * AS_LD] = ldA.z;
        sAw[off + 3 * AS_LD] = ldA.w;
        *reinterpret_cast<float4*>(sBw + off) = ldB;
    };

    float4 fa[2][2], fb[2][2];  // fragments: [set][mi], [set][ni]
    auto loadFrag = [&](int set, int off, int k) {
        fa[set][0] = *reinterpret_cast<const float4*>(sAr + off + k * AS_LD);
        fa[set][1] = *reinterpret_cast<const float4*>(sAr + off + k * AS_LD + 16);
        fb[set][0] = *reinterpret_cast<const float4*>(sBr + off + k * BN);
        fb[set][1] = *reinterpret_cast<const float4*>(sBr + off + k * BN + 32);
    };

    float acc[8][8];  // acc[mi*4 + i][ni*4 + j]
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;
    auto fma = [&](int set) {
        const float a[8] = {fa[set][0].x, fa[set][0].y, fa[set][0].z, fa[set][0].w,
                            fa[set][1].x, fa[set][1].y, fa[set][1].z, fa[set][1].w};
        const float b[8] = {fb[set][0].x, fb[set][0].y, fb[set][0].z, fb[set][0].w,
                            fb[set][1].x, fb[set][1].y, fb[set][1].z, fb[set][1].w};
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int jj = 0; jj < 8; ++jj) {
                const int j = (i & 1) ? 7 - jj : jj;  // serpentine: operand reuse across rows
                acc[i][j] += a[i] * b[j];
            }
    };

    const int nTiles = K / BK;
    storeTile(0);
    __syncthreads();
    int rd = 0;      // offset of the buffer being read (tile t)
    int wr = STAGE;  // offset of the other buffer (tile t+1 is written there)
    loadFrag(0, rd, 0);

    for (int t = 0; t < nTiles; ++t) {
        const bool more = t + 1 < nTiles;  // uniform
#pragma unroll
        for (int d = 0; d < BK; ++d) {
            if (d == BK - 1 && more) {
                // The other buffer held tile t-1, last read before the barrier of iteration
                // t-1. After this barrier tile t+1 is visible to all and the roles swap.
                storeTile(wr);
                __syncthreads();
                rd ^= STAGE;
                wr ^= STAGE;
            }
            if (d < BK - 1)
                loadFrag((d + 1) & 1, rd, d + 1);
            else if (more)
                loadFrag(0, rd, 0);  // rd is already tile t+1's buffer
            if (d == 0 && more) {    // next tile in flight during this tile's FFMAs
                gA += BK;
                gB += (size_t)BK * N;
                ldA = *reinterpret_cast<const float4*>(gA);
                ldB = *reinterpret_cast<const float4*>(gB);
            }
            fma(d & 1);
        }
    }

    // Epilogue through shared memory. All warps must be done reading the last tile first.
    __syncthreads();
    store_c_through_smem<2, 0, false>(reinterpret_cast<float4*>(smem) + warp * CS_LD, acc, C, M, N,
                                      bm + wRow, bn, wCol, lane, tr, tc, alpha, beta);
}
