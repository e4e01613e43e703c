// tf32x3raw: tf32x3ra with big_a read straight from the FP32 TMA tile: only small_a is written.
//
// Predecessor: tf32x3ra. Its remaining split writes are A's big and small tiles (32 KB per k tile
// and block; 192 KB of shared traffic in all). Idea: the tensor core reads only the
// TF32 bits of an operand (the 13 low mantissa bits are ignored: truncation), so the FP32 tile is
// already big_a = trunc(a). small_a = tf32_rna(a - trunc(a)): the difference is exact in FP32 and
// below 2^-10 |a| (twice tf32x3ra's bound, as truncation leaves up to one TF32 ulp), so small_a
// carries a to within 2^-21 |a| and the dropped small_a * small_b term stays below 2^-21 |ab| (B is
// still split with rna): errors of order 2^-22 per product, well inside the FP32 bound (measured on
// the GPU tests against strict cuBLAS on the same inputs). Only small_a is written (16 KB per k tile: 176 KB of shared
// traffic in all), and each stage is held until the wgmmas that read its A retire; the smaller
// split buffers leave room for a fifth stage and a fourth split buffer.
// The kernel body is tf32x3_ra.cuh with BIG_RAW.
//
// Contract: block (384), grid (cdiv(M, 128) * cdiv(N, 128)), SMEM_BYTES (230,656) of dynamic shared memory (5 FP32
// stages of 32 KB, 4 split buffers of 16 KB, 1 KB of alignment slack, the mbarriers); sm_90a. N and
// K multiples of 4 (16-byte rows for TMA), any M; tiles past the edges read as zeros, C stored
// within M x N (tf32x3_ra.cuh); beta == 0: C is not read.
// Kernel parameters: the fixed list, then the tensor maps of A (box 32 x 128) and B (box 32 x 32),
// both 128-byte swizzle (__grid_constant__ CUtensorMap, made by KernelRunner from the manifest).

#include "tf32x3_ra.cuh"

#define NTHREADS 384                 // producer warpgroup + 2 consumer warpgroups
#define STAGES 5
#define NSPLIT 4                     // split buffers
#define SMEM_BYTES 230656            // ra::smem_bytes(true, STAGES, NSPLIT)
static_assert(SMEM_BYTES == ra::smem_bytes(true, STAGES, NSPLIT), "SMEM_BYTES disagrees with the layout");

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
sgemm_tf32x3raw(int M, int N, int K, float alpha, const float* __restrict__ A,
                const float* __restrict__ B, float beta, float* __restrict__ C,
                const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    ra::gemm<true, STAGES, NSPLIT>(M, N, K, alpha, beta, C, &tmA, &tmB, smem);
}
