// probe epilogue: the ladder's TMA + wgmma kernel (wgmma) with a deliberately slow epilogue.
//
// Predecessor: wgmma. Idea: the main loop is wgmma's unchanged (wgmma128x256.cuh): 128x256x64
// block tiles brought in by TMA (128-byte swizzle, 4-stage full/empty mbarrier ring, one producer
// warpgroup) and multiplied by wgmma.m64n256k16 in two consumer warpgroups (see wgmma's header
// for the layouts and descriptors). Planted: the epilogue stages the 128x256 accumulator tile in shared memory
// and then writes C column by column, consecutive threads on consecutive ROWS: every load of C
// (beta != 0) and every store touches 32 rows per warp, one float (4 of 32 bytes) in each
// sector. At the profile shape 4096x4096x256 the main loop is 4 k tiles, so the epilogue is
// most of the time. Planted cause: epilogue.
//
// Contract: block (384), grid (M/128 * N/256), 197,760 bytes of dynamic shared memory (the 4
// stages, reused for the 131,584-byte staging tile). M a multiple of 128, N of 256, K of 64;
// beta == 0: C is not read. Kernel parameters: the fixed list, then the tensor maps of A and B
// (__grid_constant__ CUtensorMap, made by KernelRunner). Needs sm_90a.

#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include "wgmma128x256.cuh"

#define STAGE_LD (BN + 1)                    // epilogue staging row: +1 float, conflict-free column walk

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
hgemm_probe_epilogue(int M, int N, int K, float alpha, const __half* __restrict__ A,
            const __half* __restrict__ B, float beta, float* __restrict__ C,
            const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    float d[128];
    Wgmma128x256 tile;
    if (!wgmma128x256_mainloop(M, N, K, tmA, tmB, smem_raw, d, tile)) return;  // the producer is done
    const uint32_t raw = tile.raw, tiles = tile.tiles;
    const int bm = tile.bm, bn = tile.bn, c = tile.c, tid = tile.tid;

    // The planted epilogue. The stages are free once both consumer warpgroups are past their
    // last MMA (named barrier 1: the 256 consumer threads; the producer has returned).
    asm volatile("bar.sync 1, 256;\n" ::: "memory");
    float* const stage = reinterpret_cast<float*>(smem_raw + (tiles - raw));  // [BM][STAGE_LD]
    const int warp = tid / 32, lane = tid % 32;
    const int r = c * 64 + warp * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < 32; ++j) {  // d[4j + {0,1}] = (r, 8j + q .. +1), d[4j + {2,3}] = (r + 8, same)
        const int col = 8 * j + 2 * (lane % 4);
        stage[r * STAGE_LD + col] = d[4 * j];
        stage[r * STAGE_LD + col + 1] = d[4 * j + 1];
        stage[(r + 8) * STAGE_LD + col] = d[4 * j + 2];
        stage[(r + 8) * STAGE_LD + col + 1] = d[4 * j + 3];
    }
    asm volatile("bar.sync 1, 256;\n" ::: "memory");
    // Column by column: consecutive threads take consecutive ROWS of C, N floats apart.
    const int t = threadIdx.x - 128;  // 0..255
    for (int e = t; e < BM * BN; e += 256) {
        const int row = e % BM, col = e / BM;
        float* const out = C + (size_t)(bm + row) * N + bn + col;
        const float v = alpha * stage[row * STAGE_LD + col];
        *out = beta != 0.0f ? v + beta * *out : v;
    }
}
