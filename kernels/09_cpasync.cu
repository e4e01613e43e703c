// cpasync: a 4-stage cp.async pipeline from global straight to shared memory.
//
// Predecessor: doublebuffer. doublebuffer moves every k tile through registers: LDG into 8
// staging registers, then STS into the other buffer at the end of the tile. The staging registers
// count against the 128-register cap, the STS can only issue once the LDG has returned (so a slow
// load stalls the warp right before the barrier), and only one tile is ever in flight. Idea:
// (1) cp.async (LDGSTS, sm_80+; kernels/cp_async.cuh) copies global memory into shared memory
//     without passing through registers: no staging registers, nothing for the warp to wait on
//     until it needs the data.
// (2) Four shared-memory stages: tiles t+1, t+2, t+3 are in flight while tile t is multiplied,
//     so the global latency is covered three times over. One __syncthreads per k tile, preceded
//     by cp.async.wait_group(STAGES - 2): this thread's copies of the next tile have landed, and
//     after the barrier everybody's have.
// (3) A is still transposed on the way in (As[k][m], rows padded to 132 floats), now by 4-byte
//     cp.asyncs: a warp copies 8 consecutive k of 4 rows (4 to 8 32-byte sectors), and the 32
//     destinations (k*132 + row) fall in 32 different banks. B moves as 16-byte cp.async.cg.
// (4) Boundaries without branches: A rows past M and B columns past N are clamped to the last
//     valid row/column (those results are never stored), and k past K is zero-filled with the
//     src-size operand of cp.async (0 bytes read, 4 or 16 bytes of zeros written). So K needs no
//     alignment at all.
// Compute (warp/lane layout, fragment double buffering) and the epilogue are doublebuffer's.
//
// Contract: block (256), grid (cdiv(N, 128), cdiv(M, 128)); 33,280 bytes of static shared memory;
// sm_80+. N a multiple of 4 (16-byte rows of B and C; the matrices must be 16-byte aligned); any
// M and K. beta == 0: C is not read.

#include <cstdint>
#include "cp_async.cuh"

#define BM 128
#define BN 128
#define BK 8
#define STAGES 4
#define WM 64                   // warp tile rows
#define WN 32                   // warp tile columns
#define NTHREADS 256            // (BM / WM) * (BN / WN) = 8 warps
#define AS_LD (BM + 4)          // padded row of the transposed A tile

// A tile element is copied when it lies inside the matrix and zero-filled when not.
__device__ __forceinline__ void load_or_zero_4(float* dst, const float* src, bool inside)
{
    cp_async_4z(smem_u32(dst), src, inside ? 4 : 0);
}

__device__ __forceinline__ void load_or_zero_16(float* dst, const float* src, bool inside)
{
    cp_async_16z(smem_u32(dst), src, inside ? 16 : 0);
}

