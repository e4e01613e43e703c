// Hand-written CUDA kernels of the foreign corpus, each with one cause planted by construction.
// Compiled by corpus.py with `nvcc -cubin -lineinfo` and loaded by CuPy, so ncu sees the lines.
// Row-major A (MxK), B (KxN), C (MxN), FP32; C = A @ B.

// `naive`: one thread per element of C, consecutive threads on consecutive ROWS of C, so a warp's
// loads of A are 32 rows apart (K floats) and its stores of C N floats apart: uncoalesced.
// Named as gemmprof's first rung on purpose: a foreign kernel must not inherit the ladder's texts.
extern "C" __global__ void naive(const float* A, const float* B, float* C, int M, int N, int K) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}

// `smem`: 32x32 tiles of A and B staged in shared memory, one result per thread: every FFMA
// needs two shared loads, so shared-memory instruction throughput (MIO) is the limit; the cure
// is more results per thread (register tiling), not staging, which it already does.
#define TILE 32
extern "C" __global__ void smem(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

// `divergent`: coalesced one-result-per-thread SGEMM whose odd lanes walk K backwards: the two
// halves of every warp take different paths through the loop, so each executes on half the lanes.
// Its grid covers C exactly (no math past the edges).
extern "C" __global__ void divergent(const float* A, const float* B, float* C, int M, int N, int K) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    float acc = 0.f;
    if (threadIdx.x & 1) {
        for (int k = K - 1; k >= 0; --k) acc += A[row * K + k] * B[k * N + col];
    } else {
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = acc;
}

// `stream_scale`: y = a * x, one float per thread, grid-stride: a DRAM stream, no reuse to find.
extern "C" __global__ void stream_scale(const float* x, float* y, float a, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        y[i] = a * x[i];
}
