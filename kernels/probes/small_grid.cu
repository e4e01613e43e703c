// probe small_grid: big block tiles at a shape that has few of them.
//
// Predecessor: blocktile2d.
// Idea: the 128x128x8 block tile and 8x8 micro-tile of the ladder's blocktile2d (smem tiles,
// outer products in registers), a reasonable kernel at large sizes. Planted: the profile shape
// 512x512x16384 gives a grid of 4 x 4 = 16 blocks for a GPU of 132 SMs, each block running a
// long k loop: 116 SMs have nothing to do. Planted cause: small_grid.
//
// Contract: M, N multiples of 128, K of 8. Launch: block (256), grid (N/128, M/128). beta == 0:
// C is not read.

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8

extern "C" __global__ void __launch_bounds__(256)
sgemm_probe_small_grid(int M, int N, int K, float alpha, const float* __restrict__ A,
                       const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __align__(16) float As[BK][BM + 4];  // transposed; +4: conflict-free stores
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.x, tRow = tid / 16, tCol = tid % 16;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int l = 0; l < 4; ++l) {  // 1024 elements of each tile, 4 per thread
            const int e = tid + 256 * l;
            As[e % BK][e / BK] = A[(size_t)(bm + e / BK) * K + k0 + e % BK];
            Bs[e / BN][e % BN] = B[(size_t)(k0 + e / BN) * N + bn + e % BN];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = As[k][tRow * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = Bs[k][tCol * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        float* c = C + (size_t)(bm + tRow * TM + i) * N + bn + tCol * TN;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {  // float4 stores: whole sectors
            float4 v = make_float4(alpha * acc[i][j], alpha * acc[i][j + 1],
                                   alpha * acc[i][j + 2], alpha * acc[i][j + 3]);
            if (beta != 0.0f) {
                const float4 o = *reinterpret_cast<const float4*>(c + j);
                v.x += beta * o.x; v.y += beta * o.y; v.z += beta * o.z; v.w += beta * o.w;
            }
            *reinterpret_cast<float4*>(c + j) = v;
        }
    }
}
