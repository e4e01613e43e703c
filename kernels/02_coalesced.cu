// coalesced: the naive kernel with the thread-to-element mapping turned around.
//
// Predecessor: naive. Idea: consecutive threads (threadIdx.x) now take consecutive COLUMNS of one
// row of C. A warp then reads one 128-byte line of B per k step (coalesced), one A element that
// every lane shares (a broadcast), and writes C as one 128-byte line, instead of touching 32 lines
// per access.
//
// Contract: block (32, 32), grid (cdiv(N, 32), cdiv(M, 32)); blockIdx.x runs over columns,
// blockIdx.y over rows. No shared memory. Any M, N, K (bounds checked). beta == 0: C is not read.

extern "C" __global__ void __launch_bounds__(1024)
sgemm_coalesced(int M, int N, int K, float alpha, const float* __restrict__ A,
                const float* __restrict__ B, float beta, float* __restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;  // fastest thread index -> column of C
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;

    const float* a = A + (size_t)row * K;  // same for the whole warp: broadcast
    const float* b = B + col;              // consecutive lanes, consecutive addresses
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += a[k] * b[(size_t)k * N];

    float* c = C + (size_t)row * N + col;
    float v = alpha * acc;
    if (beta != 0.0f) v += beta * *c;  // BLAS: C is not read when beta == 0
    *c = v;
}
