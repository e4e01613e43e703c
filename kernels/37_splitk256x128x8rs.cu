// splitk256x128x8rs: splitk128x256x8rs's tile turned on its side, 256 rows by 128 columns, for
// tall-skinny C (N <= 128 and M in the thousands).
//
// Predecessor: splitk128x256x8rs. At 16384x128x4096 its 128x256 tiles leave half their columns
// past N (54% of cuBLAS on the H100), so `best` ran splitk64x64x8rs there: 8 warps an SM at 8x8
// results a thread, 88%. Idea: the same 64x64 warp tiles at 16x8 results a thread, four warps
// down and two across, so a 128-column C fills every tile; split-K (S = 2 at 16384x128x4096)
// fills the SMs. Per k tile a thread issues 8 scalar A copies and one float4 B copy, not 4 and
// 2; its fragment loads, FMAs and epilogue are the 128x256 tile's.
//
// S (the manifest's grid z): max(1, min(64, K // 512, 132 // tiles)). Splits, slices and
// workspace: kernels/spread_rs.cuh.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module); cooperative where S > 1.
// Launch: block (256), grid (cdiv(N, 128), cdiv(M, 256), S), 49,664 bytes of dynamic shared
// memory; one block per SM; sm_80+.

#include "spread_rs.cuh"

using SplitRS256x128 = spread::SplitReduceScatter<256, 128>;
static_assert(SplitRS256x128::SMEM_BYTES == 49664, "update smem_bytes in kernels/ladder.toml");

extern "C" __global__ void __launch_bounds__(SplitRS256x128::NTHREADS, 1)
sgemm_splitk256x128x8rs(int M, int N, int K, float alpha, const float* __restrict__ A,
                        const float* __restrict__ B, float beta, float* __restrict__ C)
{
    extern __shared__ __align__(16) float smem[];
    spread::three_paths<SplitRS256x128>(smem, M, N, K, alpha, A, B, beta, C);
}