extern "C" __global__ void __launch_bounds__(NTHREADS, 2)
sgemm_cpasync(int M, int N, int K, float alpha, const float* __restrict__ A,
              const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __align__(16) float As[STAGES][BK][AS_LD];  // As[stage][k][m]: transposed
    __shared__ __align__(16) float Bs[STAGES][BK][BN];     // Bs[stage][k][n]

    const int tid = threadIdx.x;
    const int bm = blockIdx.y * BM;
    const int bn = blockIdx.x * BN;

    // Compute mapping (warptile's and doublebuffer's): warp tile 64x32 at (wRow, wCol); lane (tr, tc) owns rows
    // wRow + mi*32 + tr*4 + i and columns wCol + ni*16 + tc*4 + j (mi, ni < 2; i, j < 4).
    const int warp = tid / 32, lane = tid % 32;
    const int wRow = (warp / (BN / WN)) * WM;  // 0 or 64
    const int wCol = (warp % (BN / WN)) * WN;  // 0, 32, 64, 96
    const int tr = lane / 4;                   // 0..7
    const int tc = lane % 4;                   // 0..3

    // Copy mapping per k tile:
    //   A (128x8 scalars): element (row aRow + 32*l, k aK) for l < 4: aRow = tid/8, aK = tid%8.
    //   B (8x128, one float4): row bRow = tid/32, columns bCol..bCol+3.
    // Rows of A past M read row M-1, columns of B past N read columns N-4..N-1 (N % 4 == 0):
    // valid memory, garbage only in results that are never stored.
    const int aRow = tid / 8, aK = tid % 8;
    const int bRow = tid / 32, bCol = (tid % 32) * 4;
    const float* aSrc[4];
#pragma unroll
    for (int l = 0; l < 4; ++l) aSrc[l] = A + (size_t)min(bm + aRow + 32 * l, M - 1) * K + aK;
    const float* bSrc = B + (size_t)bRow * N + min(bn + bCol, N - 4);

    const int nTiles = (K + BK - 1) / BK;
    // Issue the copies of tile `tile` into stage `s`; k at or past K is zero-filled, and its
    // source address is the matrix base (never dereferenced: src-size 0).
    auto loadTile = [&](int tile, int s) {
        const int k0 = tile * BK;
        const bool aOk = k0 + aK < K;
#pragma unroll
        for (int l = 0; l < 4; ++l)
            load_or_zero_4(&As[s][aK][aRow + 32 * l], aOk ? aSrc[l] + k0 : A, aOk);
        const bool bOk = k0 + bRow < K;
        load_or_zero_16(&Bs[s][bRow][bCol], bOk ? bSrc + (size_t)k0 * N : B, bOk);
    };

    float4 fa[2][2], fb[2][2];  // fragments, two sets (see doublebuffer)
    auto loadFrag = [&](int set, int s, int d) {
        fa[set][0] = *reinterpret_cast<const float4*>(&As[s][d][wRow + tr * 4]);
        fa[set][1] = *reinterpret_cast<const float4*>(&As[s][d][wRow + 32 + tr * 4]);
        fb[set][0] = *reinterpret_cast<const float4*>(&Bs[s][d][wCol + tc * 4]);
        fb[set][1] = *reinterpret_cast<const float4*>(&Bs[s][d][wCol + 16 + tc * 4]);
    };

    float acc[8][8] = {};  // acc[mi*4 + i][ni*4 + j]
    auto fma = [&](int set) {
        const float a[8] = {fa[set][0].x, fa[set][0].y, fa[set][0].z, fa[set][0].w,
                            fa[set][1].x, fa[set][1].y, fa[set][1].z, fa[set][1].w};
        const float b[8] = {fb[set][0].x, fb[set][0].y, fb[set][0].z, fb[set][0].w,
                            fb[set][1].x, fb[set][1].y, fb[set][1].z, fb[set][1].w};
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int jj = 0; jj < 8; ++jj) {
                const int j = (i & 1) ? 7 - jj : jj;
                acc[i][j] += a[i] * b[j];
            }
    };

    // Prologue: tiles 0 .. STAGES-2 into stages 0 .. STAGES-2, one commit group each (empty
    // groups past the last tile keep the group count uniform: group g always holds tile g).
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < nTiles) loadTile(s, s);
        cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();  // groups committed: tiles 0..STAGES-2; tile 0 has landed
    __syncthreads();
    loadFrag(0, 0, 0);

    int rs = 0;           // stage of tile t
    int ws = STAGES - 1;  // stage of tile t + STAGES - 1 (== stage of tile t-1)
    for (int t = 0; t < nTiles; ++t) {
        const bool more = t + 1 < nTiles;  // uniform
        const int rsNext = rs + 1 == STAGES ? 0 : rs + 1;
#pragma unroll
        for (int d = 0; d < BK; ++d) {
            if (d == BK - 1 && more) {
                // Groups committed so far: tiles 0 .. t+STAGES-1. At most STAGES-2 pending means
                // tile t+1 has landed (for this thread; after the barrier, for all threads).
                cp_async_wait<STAGES - 2>();
                __syncthreads();
            }
            if (d < BK - 1)
                loadFrag((d + 1) & 1, rs, d + 1);
            else if (more)
                loadFrag(0, rsNext, 0);
            if (d == 0) {
                // Stage ws held tile t-1; every thread's last read of it (its k = 7 fragments)
                // came before the barrier of iteration t-1, which this thread has passed.
                if (t + STAGES - 1 < nTiles) loadTile(t + STAGES - 1, ws);
                cp_async_commit();
            }
            fma(d & 1);
        }
        rs = rsNext;
        ws = ws + 1 == STAGES ? 0 : ws + 1;
    }
    cp_async_wait<0>();  // nothing real is pending (only empty groups), but leave none behind

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = bm + wRow + (i / 4) * 32 + tr * 4 + (i % 4);
        if (row >= M) continue;
#pragma unroll
        for (int ni = 0; ni < 2; ++ni) {
            const int col = bn + wCol + ni * 16 + tc * 4;
            if (col >= N) continue;  // N % 4 == 0: col < N means col + 3 < N
            float4* cp = reinterpret_cast<float4*>(C + (size_t)row * N + col);
            float4 v = make_float4(alpha * acc[i][ni * 4 + 0], alpha * acc[i][ni * 4 + 1],
                                   alpha * acc[i][ni * 4 + 2], alpha * acc[i][ni * 4 + 3]);
            if (beta != 0.0f) {
                const float4 c = *cp;
                v.x += beta * c.x;
                v.y += beta * c.y;
                v.z += beta * c.z;
                v.w += beta * c.w;
            }
            *cp = v;
        }
    }
}
