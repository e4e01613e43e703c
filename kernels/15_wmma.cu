// wmma: the naive tensor-core kernel. FP16 A and B, FP32 accumulate, FP32 C.
//
// Predecessor: none. This is the first rung of the FP16 tier, measured against cuBLAS GemmEx
// (FP16 in, FP32 compute), not against cuBLAS SGEMM: the inputs are half the bytes and the work
// goes to another unit, so a change-by-change comparison with the FP32 rungs would say nothing
// about the kernel. (In hardware terms it is naive again: no reuse through shared memory.)
//
// Idea: the tensor cores multiply 16x16x16 tiles as one warp-wide operation (wmma::mma_sync,
// HMMA on sm_70+). Each warp owns one 16x16 tile of C and walks K in steps of 16, loading the
// 16x16 fragments of A and B straight from global memory (wmma::load_matrix_sync) and
// accumulating in an FP32 fragment. Nothing is shared between warps: every A fragment is read by
// N/16 warps and every B fragment by M/16 warps from L1/L2, so the kernel is bound by the load
// path, far below the tensor cores' peak. 4 warps per block (2x2 tiles: a 32x32 block tile) keep
// the block count per SM from limiting occupancy.
// Epilogue: alpha and beta on the accumulator fragment (elementwise is legal: the C fragment
// loaded with the same shape and layout maps its elements to the same positions); C is loaded
// only when beta != 0.
//
// Contract: block (128), grid (cdiv(N, 32), cdiv(M, 32)); no shared memory; sm_70+. M, N, K
// multiples of 16 (whole fragments; it also gives load/store_matrix_sync their 32-byte aligned
// pointers and leading dimensions that are multiples of 8 halves / 4 floats). Warps whose tile
// lies past M or N (when M or N is an odd multiple of 16) return at once; the kernel has no
// barriers. beta == 0: C is not read.

#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

extern "C" __global__ void __launch_bounds__(128)
hgemm_wmma(int M, int N, int K, float alpha, const __half* __restrict__ A,
           const __half* __restrict__ B, float beta, float* __restrict__ C)
{
    const int warp = threadIdx.x / 32;
    const int row = blockIdx.y * 32 + (warp / 2) * 16;  // this warp's 16x16 tile of C
    const int col = blockIdx.x * 32 + (warp % 2) * 16;
    if (row >= M || col >= N) return;  // whole warp: the fragment operations stay warp-uniform

    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);

    const __half* aPtr = A + (size_t)row * K;  // A[row.., k..]
    const __half* bPtr = B + col;              // B[k.., col..]
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(a, aPtr + k, K);
        wmma::load_matrix_sync(b, bPtr + (size_t)k * N, N);
        wmma::mma_sync(acc, a, b, acc);
    }

    float* const cPtr = C + (size_t)row * N + col;
    if (beta != 0.0f) {
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
        wmma::load_matrix_sync(c, cPtr, N, wmma::mem_row_major);
#pragma unroll
        for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = alpha * acc.x[i] + beta * c.x[i];
    } else {
#pragma unroll
        for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = alpha * acc.x[i];
    }
    wmma::store_matrix_sync(cPtr, acc, N, wmma::mem_row_major);
}
