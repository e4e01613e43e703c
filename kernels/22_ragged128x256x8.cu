// ragged128x256x8: spread128x256x8's main loop for any M, N and K: whole tiles run it unchanged,
// edge tiles run a copy of it whose cp.async copies are predicated by zero-fill.
//
// Predecessor: spread128x256x8, whose contract (M % 128, N % 256, K % 8) sends 4095^3, 2500^3,
// 1000^3 and every odd shape to the 128x128 rungs (76-80% of cuBLAS there on the H100, where
// spread128x256x8 reaches ~101% on whole tiles). Idea: one block-uniform branch chooses among
// three instantiations of the same tile body, so the whole-tile path keeps spread128x256x8's
// branch-free k tile and pays for no predicate:
//   - whole: the block's tile lies inside M and N, K % 8 == 0, N % 4 == 0, B and C 16-byte
//     aligned: spread128x256x8's body as it is (unchecked float4 epilogue);
//   - edge, float4 B (N % 4 == 0, B and C 16-byte aligned): each copy's src-size is 0 where its
//     row is past M, its k past K or its float4 past N (a float4 of a row of B is then wholly
//     inside or outside); those smem words are zeros, so they add 0 * x to results never stored
//     (rows, columns) or 0 * 0 (k); C stored as float4s checked against M and N;
//   - edge, scalar B (N % 4 != 0 or B or C not 16-byte aligned): B copied as four 4-byte
//     cp.async per float4 slot, each with its own predicate; C stored element by element.
// Predicates are per launch (N, alignment), per block (rows of A) and per k tile (k < K): no
// divergence inside a warp's loads beyond the zero-fill operand. A pointer that would point
// past a matrix is replaced by the matrix's base (nothing is read through it: src-size 0).
//
// Contract: none (any M, N, K >= 1; A, B, C 4-byte aligned). beta == 0: C is not read.
// Launch: block (256), grid (cdiv(N, 256), cdiv(M, 128)), 49,664 bytes of dynamic shared memory;
// one block per SM; sm_80+. The tile, lane layout, pipeline and epilogue are spread128x256x8's
// (and cutlass128x256x8's), in kernels/spread_tile.cuh.

#include <cstdint>

#include "spread_tile.cuh"

using Tile128x256 = spread::Tile<128, 256>;
static_assert(Tile128x256::SMEM_BYTES == 49664, "update smem_bytes in kernels/ladder.toml");

extern "C" __global__ void __launch_bounds__(Tile128x256::NTHREADS, 1)
sgemm_ragged128x256x8(int M, int N, int K, float alpha, const float* __restrict__ A,
                      const float* __restrict__ B, float beta, float* __restrict__ C)
{
    extern __shared__ __align__(16) float smem[];
    spread::three_paths<spread::WholeK<128, 256>>(smem, M, N, K, alpha, A, B, beta, C);
}
