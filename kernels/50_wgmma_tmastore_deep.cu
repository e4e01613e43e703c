// wgmma_tmastore_deep: wgmma_tmastore with four staging buffers per consumer warpgroup instead of
// two, paid for with one stage of the ring (3 instead of 4).
//
// Predecessor: wgmma_tmastore. With two buffers a consumer warpgroup can have at most one chunk
// of C in flight ahead of the one it adds (beta != 0): the load of chunk j + 2 waits until the
// store of chunk j has read its buffer, so every chunk pays most of an L2 round trip, and only
// the last two chunks' stores (16 KB of the warpgroup's 64 KB) run under the next tile's MMAs.
// Idea (kernels/wgmma_fp16.cuh, TMA_BUFS = 4): four 8 KB buffers per warpgroup, the first four
// chunks of C loaded during the main loop and each later one three chunks ahead (after the store
// of the chunk before last has read its buffer, not the store just issued), and half the
// warpgroup's C leaving under the next tile's main loop. The question it answers on the device:
// whether a 3-stage ring (each stage ~1,000 cycles of MMAs at 128x256x64) still hides the loads
// of A and B.
//
// Contract: block (384), grid (min(cdiv(M, 128) * cdiv(N, 256), SMS)), 214,144 bytes of dynamic
// shared memory; sm_90a. M any; N and K multiples of 8. beta == 0: C is not read. Kernel
// parameters: the fixed list, then the tensor maps of A, B and C (FP32, box 32 x 64, 128B swizzle).

#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include "wgmma_fp16.cuh"

#define BN 256
#define STAGES 3
#define TMA_BUFS 4                                   // staging buffers per consumer warpgroup
#define GROUP 16                                     // tile rows per raster group
#define NTHREADS 384
#define SMEM_BYTES (STAGES * (128 * 64 * 2 + BN / 64 * 8192) + 2 * TMA_BUFS * 8192 + 1024 + 128)  // 214,144: the manifest's
static_assert(SMEM_BYTES == wgfp16::smem_bytes_tmastore<BN, STAGES, TMA_BUFS>(), "SMEM_BYTES is the body's layout");
static_assert(SMEM_BYTES <= 227 * 1024, "an H100's / H200's dynamic shared memory per block");
static_assert(NTHREADS == wgfp16::THREADS, "one producer and two consumer warpgroups");

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
hgemm_wgmma_tmastore_deep(int M, int N, int K, float alpha, const __half* __restrict__ A,
                          const __half* __restrict__ B, float beta, float* __restrict__ C,
                          const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
                          const __grid_constant__ CUtensorMap tmC)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    wgfp16::gemm<BN, STAGES, GROUP, wgfp16::WHOLE, wgfp16::TMA_FEED, TMA_BUFS>(M, N, K, alpha, beta, C, &tmA, &tmB, smem_raw, {},
                                                                    {}, &tmC);
}
