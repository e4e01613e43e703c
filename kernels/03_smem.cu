// smem: 32x32 tiles of A and B staged through shared memory.
//
// Predecessor: coalesced. Idea: each element of A and B that a block needs is read from global
// memory once per block instead of once per thread (32x less global/L1 traffic).
//
// Design: a block of 32x32 threads loads a 32x32 tile of A and of B (one element each,
// coalesced), synchronises, and every thread does 32 multiply-adds out of shared memory. As is
// row-major and the k loop is fully unrolled, so a thread's A row is read as eight 128-bit
// broadcasts (LDS.128) rather than 32 scalar loads: the kernel is bound by shared-load
// throughput, and this makes it 5 loads per 4 FMAs (1.25 per FMA: one LDS.128 of A and four
// scalar loads of B), not 2 per FMA.
//
// Contract: block (32, 32), grid (cdiv(N, 32), cdiv(M, 32)); 8 KB of static shared memory. Any
// M, N, K: tile elements outside the matrices are filled with zeros, and only in-range elements
// of C are written. beta == 0: C is not read.

#define TILE 32

extern "C" __global__ void __launch_bounds__(TILE * TILE)
sgemm_smem(int M, int N, int K, float alpha, const float* __restrict__ A,
           const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __align__(16) float As[TILE][TILE];  // As[m][k], row-major
    __shared__ __align__(16) float Bs[TILE][TILE];  // Bs[k][n]

    const int tx = threadIdx.x;  // column within the tile (fastest)
    const int ty = threadIdx.y;  // row within the tile
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        // Every thread loads (no early exit: all threads must reach the barriers).
        As[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
        __syncthreads();

        const float4* a4 = reinterpret_cast<const float4*>(&As[ty][0]);  // 16-byte aligned rows
#pragma unroll
        for (int q = 0; q < TILE / 4; ++q) {
            const float4 a = a4[q];  // one LDS.128, same address for the whole warp
            acc += a.x * Bs[4 * q + 0][tx];
            acc += a.y * Bs[4 * q + 1][tx];
            acc += a.z * Bs[4 * q + 2][tx];
            acc += a.w * Bs[4 * q + 3][tx];
        }
        __syncthreads();  // before the next iteration overwrites the tiles
    }

    if (row < M && col < N) {
        float* c = C + (size_t)row * N + col;
        float v = alpha * acc;
        if (beta != 0.0f) v += beta * *c;
        *c = v;
    }
}
