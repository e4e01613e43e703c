// vectorized: 128-bit global loads, A transposed in shared memory, 128-bit fragment loads.
//
// Predecessor: blocktile2d. Idea, four changes:
// (1) each thread loads its share of the A and B tiles as one float4 each (LDG.128), a quarter of
//     the load instructions.
// (2) A is stored TRANSPOSED, As[k][m], so the 8 A values a thread needs at one k step are
//     contiguous: two LDS.128 per k step, without holding a whole k tile of A in registers as
//     blocktile2d does (fewer registers). The transposing stores go to rows padded to 128 + 4
//     floats, so they are free of bank conflicts.
// (3) A thread's 8 rows (and 8 columns) are two groups of 4, 64 apart, rather than 8 in a row:
//     the 16 lanes of a warp that share a row then read 256 contiguous bytes of Bs, not 16 float4s
//     32 bytes apart that collide in pairs, and the A reads stop colliding too.
// (4) C is written with float4.
//
// Contract: block (256), grid (cdiv(N, 128), cdiv(M, 128)); 8,320 bytes of static shared memory.
// N and K multiples of 4 (float4 alignment of rows of A, B and C; the matrices must be 16-byte
// aligned). M, N, K need not be multiples of the tile: out-of-range float4s are loaded as zeros
// and never stored. beta == 0: C is not read.

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define NTHREADS ((BM / TM) * (BN / TN))  // 256
#define AS_LD (BM + 4)                    // padded row of the transposed A tile

extern "C" __global__ void __launch_bounds__(NTHREADS, 2)
sgemm_vectorized(int M, int N, int K, float alpha, const float* __restrict__ A,
                 const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __align__(16) float As[BK][AS_LD];  // As[k][m]: transposed
    __shared__ __align__(16) float Bs[BK][BN];     // Bs[k][n]

    const int tid = threadIdx.x;
    const int bm = blockIdx.y * BM;
    const int bn = blockIdx.x * BN;

    // Compute mapping: rows bm + h*64 + tRow*4 + i and columns bn + g*64 + tCol*4 + j, for
    // h, g in {0, 1} and i, j < 4. Register index: a[h*4 + i], b[g*4 + j], acc[h*4 + i][g*4 + j].
    const int tCol = tid % 16;
    const int tRow = tid / 16;

    // Load mapping: A tile (128x8) = 256 float4s, one per thread: row aRow, k = aCol..aCol+3.
    // B tile (8x128) = 256 float4s: row bRow, columns bCol..bCol+3.
    const int aRow = tid / 2, aCol = (tid % 2) * 4;
    const int bRow = tid / 32, bCol = (tid % 32) * 4;
    const bool aRowOk = bm + aRow < M;
    const bool bColOk = bn + bCol < N;  // N % 4 == 0: the whole float4 is in range
    const float* aPtr = A + (size_t)(aRowOk ? bm + aRow : 0) * K + aCol;
    const float* bPtr = B + (size_t)bRow * N + (bColOk ? bn + bCol : 0);

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        float4 av = make_float4(0.f, 0.f, 0.f, 0.f), bv = av;
        if (aRowOk && k0 + aCol < K)  // K % 4 == 0: the whole float4 is in range
            av = *reinterpret_cast<const float4*>(aPtr + k0);
        if (bColOk && k0 + bRow < K)
            bv = *reinterpret_cast<const float4*>(bPtr + (size_t)k0 * N);
        As[aCol + 0][aRow] = av.x;  // transpose on the way in; with AS_LD = 132 the two
        As[aCol + 1][aRow] = av.y;  // k halves of a warp land 16 banks apart: no conflicts
        As[aCol + 2][aRow] = av.z;
        As[aCol + 3][aRow] = av.w;
        *reinterpret_cast<float4*>(&Bs[bRow][bCol]) = bv;
        __syncthreads();

#pragma unroll
        for (int d = 0; d < BK; ++d) {
            const float4 a0 = *reinterpret_cast<const float4*>(&As[d][tRow * 4]);
            const float4 a1 = *reinterpret_cast<const float4*>(&As[d][64 + tRow * 4]);
            const float4 b0 = *reinterpret_cast<const float4*>(&Bs[d][tCol * 4]);
            const float4 b1 = *reinterpret_cast<const float4*>(&Bs[d][64 + tCol * 4]);
            const float a[TM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float b[TN] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();  // before the next iteration overwrites the tiles
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = bm + (i / 4) * 64 + tRow * 4 + (i % 4);
        if (row >= M) continue;
#pragma unroll
        for (int g = 0; g < 2; ++g) {
            const int col = bn + g * 64 + tCol * 4;
            if (col >= N) continue;  // N % 4 == 0: col < N means col + 3 < N
            float4* cp = reinterpret_cast<float4*>(C + (size_t)row * N + col);
            float4 v = make_float4(alpha * acc[i][g * 4 + 0], alpha * acc[i][g * 4 + 1],
                                   alpha * acc[i][g * 4 + 2], alpha * acc[i][g * 4 + 3]);
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
