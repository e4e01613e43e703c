// wgmma: Hopper warpgroup MMA (wgmma) fed by the tensor memory accelerator (TMA).
//
// Predecessor: wmma_smem. wmma_smem runs mma.sync per warp: every warp loads its own A and B
// fragments from shared memory into registers (LDSM) before each 16x16x16 product, so shared
// memory bandwidth and issue slots, not the tensor cores, set the pace, and the 16-byte
// cp.async copies cost every thread address arithmetic and issue slots. Idea, all sm_90a-only:
// (1) wgmma.mma_async.m64n256k16: one instruction per warpgroup (4 warps) multiplies a 64x16
//     slice of A by a 16x256 slice of B, both read by the tensor cores straight from shared
//     memory through 64-bit matrix descriptors (no LDSM, no fragment registers); accumulators
//     (64x256 fp32 per warpgroup = 128 registers per thread) stay in registers.
// (2) Block tile 128x256x64, 384 threads = 3 warpgroups: warpgroup 0 is the producer (one thread
//     issues the copies; setmaxnreg shrinks it to 40 registers), warpgroups 1 and 2 are
//     consumers (setmaxnreg grows them to 232) computing rows 0-63 and 64-127 of the tile.
// (3) Tiles come in by cp.async.bulk.tensor.2d (TMA) with CUtensorMaps made on the host
//     (manifest key tensor_maps): A as one 64(k) x 128(m) box, B as four 64(n) x 64(k) boxes,
//     all with the 128-byte swizzle that wgmma's descriptors understand, so shared memory reads
//     are conflict-free without padding. 4 stages of 48 KB in a full/empty mbarrier ring: the
//     producer waits "empty", arms "full" with expect_tx(48 KB) and issues 5 copies; consumers
//     wait "full" and, once the wgmmas reading a stage have retired (wgmma.wait_group 1, so one
//     k tile of MMAs is always in flight), arrive on its "empty" barrier (one arrive per warp).
// (4) Tiles are rasterised in groups of 16 block rows (Triton-style grouping of a 1-D grid): the
//     blocks that run at once (one per SM) share A and B panels in L2 instead of streaming all of
//     B per wave.
// Layouts: A is K-major (MxK row-major): descriptor with 128B swizzle, SBO = 1024 bytes (8 rows
// of 128 bytes), LBO unused; the k16 step inside a 64-wide swizzled row advances the start
// address by 32 bytes. B is KxN row-major = MN-major for wgmma (imm-trans-b = 1): each 64-column
// box is 64 k-rows of 128 bytes; LBO = 8192 bytes (from one 64-column box to the next along N),
// SBO = 1024 bytes (from one 8-row k group to the next); the k16 step is 16 rows = 2048 bytes.
// (1)-(4) are wgmma128x256.cuh's (shared with the epilogue probe); this file adds the epilogue.
// Epilogue: each consumer thread holds rows w*16 + lane/4 (+8) and column pairs 8j + 2*(lane%4)
// of its 64x256 slice; C = alpha*acc (+ beta*C when beta != 0) stored as float2 (each quad of
// lanes writes one full 32-byte sector).
//
// Contract: block (384), grid (M/128 * N/256), 197,760 bytes of dynamic shared memory (4 stages
// of 48 KB, 1 KB of alignment slack, the mbarriers); sm_90a. M a multiple of 128, N of 256, K
// of 64 (whole tiles, no bounds checks); beta == 0: C is not read. Kernel parameters: the fixed
// list, then the tensor maps of A and B (__grid_constant__ CUtensorMap, made by KernelRunner).

#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include "wgmma128x256.cuh"

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
hgemm_wgmma(int M, int N, int K, float alpha, const __half* __restrict__ A,
            const __half* __restrict__ B, float beta, float* __restrict__ C,
            const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    float d[128];
    Wgmma128x256 tile;
    if (!wgmma128x256_mainloop(M, N, K, tmA, tmB, smem_raw, d, tile)) return;  // the producer is done
    const int bm = tile.bm, bn = tile.bn, c = tile.c, tid = tile.tid;

    // Epilogue: d[4j + {0,1}] = (r, 8j + q .. +1), d[4j + {2,3}] = (r + 8, same columns).
    const int warp = tid / 32, lane = tid % 32;
    const int r = bm + c * 64 + warp * 16 + lane / 4;
    float* const c0 = C + (size_t)r * N + bn + 2 * (lane % 4);
    float* const c1 = c0 + (size_t)8 * N;
    if (beta != 0.0f) {
#pragma unroll
        for (int j = 0; j < 32; ++j) {
            const float2 o0 = *reinterpret_cast<const float2*>(c0 + 8 * j);
            const float2 o1 = *reinterpret_cast<const float2*>(c1 + 8 * j);
            *reinterpret_cast<float2*>(c0 + 8 * j) =
                make_float2(alpha * d[4 * j] + beta * o0.x, alpha * d[4 * j + 1] + beta * o0.y);
            *reinterpret_cast<float2*>(c1 + 8 * j) =
                make_float2(alpha * d[4 * j + 2] + beta * o1.x, alpha * d[4 * j + 3] + beta * o1.y);
        }
    } else {
#pragma unroll
        for (int j = 0; j < 32; ++j) {
            *reinterpret_cast<float2*>(c0 + 8 * j) = make_float2(alpha * d[4 * j], alpha * d[4 * j + 1]);
            *reinterpret_cast<float2*>(c1 + 8 * j) = make_float2(alpha * d[4 * j + 2], alpha * d[4 * j + 3]);
        }
    }
}
