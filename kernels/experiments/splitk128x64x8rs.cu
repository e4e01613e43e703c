// splitk128x64x8rs: the spread tile at 128x64 (two warps of 64x64, 16x8 results a thread) under
// spread_rs.cuh's reduce-scatter, four blocks an SM.
//
// Predecessor: splitk256x64x8rs. At 32768x64x1024 its 128 tiles split in two run eight warps an
// SM in two blocks of four, and trail splitk64x64x8rs (83% of cuBLAS against 88%). Idea: the same
// warps in blocks of two: 256 tiles, split in two, 512 blocks at four an SM; a block waits at its
// barriers for one other warp, not three. Measured (H100, one bench run,
// benchmarks/results/2026-11-23-h100/README.md): no better, 32768x64x1024 81.4% of cuBLAS against
// splitk256x64x8rs's 82.3% and splitk64x64x8rs's 88.2%; 16384x128x4096 96.5 against 104.7 for
// splitk256x128x8rs. Kept as a measured dead end.
//
// S (the manifest's grid z): max(1, min(64, K // 512, 528 // tiles)).
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launch: block (64), grid (cdiv(N, 64), cdiv(M, 128), S), 25,088 bytes of dynamic shared memory;
// four blocks per SM; cooperative where S > 1; sm_80+.

#include "../spread_rs.cuh"

using SplitRS128x64 = spread::SplitReduceScatter<128, 64>;
static_assert(SplitRS128x64::SMEM_BYTES == 25088, "update smem_bytes in experiments.toml");

extern "C" __global__ void __launch_bounds__(SplitRS128x64::NTHREADS, 4)
sgemm_splitk128x64x8rs(int M, int N, int K, float alpha, const float* __restrict__ A,
                       const float* __restrict__ B, float beta, float* __restrict__ C)
{
    extern __shared__ __align__(16) float smem[];
    spread::three_paths<SplitRS128x64>(smem, M, N, K, alpha, A, B, beta, C);
}
