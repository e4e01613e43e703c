// warptile: block tile -> warp tile -> thread micro-tile, double-buffered k tiles.
//
// Predecessor: vectorized. Idea, two changes:
// (1) Warp tiling. The 8 warps of a block each own a 64x32 piece of the 128x128 C tile (2 warps
//     down, 4 across). Inside it a lane owns an 8x8 micro-tile made of 2x2 sub-tiles of 4x4:
//     rows mi*32 + tr*4 + i, columns ni*16 + tc*4 + j (tr = lane/4, tc = lane%4; mi, ni in {0,1}).
//     A warp's fragment reads stay inside a compact 64x32 footprint: each LDS.128 of A covers 8
//     distinct float4s (128 contiguous bytes), each of B 4 float4s (64 contiguous bytes), with no
//     bank conflicts. The transposed A tile is stored with rows padded to 132 floats; in a warp
//     the two k halves land 16 banks apart, so those stores are conflict-free as well.
// (2) BK = 16 and two shared-memory buffers: the next k tile is fetched from global memory into
//     registers while the current one is multiplied, then written to the other buffer. One
//     __syncthreads per 16 k steps instead of two per 8, and the global latency hides behind the
//     FMAs. The shared-load wavefronts are the same as vectorized's, so the gain should come
//     mostly from (2).
//
// Contract: block (256), grid (cdiv(N, 128), cdiv(M, 128)); 33,280 bytes of static shared memory.
// N and K multiples of 4 (float4 alignment of rows of A, B and C; the matrices must be 16-byte
// aligned). M, N, K need not be multiples of the tile: out-of-range float4s are loaded as zeros
// and never stored. beta == 0: C is not read.

#define BM 128
#define BN 128
#define BK 16
#define WM 64                   // warp tile rows
#define WN 32                   // warp tile columns
#define NTHREADS 256            // (BM / WM) * (BN / WN) = 8 warps
#define AS_LD (BM + 4)          // padded row of the transposed A tile

extern "C" __global__ void __launch_bounds__(NTHREADS, 2)
sgemm_warptile(int M, int N, int K, float alpha, const float* __restrict__ A,
               const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __align__(16) float As[2][BK][AS_LD];  // As[buf][k][m]: transposed
    __shared__ __align__(16) float Bs[2][BK][BN];     // Bs[buf][k][n]

    const int tid = threadIdx.x;
    const int bm = blockIdx.y * BM;
    const int bn = blockIdx.x * BN;

    // Compute mapping (see header). wRow/wCol: this warp's offset inside the block tile.
    const int warp = tid / 32, lane = tid % 32;
    const int wRow = (warp / (BN / WN)) * WM;  // 0 or 64
    const int wCol = (warp % (BN / WN)) * WN;  // 0, 32, 64, 96
    const int tr = lane / 4;                   // 0..7
    const int tc = lane % 4;                   // 0..3

    // Load mapping, two float4s of each tile per thread (l = 0, 1):
    //   A (128x16): row aRow, k = aCol + 8*l .. +3     B (16x128): row bRow + 8*l, columns bCol..+3
    const int aRow = tid / 2, aCol = (tid % 2) * 4;
    const int bRow = tid / 32, bCol = (tid % 32) * 4;
    const bool aRowOk = bm + aRow < M;
    const bool bColOk = bn + bCol < N;  // N % 4 == 0: then the whole float4 is in range
    const float* aPtr = A + (size_t)(aRowOk ? bm + aRow : 0) * K + aCol;
    const float* bPtr = B + (size_t)bRow * N + (bColOk ? bn + bCol : 0);

    float4 aReg[2], bReg[2];  // staging registers for one k tile
    auto loadTile = [&](int k0) {
#pragma unroll
        for (int l = 0; l < 2; ++l) {
            const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
            // K % 4 == 0: a float4 that starts below K ends below K.
            aReg[l] = (aRowOk && k0 + aCol + 8 * l < K)
                          ? *reinterpret_cast<const float4*>(aPtr + k0 + 8 * l) : zero;
            bReg[l] = (bColOk && k0 + bRow + 8 * l < K)
                          ? *reinterpret_cast<const float4*>(bPtr + (size_t)(k0 + 8 * l) * N)
                          : zero;
        }
    };
    auto storeTile = [&](int buf) {
#pragma unroll
        for (int l = 0; l < 2; ++l) {
            As[buf][aCol + 8 * l + 0][aRow] = aReg[l].x;
            As[buf][aCol + 8 * l + 1][aRow] = aReg[l].y;
            As[buf][aCol + 8 * l + 2][aRow] = aReg[l].z;
            As[buf][aCol + 8 * l + 3][aRow] = aReg[l].w;
            *reinterpret_cast<float4*>(&Bs[buf][bRow + 8 * l][bCol]) = bReg[l];
        }
    };

    float acc[8][8] = {};  // acc[mi*4 + i][ni*4 + j]
    const int nTiles = (K + BK - 1) / BK;
    loadTile(0);
    storeTile(0);
    __syncthreads();

    for (int t = 0; t < nTiles; ++t) {
        const int cur = t & 1;
        if (t + 1 < nTiles) loadTile((t + 1) * BK);  // in flight during the FMAs below

#pragma unroll
        for (int d = 0; d < BK; ++d) {
            float a[8], b[8];
#pragma unroll
            for (int mi = 0; mi < 2; ++mi) {
                const float4 v =
                    *reinterpret_cast<const float4*>(&As[cur][d][wRow + mi * 32 + tr * 4]);
                a[mi * 4 + 0] = v.x; a[mi * 4 + 1] = v.y; a[mi * 4 + 2] = v.z; a[mi * 4 + 3] = v.w;
            }
#pragma unroll
            for (int ni = 0; ni < 2; ++ni) {
                const float4 v =
                    *reinterpret_cast<const float4*>(&Bs[cur][d][wCol + ni * 16 + tc * 4]);
                b[ni * 4 + 0] = v.x; b[ni * 4 + 1] = v.y; b[ni * 4 + 2] = v.z; b[ni * 4 + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] += a[i] * b[j];
        }

        // Buffer cur^1 was last read in iteration t-1, which ended with a barrier: safe to fill.
        if (t + 1 < nTiles) storeTile(cur ^ 1);
        __syncthreads();  // tile t+1 visible to all; everyone is done reading buffer cur
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
