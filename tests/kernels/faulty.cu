// Deliberately wrong kernels: the harness must report each as FAIL or ERROR, never a time.
// Mapping as in 02_coalesced (grid.x over rows of 32x32 output tiles... see the specs in
// tests/gpu/test_ladder.py): one thread per element of C.

// Leaves the last column of C unwritten (an off-by-one bound).
extern "C" __global__ void sgemm_skips_last_column(int M, int N, int K, float alpha, const float* A,
                                                   const float* B, float beta, float* C) {
  int row = blockIdx.y * 32 + threadIdx.x / 32, col = blockIdx.x * 32 + threadIdx.x % 32;
  if (row >= M || col >= N - 1) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = beta == 0.f ? alpha * acc : alpha * acc + beta * C[row * N + col];
}

// Ignores beta (never reads C): right only when beta == 0.
extern "C" __global__ void sgemm_ignores_beta(int M, int N, int K, float alpha, const float* A,
                                              const float* B, float beta, float* C) {
  int row = blockIdx.y * 32 + threadIdx.x / 32, col = blockIdx.x * 32 + threadIdx.x % 32;
  if (row >= M || col >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = alpha * acc;
}

// Writes far outside C: an illegal address that kills the CUDA context.
extern "C" __global__ void sgemm_faults(int M, int N, int K, float alpha, const float* A,
                                        const float* B, float beta, float* C) {
  C[(size_t)1 << 40 | threadIdx.x] = 1.f;
}
