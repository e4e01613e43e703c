// blocktile2d: each thread computes an 8x8 micro-tile of C (2-D register blocking).
//
// Predecessor: blocktile1d. Idea: a thread now loads TM = 8 values of A and TN = 8 values of B
// per k step and does all 64 products between them (an outer product): 16 loaded values per 64
// FMAs, where blocktile1d needs 72 (8 of B and 64 of A). The block tile grows to 128x128x8 (256
// threads): twice the reuse of each global load.
//
// Design: shared memory is laid out plainly, as in blocktile1d: As[m][k] row-major and Bs[k][n].
// A thread's A values of one k step are a column of As; with the k loop unrolled the compiler
// instead reads whole rows (16 LDS.128 per k tile) and keeps all 64 A values live, which costs
// registers, and these loads, like the 2 LDS.128 of B per k step, hit 2-way bank conflicts (two
// row groups, or 16 float4s 32 bytes apart, per warp). Its successor, vectorized, fixes both.
//
// Contract: block (256), grid (cdiv(N, 128), cdiv(M, 128)); 8 KB of static shared memory. Any
// M, N, K: out-of-range tile elements are loaded as zeros and only in-range elements of C are
// written. beta == 0: C is not read.

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define NTHREADS ((BM / TM) * (BN / TN))  // 256

extern "C" __global__ void __launch_bounds__(NTHREADS, 2)
sgemm_blocktile2d(int M, int N, int K, float alpha, const float* __restrict__ A,
                  const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __align__(16) float As[BM][BK];  // As[m][k]
    __shared__ __align__(16) float Bs[BK][BN];  // Bs[k][n]

    const int tid = threadIdx.x;
    const int bm = blockIdx.y * BM;
    const int bn = blockIdx.x * BN;

    // Compute mapping: rows bm + tRow*TM + i, columns bn + tCol*TN + j (i, j < 8).
    const int tCol = tid % (BN / TN);  // 0..15
    const int tRow = tid / (BN / TN);  // 0..15

    // Load mapping: each thread loads 4 elements of each tile. For A (128x8) the thread takes
    // column aCol of rows aRow + 32*l; for B (8x128), column bCol of rows bRow + 2*l (l < 4).
    const int aRow = tid / BK, aCol = tid % BK;  // aRow 0..31
    const int bRow = tid / BN, bCol = tid % BN;  // bRow 0..1
    const bool bColOk = bn + bCol < N;
    const float* bPtr = B + (size_t)bRow * N + (bColOk ? bn + bCol : 0);

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int l = 0; l < 4; ++l) {
            const int r = bm + aRow + 32 * l;
            As[aRow + 32 * l][aCol] =
                (r < M && k0 + aCol < K) ? A[(size_t)r * K + k0 + aCol] : 0.0f;
            Bs[bRow + 2 * l][bCol] =
                (bColOk && k0 + bRow + 2 * l < K) ? bPtr[(size_t)(k0 + 2 * l) * N] : 0.0f;
        }
        __syncthreads();

#pragma unroll
        for (int d = 0; d < BK; ++d) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = As[tRow * TM + i][d];
#pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = Bs[d][tCol * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();  // before the next iteration overwrites the tiles
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = bm + tRow * TM + i;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int col = bn + tCol * TN + j;
            if (row < M && col < N) {
                float* c = C + (size_t)row * N + col;
                float v = alpha * acc[i][j];
                if (beta != 0.0f) v += beta * *c;
                *c = v;
            }
        }
    }
}
