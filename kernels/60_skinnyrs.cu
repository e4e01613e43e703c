// skinnyrs: skinny with the split-K partials summed by every split of a tile at once, a slice each
// (kernels/reduce_scatter.cuh), and K split to two CTAs per SM whatever the tile height.
//
// Predecessor: skinny. Its split counted last sums all S partials of a 64x128 tile alone: at
// 64x4096x4096 (H200, ncu) 23% of its samples fall after the main loop and the SMs are busy 69% of
// the launch, the others waiting for the summing ones; doubling S to two CTAs an SM made it slower
// (65% of cuBLAS against 78%), the sum growing with S. Idea: the splits of a tile wait for one
// another, then each sums 1/S of the tile into C, so the sum costs every CTA one tile of reads
// whatever S is, and S can fill two CTAs an SM at every tile height.
//
// Grid (the manifest's): x = cdiv(M, 64) row tiles, y = cdiv(N, 128) column tiles, z = S =
// max(1, min(K // 256, 2 SMS // (x y))); where S > 1 the grid (at most 2 SMS CTAs, two resident
// per SM: 110,592 bytes of shared memory each) is launched cooperatively, so that a GPU that
// cannot hold it at once fails the launch instead of hanging. S x y x x <= 2 SMS slots of at most
// 8192 floats fit the workspace (skinny.cuh's WS_FLOATS); more tiles than that run unsplit.
//
// Contract: block (128 up to M = 32, 256 above), grid as above, 110,592 bytes of dynamic shared
// memory, sm_80+. M any; N and K multiples of 8 (16-byte rows). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module); cooperative where S > 1.

#define SMEM_BYTES 110592                            // the manifest's: 6 stages of 16 rows, 5 of 32, 4 of 64
#include "skinny.cuh"

extern "C" __global__ void __launch_bounds__(MAX_THREADS, 2)
hgemm_skinnyrs(int M, int N, int K, float alpha, const __half* __restrict__ A, const __half* __restrict__ B,
               float beta, float* __restrict__ C)
{
    extern __shared__ __align__(128) unsigned char smem_raw[];
    skinny::gemm<false, true>(M, N, K, alpha, A, B, beta, C, smem_raw);
}
