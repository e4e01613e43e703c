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

// ---- the held-out set (cases the diagnosis was not tuned on) --------------------------------

// `v_transposed`: one result per thread, threads along columns of C, but B is read as its
// transpose stored row-major (Bt[col * K + k]): consecutive threads read K floats apart.
extern "C" __global__ void v_transposed(const float* A, const float* Bt, float* C, int M, int N, int K) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * Bt[col * K + k];
    C[row * N + col] = acc;
}

// `v_conflicts`: 32x32 shared tiles, one result per thread, but A's tile is stored transposed and
// read down a column by the warp (As[k][ty] written as As[tx][ty]): every lane of a warp reads
// the same bank, 32-way.
extern "C" __global__ void v_conflicts(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[32][32];
    __shared__ float Bs[32][32];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * 32 + tx, col = blockIdx.x * 32 + ty;  // lanes along rows of C
    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        As[ty][tx] = A[(blockIdx.y * 32 + ty) * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + blockIdx.x * 32 + tx];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 32; ++k) acc += As[tx][k] * Bs[k][ty];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

// `v_stream4`: y = a * x over float4s, several in flight per thread: a DRAM stream near its roof.
extern "C" __global__ void v_stream4(const float4* x, float4* y, float a, long long n4) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += 4 * stride) {
        float4 v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) if (i + u * stride < n4) v[u] = x[i + u * stride];
#pragma unroll
        for (int u = 0; u < 4; ++u)
            if (i + u * stride < n4) y[i + u * stride] = make_float4(a * v[u].x, a * v[u].y, a * v[u].z, a * v[u].w);
    }
}

// `v_atomic_splitk`: each block sums a 64-long slice of K for a 16x16 piece of C and adds it to C
// with atomicAdd: K / 64 blocks add into every element of C.
extern "C" __global__ void v_atomic_splitk(const float* A, const float* B, float* C, int M, int N, int K) {
    int col = blockIdx.x * 16 + threadIdx.x, row = blockIdx.y * 16 + threadIdx.y;
    int k0 = blockIdx.z * 64;
    float acc = 0.f;
    for (int k = k0; k < k0 + 64; ++k) acc += A[row * K + k] * B[k * N + col];
    atomicAdd(&C[row * N + col], acc);
}

// `v_local`: eight results per thread down a column of C, kept in an array indexed by a value
// the compiler cannot know (the loop bound comes from memory): the array lives in local memory.
extern "C" __global__ void v_local(const float* A, const float* B, float* C, int M, int N, int K, const int* rows) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row0 = (blockIdx.y * blockDim.y + threadIdx.y) * 8;
    int r = rows[0];  // 8, read at run time
    float acc[8];
    for (int i = 0; i < r; ++i) acc[i] = 0.f;
    for (int k = 0; k < K; ++k) {
        float b = B[k * N + col];
        for (int i = 0; i < r; ++i) acc[i] += A[(row0 + i) * K + k] * b;
    }
    for (int i = 0; i < r; ++i) C[(row0 + i) * N + col] = acc[i];
}

// `v_fp64`: the coalesced one-result-per-thread SGEMM accumulating in double: DFMA on the FP64 pipe.
extern "C" __global__ void v_fp64(const float* A, const float* B, float* C, int M, int N, int K) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    double acc = 0.0;
    for (int k = 0; k < K; ++k) acc += (double)A[row * K + k] * (double)B[k * N + col];
    C[row * N + col] = (float)acc;
}
