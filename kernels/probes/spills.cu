// probe spills: a register-tiled SGEMM squeezed into too few registers.
//
// Predecessor: blocktile2d.
// Idea: the 128x128x8 block tile with an 8x8 micro-tile per thread (64 accumulators, 16
// fragment values, addresses: about 100 live registers). Planted: the manifest compiles it with
// -maxrregcount=40, so ptxas spills accumulators to local memory (spill stores and loads in the
// ptxas report, STL/LDL in the inner loop). Planted cause: spills.
//
// Contract: M, N multiples of 128, K of 8. Launch: block (256), grid (N/128, M/128). beta == 0:
// C is not read.

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8

extern "C" __global__ void
sgemm_probe_spills(int M, int N, int K, float alpha, const float* __restrict__ A,
                   const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __align__(16) float As[BK][BM + 4];  // transposed; +4: conflict-free stores
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.x, tRow = tid / 16, tCol = tid % 16;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int l = 0; l < 4; ++l) {
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
