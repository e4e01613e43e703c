// texld128x128x8: cutlass128x128x8's design with A and B fetched as float4 texels from 1D linear
// textures.
//
// Predecessor: cutlass128x128x8 (same tiles, lane layout, XOR-switched shared buffers and
// shared-memory epilogue; see its header). Idea: take ragged shapes without load predicates.
// What changes is the read path of A and B: each thread's float4 of the next tile comes from
// tex1Dfetch<float4> on a 1D linear texture over the row-major buffer (cudaResourceTypeLinear,
// 4 x 32-bit float channels, element-type reads; the launcher makes the texture objects,
// kernels/ladder.toml: textures = ["A", "B"], and passes them as the trailing arguments texA,
// texB; the A and B pointers stay in the signature, unused).
//
// What the texture buys: a fetch past the end of the buffer returns zero and never faults (the
// CUDA runtime ignores addressMode for linear resources; out-of-range tex1Dfetch reads 0), so
// the loads need no predicates:
//   * M edge: A rows >= M lie past the end of A. Whatever they read (zero, or any texel once the
//     unsigned index wraps) only feeds rows of C that are not stored.
//   * N edge: B columns >= N of row k run on into row k+1 (nonzero!) and past the end for the last
//     row: they only feed columns of C that are not stored.
//   * K tail (K % 8 == 4, the last tile half past K): B rows >= K lie wholly past the end of B and
//     read exactly zero, so their products vanish.
// What it does not buy: zero at the end of a row, only at the end of the whole buffer.
//   * A's k >= K run on into row m+1, which is not zero. Finite values times B's zero rows add
//     nothing, but Inf or NaN in row m+1 would make row m's results NaN through 0 * Inf. So the
//     A fetch of a tile's k >= K half is redirected to texel M*K/4 (past the end): one ISETP +
//     SEL per k tile, the only bounds instructions left in the main loop.
//   * Texels are 4 floats: a row must be a whole number of texels, so K % 4 == 0 (A) and
//     N % 4 == 0 (B); and a linear texture's base must be aligned to the device's
//     textureAlignment (typically 512 bytes; fresh CuPy buffers are), which the launcher checks.
//   * The C stores: N % 4 == 0 keeps each float4 of C wholly inside or outside, and the epilogue
//     stores (and, with beta != 0, reads) only rows < M and columns < N.
// The cost against cutlass128x128x8, in the SASS of the main loop: a few more instructions per
// k tile (the texture handles, K and N reloaded from the uniform datapath, 32-bit texel steps,
// the K-tail ISETP + SEL, a DEPBAR for the texture results, branches around the store-and-barrier
// block), and a longer epilogue (row and column checks around each of its float4 stores).
// Against bounds-checked LDG it saves the zero fill of masked loads.
//
// Contract: block (256), grid (cdiv(N, 128), cdiv(M, 128)); 16,640 bytes of static shared memory;
// 2 blocks per SM. N % 4 == 0, K % 4 == 0, any M (cutlass128x128x8 needs M, N multiples of 128,
// K of 8). beta == 0: C is not read. Limit: at most cudaDeviceGetTexture1DLinearMaxWidth(float4)
// texels per matrix (creating the texture object fails beyond it).

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
sgemm_texld128x128x8(int M, int N, int K, float alpha, const float* __restrict__ A,
                     const float* __restrict__ B, float beta, float* __restrict__ C,
                     cudaTextureObject_t texA, cudaTextureObject_t texB)
{
    // A and B are not dereferenced: texA and texB are 1D linear textures over the same buffers
    // (float4 texels: texel t of A holds A's floats 4t..4t+3 in row-major order).
    (void)A;
    (void)B;
    // Buffer b (b = 0, 1) at smem[b * STAGE]: As[k][m] (A_STAGE floats), then Bs[k][n].
    __shared__ __align__(16) float smem[2 * STAGE];

    const int tid = threadIdx.x;
    const int warp = tid >> 5, lane = tid & 31;
    const int bm = blockIdx.y * BM;
    const int bn = blockIdx.x * BN;

    // Compute mapping (cutlass128x128x8's): warps 4 (M) x 2 (N), warp tile 32x64, lane grid 4x8 with
    // tr = lane bits (4, 1), tc = lane bits (3, 2, 0).
    const int wRow = (warp >> 1) * 32;                  // 0, 32, 64, 96
    const int wCol = (warp & 1) * 64;                   // 0, 64
    const int tr = ((lane >> 1) & 1) | ((lane >> 3) & 2);  // 0..3
    const int tc = (lane & 1) | ((lane >> 1) & 6);         // 0..7

    // Load mapping (cutlass128x128x8's), one float4 texel of each tile per thread:
    //   A (128x8): row aRow, k aK..aK+3             B (8x128): row bK, columns bCol..bCol+3
    // Texel indices in unsigned arithmetic: rows past M and columns past N may give any index
    // (their results are never stored); a fetch never faults.
    const int aRow = tid >> 1, aK = (tid & 1) * 4;
    const int bK = tid >> 5, bCol = (tid & 31) * 4;
    const unsigned K4 = (unsigned)K >> 2, N4 = (unsigned)N >> 2;  // row lengths in texels
    const unsigned endA = (unsigned)M * K4;  // texels in A: the first index past its end
    unsigned tA = (unsigned)(bm + aRow) * K4 + (tid & 1);        // texel (row, aK) of tile 0
    unsigned tB = (unsigned)bK * N4 + (unsigned)((bn + bCol) >> 2);
    int kA = aK;  // this thread's k in A of the tile being fetched
    // Past K, A's texels run on into the next row (not zero); B's rows past K lie past the end of
    // B and read zero. The A texel is redirected past the end as well, so a non-finite A value
    // cannot leak into the previous row's results through 0 * Inf.
    auto fetchA = [&]() { return tex1Dfetch<float4>(texA, (int)(kA < K ? tA : endA)); };
    auto fetchB = [&]() { return tex1Dfetch<float4>(texB, (int)tB); };

    // Thread-constant shared-memory positions (floats, buffer 0).
    float* const sAw = smem + aK * AS_LD + aRow;          // + c*AS_LD, c < 4
    float* const sBw = smem + A_STAGE + bK * BN + bCol;
    const float* const sAr = smem + wRow + tr * 4;        // + k*AS_LD + mi*16
    const float* const sBr = smem + A_STAGE + wCol + tc * 4;  // + k*BN + ni*32

    // Staging registers of the next tile; tile 0 goes through them first.
    float4 ldA = fetchA();
    float4 ldB = fetchB();
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

    const int nTiles = (K + BK - 1) / BK;  // the last tile may be half past K (K % 8 == 4)
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
                tA += BK / 4;
                kA += BK;
                tB += BK * N4;
                ldA = fetchA();
                ldB = fetchB();
            }
            fma(d & 1);
        }
    }

    // Epilogue through shared memory (cutlass128x128x8's), with the stores of C bounds-checked: N % 4 == 0,
    // so each float4 of a row is wholly inside or wholly outside C.
    __syncthreads();
    store_c_through_smem<2, 0, true>(reinterpret_cast<float4*>(smem) + warp * CS_LD, acc, C, M, N,
                                      bm + wRow, bn, wCol, lane, tr, tc, alpha, beta);
}
