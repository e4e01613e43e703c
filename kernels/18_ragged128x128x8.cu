// ragged128x128x8: cpasync's cp.async tile for any M, N and K, with no contract.
//
// Predecessor: cpasync, whose contract (N % 4 == 0) sends 4095^3 and every odd N to a slow
// rung. Idea: the same 128x128x8 block tile, 4-stage cp.async pipeline and 64x32 warp tiles, with
// every edge handled inside the kernel (kernels/ragged_tile.cuh says how): rows and columns past
// M and N clamped to the last valid one (never stored), k past K zero-filled by cp.async's
// src-size operand, B copied as 16-byte cp.async when N % 4 == 0 (four 4-byte copies
// otherwise), C stored as float4 or element by element by the same uniform test, guarded by
// row < M and column < N.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launch: block (256), grid (cdiv(N, 128), cdiv(M, 128)); 33,280 bytes of static shared memory.

#include "ragged_tile.cuh"

#define BM 128
#define BN 128
#define NTHREADS 256  // (BM / 64) * (BN / 32) warps

static_assert(ragged::Tile<BM, BN>::NT == NTHREADS, "block size");

extern "C" __global__ void __launch_bounds__(NTHREADS, 2)
sgemm_ragged128x128x8(int M, int N, int K, float alpha, const float* __restrict__ A,
                      const float* __restrict__ B, float beta, float* __restrict__ C)
{
    ragged::gemm<BM, BN>(M, N, K, alpha, A, B, beta, C, ragged::Workspace{nullptr, nullptr, 0, 0});
}
