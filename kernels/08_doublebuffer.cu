// doublebuffer: double buffering at both levels, shared memory and registers.
//
// Predecessor: warptile. warptile already keeps two k tiles in shared memory (the next tile is
// fetched from global memory into registers while the current one is multiplied). What it does
// not hide is the latency of the shared-memory fragment loads: at every k step the four LDS.128
// are issued right before the 64 FFMAs that need them, and with only 4 warps per scheduler
// (2 blocks of 8 warps per SM) the scheduler can run out of other warps to issue from while they
// are in flight. Idea, three changes:
// (1) Fragments are double-buffered in registers: the LDS.128s of k step d+1 are issued before
//     the 64 FFMAs of step d, so their ~30-cycle latency hides behind those FFMAs. Across tiles
//     the same holds: at the last k step of a tile the staged next tile is written to the other
//     shared buffer, one __syncthreads, the first fragments of the next tile are loaded, and only
//     then come the last 64 FFMAs of the current tile (the CUTLASS "pipelined" order).
// (2) The global loads of the next tile are issued after the first fragment loads of a tile
//     (the LDS have the tighter latency requirement), and written to shared memory at its end.
// (3) BK goes back from 16 to 8. 64 accumulators, 2 x 16 fragment registers, the staging
//     registers (16 for a 16-deep tile, 8 for an 8-deep one) and addressing must fit under 128
//     registers for 2 blocks of 256 threads per SM; unconstrained, ptxas asks for more than 128
//     at either depth. Both fit without spills, but the smaller tile leaves ptxas less to squeeze
//     out of the schedule. Still one barrier per k tile (now per 8 k steps).
// The warp/lane layout, the padded transposed A tile and the epilogue are warptile's.
//
// Contract: block (256), grid (cdiv(N, 128), cdiv(M, 128)); 16,640 bytes of static shared memory.
// N and K multiples of 4 (float4 alignment of rows of A, B and C; the matrices must be 16-byte
// aligned). M, N, K need not be multiples of the tile: out-of-range float4s are loaded as zeros
// and never stored. beta == 0: C is not read.

#define BM 128
#define BN 128
#define BK 8
#define WM 64                   // warp tile rows
#define WN 32                   // warp tile columns
#define NTHREADS 256            // (BM / WM) * (BN / WN) = 8 warps
#define AS_LD (BM + 4)          // padded row of the transposed A tile

extern "C" __global__ void __launch_bounds__(NTHREADS, 2)
sgemm_doublebuffer(int M, int N, int K, float alpha, const float* __restrict__ A,
                   const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __align__(16) float As[2][BK][AS_LD];  // As[buf][k][m]: transposed
    __shared__ __align__(16) float Bs[2][BK][BN];     // Bs[buf][k][n]

    const int tid = threadIdx.x;
    const int bm = blockIdx.y * BM;
    const int bn = blockIdx.x * BN;

    // Compute mapping (warptile's): warp tile 64x32 at (wRow, wCol); lane (tr, tc) owns rows
    // wRow + mi*32 + tr*4 + i and columns wCol + ni*16 + tc*4 + j (mi, ni < 2; i, j < 4).
    const int warp = tid / 32, lane = tid % 32;
    const int wRow = (warp / (BN / WN)) * WM;  // 0 or 64
    const int wCol = (warp % (BN / WN)) * WN;  // 0, 32, 64, 96
    const int tr = lane / 4;                   // 0..7
    const int tc = lane % 4;                   // 0..3

    // Load mapping, one float4 of each tile per thread:
    //   A (128x8): row aRow, k = aCol..aCol+3        B (8x128): row bRow, columns bCol..bCol+3
    const int aRow = tid / 2, aCol = (tid % 2) * 4;
    const int bRow = tid / 32, bCol = (tid % 32) * 4;
    const bool aRowOk = bm + aRow < M;
    const bool bColOk = bn + bCol < N;  // N % 4 == 0: then the whole float4 is in range
    const float* aPtr = A + (size_t)(aRowOk ? bm + aRow : 0) * K + aCol;
    const float* bPtr = B + (size_t)bRow * N + (bColOk ? bn + bCol : 0);

    float4 aReg, bReg;  // staging registers for the next k tile
    auto loadTile = [&](int k0) {
        const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
        // K % 4 == 0: a float4 that starts below K ends below K.
        aReg = (aRowOk && k0 + aCol < K) ? *reinterpret_cast<const float4*>(aPtr + k0) : zero;
        bReg = (bColOk && k0 + bRow < K)
                   ? *reinterpret_cast<const float4*>(bPtr + (size_t)k0 * N) : zero;
    };
    auto storeTile = [&](int buf) {
        As[buf][aCol + 0][aRow] = aReg.x;  // transpose on the way in; AS_LD = 132 puts the two
        As[buf][aCol + 1][aRow] = aReg.y;  // k halves of a warp 16 banks apart: no conflicts
        As[buf][aCol + 2][aRow] = aReg.z;
        As[buf][aCol + 3][aRow] = aReg.w;
        *reinterpret_cast<float4*>(&Bs[buf][bRow][bCol]) = bReg;
    };

    // Fragment registers, two sets: fa[set][mi] = A rows wRow + mi*32 + tr*4 .. +3 at one k,
    // fb[set][ni] = B columns wCol + ni*16 + tc*4 .. +3 at the same k.
    float4 fa[2][2], fb[2][2];
    auto loadFrag = [&](int set, int buf, int d) {
        fa[set][0] = *reinterpret_cast<const float4*>(&As[buf][d][wRow + tr * 4]);
        fa[set][1] = *reinterpret_cast<const float4*>(&As[buf][d][wRow + 32 + tr * 4]);
        fb[set][0] = *reinterpret_cast<const float4*>(&Bs[buf][d][wCol + tc * 4]);
        fb[set][1] = *reinterpret_cast<const float4*>(&Bs[buf][d][wCol + 16 + tc * 4]);
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
                const int j = (i & 1) ? 7 - jj : jj;  // serpentine: b[j] reused across rows
                acc[i][j] += a[i] * b[j];
            }
    };

    const int nTiles = (K + BK - 1) / BK;
    loadTile(0);
    storeTile(0);
    __syncthreads();
    loadFrag(0, 0, 0);

    for (int t = 0; t < nTiles; ++t) {
        const int cur = t & 1;
        const bool more = t + 1 < nTiles;  // the same in every thread: the barrier is uniform
#pragma unroll
        for (int d = 0; d < BK; ++d) {
            if (d == BK - 1 && more) {
                // Buffer cur^1 held tile t-1, whose last fragment loads came before the barrier
                // of iteration t-1: safe to overwrite. After the barrier tile t+1 is visible.
                storeTile(cur ^ 1);
                __syncthreads();
            }
            if (d < BK - 1)
                loadFrag((d + 1) & 1, cur, d + 1);  // next k step of this tile
            else if (more)
                loadFrag(0, cur ^ 1, 0);            // first k step of the next tile (BK even)
            if (d == 0 && more) loadTile((t + 1) * BK);  // in flight during this tile's FFMAs
            fma(d & 1);
        }
    }

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
