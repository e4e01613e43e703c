// Independent cuBLAS SGEMM timing with plain CUDA events: no CuPy, no gemmprof harness.
// gemmprof's cuBLAS number should agree with this one within a few percent.
//
//   nvcc -O3 -o cublas_events benchmarks/cublas_events.cu -lcublas && ./cublas_events 4096
//
// Back-to-back launches between two events (no L2 flush: at 4096 the operands, 192 MB, do not
// fit in a 50-60 MB L2 anyway), median of several such batches.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#define CHECK_CUDA(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); std::exit(1); } } while (0)
#define CHECK_CUBLAS(x) do { cublasStatus_t s = (x); if (s != CUBLAS_STATUS_SUCCESS) { \
  std::fprintf(stderr, "%s:%d cublas status %d\n", __FILE__, __LINE__, (int)s); std::exit(1); } } while (0)

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  const int launches_per_batch = 20, batches = 15;
  const size_t elems = size_t(n) * n;
  std::vector<float> host(elems);
  std::mt19937 rng(0);
  std::normal_distribution<float> normal;
  for (auto& x : host) x = normal(rng);
  float *A, *B, *C;
  CHECK_CUDA(cudaMalloc(&A, elems * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&B, elems * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&C, elems * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(A, host.data(), elems * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(B, host.data(), elems * sizeof(float), cudaMemcpyHostToDevice));
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));  // strict FP32, no TF32
  const float alpha = 1.0f, beta = 0.5f;
  auto gemm = [&] { CHECK_CUBLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, B, n, A, n, &beta, C, n)); };
  for (int i = 0; i < 50; ++i) gemm();  // warm-up: clocks up, heuristics cached
  CHECK_CUDA(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  std::vector<float> per_launch_ms;
  for (int b = 0; b < batches; ++b) {
    CHECK_CUDA(cudaEventRecord(start));
    for (int i = 0; i < launches_per_batch; ++i) gemm();
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    per_launch_ms.push_back(ms / launches_per_batch);
  }
  std::sort(per_launch_ms.begin(), per_launch_ms.end());
  const double median = per_launch_ms[batches / 2];
  std::printf("independent cuBLAS SGEMM (plain CUDA events) n=%d: median %.4f ms, %.1f GFLOP/s (min %.4f, max %.4f ms)\n",
              n, median, 2.0 * n * double(n) * n / (median * 1e-3) / 1e9, per_launch_ms.front(), per_launch_ms.back());
  return 0;
}
