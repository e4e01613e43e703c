// splitk256x64x8rs: splitk256x128x8rs with one warp column, 256 rows by 64 columns, for C 64 or
// fewer columns wide (N = 64, M in the tens of thousands).
//
// Predecessor: splitk256x128x8rs, which at N = 64 computes as many columns past N as inside it.
// Idea: four warps of 64x64 down the tile, each thread still 16x8 results; 128 threads and
// 41,472 bytes of shared memory, so two blocks share an SM (eight warps, as the 256-thread
// tiles run) and S fills 264 block slots (S = 2 at 32768x64x1024). Per k tile a thread issues 16
// scalar A copies and one float4 B copy.
//
// S (the manifest's grid z): max(1, min(64, K // 512, 264 // tiles)). Splits, slices and
// workspace: kernels/spread_rs.cuh.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module); cooperative where S > 1.
// Launch: block (128), grid (cdiv(N, 64), cdiv(M, 256), S), 41,472 bytes of dynamic shared
// memory; two blocks per SM; sm_80+.

#include "spread_rs.cuh"

using SplitRS256x64 = spread::SplitReduceScatter<256, 64>;
static_assert(SplitRS256x64::SMEM_BYTES == 41472, "update smem_bytes in kernels/ladder.toml");

extern "C" __global__ void __launch_bounds__(SplitRS256x64::NTHREADS, 2)
sgemm_splitk256x64x8rs(int M, int N, int K, float alpha, const float* __restrict__ A,
                       const float* __restrict__ B, float beta, float* __restrict__ C)
{
    extern __shared__ __align__(16) float smem[];
    spread::three_paths<SplitRS256x64>(smem, M, N, K, alpha, A, B, beta, C);
}
