// wgmma_tmastore: wgmma_persist with the epilogue through shared memory and TMA stores, so the
// consumers go on to the next tile's MMAs while the TMA engine writes C.
//
// Predecessor: wgmma_persist. Its profile at 4096^3 (benchmarks/results/2026-11-23-h100/) puts
// most long-scoreboard samples in the epilogue: with 128x256 tiles both consumer warpgroups stop
// issuing MMAs while they read C (beta != 0), scale it and store 128 KB of FP32 from registers;
// at 4096^3 a tile's C traffic (128 KB read, 128 KB written) is a sizeable share of its ~33k
// cycles of MMAs when every SM reaches its epilogue together. Idea (kernels/wgmma_fp16.cuh,
// TMASTORE):
// (1) each consumer warpgroup walks its 64 x 256 results in 8 chunks of 64 x 32 floats through two
//     8 KB staging buffers, 128B-swizzled as C's tensor map (box 32 x 64) lays them out, so the
//     fragment's float2 writes are conflict-free (bank math at staged_pair);
// (2) one thread per warpgroup stores each chunk with cp.async.bulk.tensor (clipped at C's
//     bounds: ragged M, N need no predicates) and waits only until a store has *read* its
//     buffer before that buffer is refilled: the last chunks' writes to C run under the next
//     tile's main loop;
// (3) beta != 0: C arrives by TMA loads into the staging buffers, the first two chunks issued
//     8 k tiles before the main loop ends (after an L2 prefetch of the tile's C rows), each later
//     one as soon as its buffer's store has read it; the consumers add beta * C in shared memory.
// The 4-stage ring stays; the staging buffers (32 KB) take the shared memory left beside it.
//
// Contract: block (384), grid (min(cdiv(M, 128) * cdiv(N, 256), SMS)), 230,528 bytes of dynamic
// shared memory; sm_90a. M any; N and K multiples of 8. beta == 0: C is not read. Kernel
// parameters: the fixed list, then the tensor maps of A, B and C (FP32, box 32 x 64, 128B swizzle).

#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include "wgmma_fp16.cuh"

#define BN 256
#define STAGES 4
#define TMA_BUFS 2                                   // staging buffers per consumer warpgroup
#define GROUP 16                                     // tile rows per raster group
#define NTHREADS 384
#define SMEM_BYTES (STAGES * (128 * 64 * 2 + BN / 64 * 8192) + 2 * TMA_BUFS * 8192 + 1024 + 128)  // 230,528: the manifest's
static_assert(SMEM_BYTES == wgfp16::smem_bytes_tmastore<BN, STAGES, TMA_BUFS>(), "SMEM_BYTES is the body's layout");
static_assert(SMEM_BYTES <= 227 * 1024, "an H100's / H200's dynamic shared memory per block");
static_assert(NTHREADS == wgfp16::THREADS, "one producer and two consumer warpgroups");

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
hgemm_wgmma_tmastore(int M, int N, int K, float alpha, const __half* __restrict__ A,
                     const __half* __restrict__ B, float beta, float* __restrict__ C,
                     const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
                     const __grid_constant__ CUtensorMap tmC)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    wgfp16::gemm<BN, STAGES, GROUP, wgfp16::WHOLE, wgfp16::TMA_FEED, TMA_BUFS>(M, N, K, alpha, beta, C, &tmA, &tmB, smem_raw, {},
                                                                    {}, &tmC);
}
