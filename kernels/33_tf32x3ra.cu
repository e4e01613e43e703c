// tf32x3ra: 3xTF32 on wgmma with B^T from registers: C^T = B^T A^T, so B, which TF32 wgmma would
// need transposed in shared memory, is split in registers and never written back.
//
// Predecessor: tf32x3wg. Its profile is bound by shared-memory bandwidth: every k
// tile it reads the FP32 stage, writes big and small of A and of B (B transposed to K-major, as TF32
// wgmma reads no other way), and its wgmmas read both operands from shared memory. Idea: compute
// C^T = B^T A^T. wgmma's A operand, B^T, then comes from registers (m64nNk8: 4 x b32 per thread):
// each consumer thread loads its B values once per k tile from the TMA tile (eight 8-byte loads,
// conflict-free under the 128-byte swizzle and a permutation of C^T's rows) and splits them in
// registers. wgmma's B operand, A^T, is K-major as A's own row-major tile, so A is split elementwise
// into big and small tiles at the TMA tile's swizzled offsets. Shared-memory traffic per 32-wide k
// tile and block: 272 KB -> 192 KB (B's split writes, 32 KB, and wgmma's reads of its A operand,
// 48 KB, are gone). With 64 + 64 accumulator registers per thread there is no room for
// double-buffered fragments, so the split of A moves to three warps of the producer warpgroup and
// the two consumer warpgroups run unsynchronised: one's fragment loads and waits hide behind the
// other's MMAs. The kernel body is tf32x3_ra.cuh (shared with tf32x3raw); here big_a = tf32_rna(a),
// as tf32x3wg.
//
// Contract: block (384), grid (cdiv(M, 128) * cdiv(N, 128)), SMEM_BYTES (230,656) of dynamic shared memory (4 FP32
// stages of 32 KB, 3 split buffers of 32 KB, 1 KB of alignment slack, the mbarriers); sm_90a. N and
// K multiples of 4 (16-byte rows for TMA), any M; tiles past the edges read as zeros, C stored
// within M x N (tf32x3_ra.cuh); beta == 0: C is not read.
// Kernel parameters: the fixed list, then the tensor maps of A (box 32 x 128) and B (box 32 x 32),
// both 128-byte swizzle (__grid_constant__ CUtensorMap, made by KernelRunner from the manifest).

#include "tf32x3_ra.cuh"

#define NTHREADS 384                 // producer warpgroup + 2 consumer warpgroups
#define STAGES 4
#define NSPLIT 3                     // split buffers
#define SMEM_BYTES 230656            // ra::smem_bytes(false, STAGES, NSPLIT)
static_assert(SMEM_BYTES == ra::smem_bytes(false, STAGES, NSPLIT), "SMEM_BYTES disagrees with the layout");

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
sgemm_tf32x3ra(int M, int N, int K, float alpha, const float* __restrict__ A,
               const float* __restrict__ B, float beta, float* __restrict__ C,
               const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    ra::gemm<false, STAGES, NSPLIT>(M, N, K, alpha, beta, C, &tmA, &tmB, smem);
}
