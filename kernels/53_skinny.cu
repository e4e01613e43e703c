// skinny: FP16 tensor cores for small M (decode: M <= 64 against N, K in the thousands), where a
// product is a stream of B and the GPU's job is to read B once, at full bandwidth, on every SM.
//
// Predecessor: wgmma_splitk128. Its 128-row tile multiplies 127 rows of zeros at M = 1, and its
// 128x128 tiles are 32 at N = 4096: 32 SMs stream B while 100 idle (16x4096x14336: 30% of
// cuBLAS). Idea: a tile as tall as M needs (BM = 16, 32 or 64 rows, picked from M at run time)
// and 128 columns wide, mma.sync m16n8k16 (the math is a few percent of the time; wgmma's
// 64-row minimum would be the waste this kernel removes), and K split S ways so that the grid
// fills the SMs. Each CTA streams its B slice through a cp.async pipeline of 16 KB stages, 6 deep
// at BM = 16 and 4 at BM = 64 (XOR-swizzled rows: ldmatrix reads them without bank conflicts).
// Its loops stay rolled: a CTA runs a handful of k tiles, and unrolled they were code fetched
// once per warp (corpus case decode_unrolled). Split partials meet as in wgmma_splitk128: every
// split writes its FP32 partial to a module-scope workspace and counts itself in; the last to
// arrive sums the S partials in split order and runs the epilogue. No CTA waits for another, so
// any grid runs. Where most of a tile lies outside C and K is split far (M = 1: one row of 16),
// the partials are written and summed by rows instead (skinny.cuh).
//
// Grid (the manifest's): x = cdiv(M, 64) row tiles (fastest, so the CTAs sharing a B slice run
// together and B comes from L2 the second time), y = cdiv(N, 128) column tiles, z = S: at least
// 4 k tiles a split, and S x y <= 2 SMS (two CTAs an SM), or <= SMS for one 64-row tile (its
// partials are the largest: 78% of cuBLAS at 64x4096x4096 where 2 SMS gave 65% on an H200); more
// tiles than that run unsplit. S * x * y <= 2 SMS partial tiles of at most 32 KB fit the
// workspace (WS_FLOATS: 512 of them); a split grid that would not traps.
//
// Contract: block (128 up to M = 32, 256 above: two warps a scheduler for the 64-row tile's
// MMAs), grid as above, 110,592 bytes of dynamic shared memory, sm_80+. M any; N and K
// multiples of 8 (16-byte rows). beta == 0: C is not read. Launches must not overlap in time
// (one workspace per loaded module).

#define SMEM_BYTES 110592                            // the manifest's: 6 stages of 16 rows, 5 of 32, 4 of 64
#include "skinny.cuh"

extern "C" __global__ void __launch_bounds__(MAX_THREADS, 2)
hgemm_skinny(int M, int N, int K, float alpha, const __half* __restrict__ A, const __half* __restrict__ B,
             float beta, float* __restrict__ C)
{
    extern __shared__ __align__(128) unsigned char smem_raw[];
    skinny::gemm<false>(M, N, K, alpha, A, B, beta, C, smem_raw);
}
