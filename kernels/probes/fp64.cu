// probe fp64: a register-tiled SGEMM whose accumulators are double.
//
// Predecessor: blocktile2d.
// Idea: the 128x128x8 block tile and 8x8 micro-tile of the ladder's blocktile2d (smem tiles,
// outer products in registers), with one planted mistake: the accumulators are declared
// `double acc = 0.0`, as a stray double literal or type would make them. Every product then
// runs as a DFMA on the FP64 pipe (plus F2F conversions of the fragments), so the FP64 pipe,
// not FP32, sets the pace. Planted cause: fp64.
//
// Contract: M, N multiples of 128, K of 8 (no bounds checks). Launch: block (256), grid
// (N/128, M/128). beta == 0: C is not read.

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8

extern "C" __global__ void __launch_bounds__(256)
sgemm_probe_fp64(int M, int N, int K, float alpha, const float* __restrict__ A,
                 const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __align__(16) float As[BK][BM + 4];  // transposed; +4: conflict-free stores
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.x, tRow = tid / 16, tCol = tid % 16;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    double acc[TM][TN];  // the planted mistake: float would do
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0;

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
            double a[TM], b[TN];
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
            float4 v = make_float4(alpha * (float)acc[i][j], alpha * (float)acc[i][j + 1],
                                   alpha * (float)acc[i][j + 2], alpha * (float)acc[i][j + 3]);
            if (beta != 0.0f) {
                const float4 o = *reinterpret_cast<const float4*>(c + j);
                v.x += beta * o.x; v.y += beta * o.y; v.z += beta * o.z; v.w += beta * o.w;
            }
            *reinterpret_cast<float4*>(c + j) = v;
        }
    }
}
