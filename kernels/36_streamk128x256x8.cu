// streamk128x256x8: ragged128x256x8's tile under the hybrid stream-K schedule of the streamk rungs:
// 132 persistent blocks share the last waves' k iterations evenly.
//
// Predecessor: ragged128x256x8. One block per 128x256 tile, one block per SM: a grid of T tiles
// runs in cdiv(T, 132) waves, the last one partly empty. At 3072^3 (288 tiles: 2.2 waves) the
// third wave holds 24 tiles and 108 SMs idle through it: 87% of cuBLAS where 4096^3 (512 tiles,
// 3.9 waves) runs at 101%; 2500^3 (200 tiles, 1.5 waves) 82%. Idea: kernels/streamk.cuh's plan
// over this tile: whole waves but the last full one stay one tile per block; that full wave and
// the partial one after it are cut into G equal runs of k tiles crossing tile boundaries, so every
// block ends at about the same time (3072^3: 2.2 tile-times a block, not 3). A tile cut into
// segments is summed in fixed order (slots first..last) by the block that arrives last; no block
// waits for another. H100 (benchmarks/results/2026-11-23-h100, shapes-suite-11, shapes-profile-4):
// 3072^3 1.496 -> 1.258 ms, 87% -> 104% of cuBLAS, SMs busy 73% -> 99%; 2500^3 82% -> 98%. It
// first trailed ragged128x256x8 where the waves are whole or nearly (4096^3: 95% against 101%).
// The partials stored as rotated float4s and summed with every load of a pass in flight
// (spread_streamk.cuh's fixup), the epilogue's C read ahead and the lanes worked out after each
// main loop put it ahead on the squares 2500-8192
// but 4095^3 (shapes-suite-19: 3072^3 118%, 4096^3 105%, 5000^3 110%, 8192^3 107%; 4095^3 98%
// against ragged128x256x8's 101%). `best` runs it from 4096^3 up, on the projections and on
// 1536-3000^3.
//
// G (the manifest's grid x): max(1, min(132, tiles * cdiv(K, 8) // 32)) with tiles = cdiv(M, 128)
// * cdiv(N, 256): one block per SM of a 132-SM GPU, each with at least 32 k tiles' work.
// The block's work, its paths and the workspace (which a plan at G <= 132 fits; another grid
// expression's that does not runs every tile whole): kernels/spread_streamk.cuh.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module).
// Launch: block (256), grid (G), 49,664 bytes of dynamic shared memory; one block per SM; sm_80+.

#include "spread_streamk.cuh"

extern "C" __global__ void __launch_bounds__(Tile128x256::NTHREADS, 1)
sgemm_streamk128x256x8(int M, int N, int K, float alpha, const float* __restrict__ A,
                       const float* __restrict__ B, float beta, float* __restrict__ C)
{
    extern __shared__ __align__(16) float smem[];
    sk::gemm<false>(smem, M, N, K, alpha, A, B, beta, C);
}
