// tf32x3bits: tf32x3raw with the split done by integer rounding, and the splitters' loads batched.
//
// Predecessor: tf32x3raw. Its profile (4096^3, H100): the consumer warps retry their wait for a
// split A tile about five times per k tile, the splitters almost never wait for a TMA stage, and
// the producer waits for free stages most of the time: the three splitter warps set the pace. Per
// float4 a splitter ran 25 instructions, half of them cvt.rna.tf32.f32's emulation (sm_90 has no
// single instruction for it: an Inf/NaN test, the add, a select, the mask), and its ten unrolled
// rounds each waited out a shared load, as no load can move above the previous round's store. The
// consumers' split of B used the same cvt, nine instructions an element.
// Idea: round by integer arithmetic (tf32x3_ra.cuh, INT_ROUND). Adding 0x1000, half a TF32 ulp,
// to a float's bits is round to nearest, ties away, once the 13 low bits are dropped: small_a =
// bits(x - trunc(x)) + 0x1000, left unmasked since the tensor core ignores the low bits of a
// shared-memory operand (as big_a already relies on), three instructions an element; each B
// element is split into masked TF32 bits in five. A splitter thread loads its eleven float4 first
// and stores after. Numerically the same split as tf32x3raw (Inf/NaN inputs give NaN in both).
// The kernel body is tf32x3_ra.cuh with BIG_RAW and INT_ROUND.
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
sgemm_tf32x3bits(int M, int N, int K, float alpha, const float* __restrict__ A,
                 const float* __restrict__ B, float beta, float* __restrict__ C,
                 const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    ra::gemm<true, STAGES, NSPLIT, true>(M, N, K, alpha, beta, C, &tmA, &tmB, smem);
}
