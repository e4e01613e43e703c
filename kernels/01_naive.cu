// naive: one thread per element of C, straight from the definition.
//
// Predecessor: none (the first fp32 rung, the baseline).
// Idea: thread (x, y) of a 32x32 block computes C[row][col] as a dot product over K, reading A and
// B from global memory only. The mapping is deliberately the UNCOALESCED one: consecutive threads
// (threadIdx.x) walk consecutive ROWS of C, so in each k step a warp reads 32 A elements that are K
// floats apart (32 separate sectors) and writes C 32 rows apart.
//
// Contract: block (32, 32), grid (cdiv(M, 32), cdiv(N, 32)); blockIdx.x runs over rows,
// blockIdx.y over columns. No shared memory. Any M, N, K (bounds checked). beta == 0: C is not
// read.

extern "C" __global__ void __launch_bounds__(1024)
sgemm_naive(int M, int N, int K, float alpha, const float* __restrict__ A,
            const float* __restrict__ B, float beta, float* __restrict__ C)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;  // fastest thread index -> row of C
    const int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;

    const float* a = A + (size_t)row * K;  // row `row` of A
    const float* b = B + col;              // column `col` of B, stride N
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += a[k] * b[(size_t)k * N];

    float* c = C + (size_t)row * N + col;
    float v = alpha * acc;
    if (beta != 0.0f) v += beta * *c;  // BLAS: C is not read when beta == 0
    *c = v;
}
