// skinny_any: skinny for any N and K, so that odd-sized products get a light kernel with split-K.
//
// Predecessor: skinny. cp.async and TMA need 16-byte row pitches, so a product whose N or K is not
// a multiple of 8 fell to the staging rungs (wgmma_staged, wgmma_staged128): a grid-wide copy to
// an aligned buffer, a grid barrier, then 128-row wgmma tiles with no split of K. On 130 of the
// 151 shapes of the sample suite that cost 11-12 us where cuBLAS takes 6 (19x85x81), and at
// small M and N with long K one CTA walked all of K: 25x236x61350 ran at 2% of cuBLAS GemmEx.
// Idea: skinny's tiles, split and workspace (kernels/skinny.cuh) with loads cp.async cannot do:
// each thread fetches its chunks as the 4-byte words that hold them (five where a row starts
// mid-word), keeps them raw in registers while tile t's MMAs run, and only then shifts them into
// place and stores them to the swizzled stage, one 16-byte store per 8 halves. A double buffer
// (48 KB) then does what skinny's cp.async stages do, and four CTAs of 128 threads fit an SM where
// skinny fits two: K splits twice as far at M <= 32. C is read whole before it is stored, by floats.
// (Combined into halves as they arrived, the loads were each waited on before the MMAs ran, and
// the double buffer overlapped nothing.)
//
// Contract: block (128 up to M = 32, 256 above), grid (the manifest's: cdiv(M, 64) x cdiv(N, 128)
// x S, S x tiles <= 4 SMS at M <= 32, SMS at 33-64, 2 SMS above), 49,152 bytes of dynamic shared
// memory, sm_80+. M, N, K any. Launches must not overlap in time (one workspace per loaded module).

#define SMEM_BYTES 49152                             // the manifest's smem_bytes: 2 stages of 64 rows
#include "skinny.cuh"

extern "C" __global__ void __launch_bounds__(MAX_THREADS, 2)
hgemm_skinny_any(int M, int N, int K, float alpha, const __half* __restrict__ A, const __half* __restrict__ B,
                 float beta, float* __restrict__ C)
{
    extern __shared__ __align__(128) unsigned char smem_raw[];
    skinny::gemm<true>(M, N, K, alpha, A, B, beta, C, smem_raw);
}
