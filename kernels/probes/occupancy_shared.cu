// probe occupancy_shared: a small-block kernel that asks for far more shared memory than it uses.
//
// Predecessor: blocktile2d.
// Idea: a 64x64x8 smem-tiled kernel, 256 threads, each computing a 4x4 micro-tile; its tiles
// take 4 KiB of shared memory. Planted: the manifest launches it with 200 KiB of dynamic shared
// memory, so one block (8 warps) fits on an SM where the registers and threads would allow
// eight. With so few warps the loads' latency is not hidden. Planted cause: occupancy_shared.
//
// Contract: M, N multiples of 64, K of 8. Launch: block (256), grid (N/64, M/64), dynamic
// shared memory 204,800 bytes (4,224 used). beta == 0: C is not read.

#define BM 64
#define BN 64
#define BK 8
#define TM 4
#define TN 4

extern "C" __global__ void __launch_bounds__(256)
sgemm_probe_occupancy_shared(int M, int N, int K, float alpha, const float* __restrict__ A,
                             const float* __restrict__ B, float beta, float* __restrict__ C)
{
    extern __shared__ __align__(16) float smem[];  // the launch asks for 200 KiB; the tiles use 4 KiB
    float (*As)[BM + 4] = reinterpret_cast<float (*)[BM + 4]>(smem);          // As[BK][BM + 4], transposed
    float (*Bs)[BN] = reinterpret_cast<float (*)[BN]>(smem + BK * (BM + 4));  // Bs[BK][BN]
    const int tid = threadIdx.x, tRow = tid / 16, tCol = tid % 16;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int l = 0; l < 2; ++l) {  // 512 elements of each tile, 2 per thread
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
