// ragged64x64x8: ragged128x128x8 with 64x64 block tiles, four times as many blocks for shapes that leave SMs idle.
//
// Predecessor: ragged128x128x8. At 1024^3 a 128x128 tile gives 64 blocks for the 132 SMs of
// an H100 or H200, at 512^3 16: most SMs do nothing. Idea: the same code (kernels/ragged_tile.cuh)
// with a 64x64 tile of two 64x32 warps (64 threads, 8x8 results per thread as in ragged128x128x8): 256 blocks
// at 1024^3, 64 at 512^3, up to 8 blocks per SM (128 registers, 16,896 bytes of shared memory
// each). Each block reuses a loaded element of A or B 64 times instead of 128, so it needs twice
// the global traffic per FFMA: for small grids, not large ones.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launch: block (64), grid (cdiv(N, 64), cdiv(M, 64)); 16,896 bytes of static shared memory.

#include "ragged_tile.cuh"

#define BM 64
#define BN 64
#define NTHREADS 64  // (BM / 64) * (BN / 32) warps

static_assert(ragged::Tile<BM, BN>::NT == NTHREADS, "block size");

extern "C" __global__ void __launch_bounds__(NTHREADS, 8)
sgemm_ragged64x64x8(int M, int N, int K, float alpha, const float* __restrict__ A,
                    const float* __restrict__ B, float beta, float* __restrict__ C)
{
    ragged::gemm<BM, BN>(M, N, K, alpha, A, B, beta, C, ragged::Workspace{nullptr, nullptr, 0, 0});
}
