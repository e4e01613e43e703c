// The TMA + wgmma block tile of the wgmma rung, shared by wgmma and the epilogue probe: its
// geometry, the m64n256k16 MMA, and the whole main loop up to the accumulators.
//
// Idea (wgmma's header says why each piece is there): a 128x256x64 block tile per CTA of 384
// threads. Warpgroup 0 is the producer: one thread fills a 4-stage ring of TMA tiles (A as one
// 64(k) x 128(m) box, B as four 64(n) x 64(k) boxes, 128-byte swizzle) guarded by full/empty
// mbarriers. Warpgroups 1 and 2 are consumers: each multiplies its 64 rows of the tile by
// wgmma.m64n256k16 from shared-memory descriptors, one k tile of MMAs kept in flight, and frees
// a stage once the MMAs reading it have retired. The 1-D grid is rasterised in groups of GROUP_M
// block rows. What a kernel does with the accumulators afterwards (its epilogue) is its own.
//
// Contract: block (NTHREADS), grid (M/BM * N/BN), SMEM_BYTES of dynamic shared memory (1024-byte
// aligned by the kernel's declaration); sm_90a. M a multiple of BM, N of BN, K of BK (no bounds
// checks). A is MxK row-major (K-major), B KxN row-major (MN-major), both FP16, through the
// tensor maps tmA, tmB of the kernel's parameters. wgmma128x256_mainloop returns false in the
// producer warpgroup (the caller returns: it has nothing left to do) and true in a consumer,
// with d[] = its 64x256 slice of A B (d[4j + {0,1}] = row w*16 + lane/4, columns 8j + 2*(lane%4)
// .. +1 of warp w's 16 rows; d[4j + {2,3}] = 8 rows down) and Wgmma128x256 saying where the tile
// lies; the stages are then the consumers' once both have left the loop.
#pragma once

#include "hopper.cuh"

#define BM 128
#define BN 256
#define BK 64
#define STAGES 4
#define NTHREADS 384                         // producer warpgroup + 2 consumer warpgroups
#define GROUP_M 16                           // block rows per rasterisation group
#define A_BYTES (BM * BK * 2)                // 16,384: one 64x128 TMA box
#define B_BOX_BYTES (BK * 64 * 2)            // 8,192: one 64(n) x 64(k) TMA box
#define B_BYTES (BN / 64 * B_BOX_BYTES)      // 32,768: four boxes
#define STAGE_BYTES (A_BYTES + B_BYTES)      // 49,152 = the expect_tx count of a stage
#define ALIGN_SLACK 1024                     // swizzled tiles start on 1024-byte boundaries
#define BAR_BYTES 128                        // 2 * STAGES mbarriers of 8 bytes, rounded up
#define SMEM_BYTES (STAGES * STAGE_BYTES + ALIGN_SLACK + BAR_BYTES)  // 197,760: the manifest's
#define B_LBO B_BOX_BYTES                    // MN-major B: from one 64-column box to the next
#define B_SBO 1024                           // MN-major B: from one 8-row k group to the next (checked on sm_90a hardware)

// Keeps the compiler from moving accumulator reads/writes across the asynchronous MMAs.
__device__ __forceinline__ void fence_acc(float* d)
{
#pragma unroll
    for (int i = 0; i < 128; ++i) asm volatile("" : "+f"(d[i]) :: "memory");
}

#define ACC8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), \
                "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define ACC32(i) ACC8(i), ACC8(i + 8), ACC8(i + 16), ACC8(i + 24)

// D[64x256] += A[64x16] (K-major) * B[16x256] (MN-major: imm-trans-b = 1); scale-d = 1.
__device__ __forceinline__ void wgmma_m64n256k16(float* d, uint64_t descA, uint64_t descB)
{
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, 1, 1, 0, 1;\n"
        "}\n"
        : ACC32(0), ACC32(32), ACC32(64), ACC32(96)
        : "l"(descA), "l"(descB), "r"(1)
        : "memory");
}

// Where a consumer's tile lies, for its epilogue.
struct Wgmma128x256 {
    uint32_t raw;    // shared address of the kernel's dynamic shared memory
    uint32_t tiles;  // raw rounded up to ALIGN_SLACK: stage 0
    int bm, bn;      // the block tile's first row and column of C
    int c;           // consumer: rows 64c..64c+63 of the tile
    int tid;         // thread within the warpgroup
};

__device__ __forceinline__ bool wgmma128x256_mainloop(int M, int N, int K, const CUtensorMap& tmA, const CUtensorMap& tmB,
                                                      unsigned char* smem_raw, float (&d)[128], Wgmma128x256& t)
{
    // Stage s: A tile at tiles + s*STAGE_BYTES (128 rows of 128 bytes), B right after it (four
    // boxes of 64 k-rows x 128 bytes). Barriers after the last stage: full[s], then empty[s].
    const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
    const uint32_t tiles = (raw + ALIGN_SLACK - 1) & ~(uint32_t)(ALIGN_SLACK - 1);
    const uint32_t bars = tiles + STAGES * STAGE_BYTES;
    auto full = [&](int s) { return bars + 8u * s; };
    auto empty = [&](int s) { return bars + 8u * (STAGES + s); };

    const int wg = threadIdx.x / 128;          // 0: producer, 1-2: consumers
    const int tid = threadIdx.x % 128;

    // Grouped rasterisation of the 1-D grid: GROUP_M block rows, column by column.
    const int tilesM = M / BM, tilesN = N / BN;
    const Tile tile = tile_of(blockIdx.x, tilesM, tilesN, GROUP_M);
    const int bm = tile.m * BM, bn = tile.n * BN;
    const int kTiles = K / BK;

    if (threadIdx.x == 0) ring_init(full(0), STAGES, 2 * 4);   // one release per consumer warp
    __syncthreads();

    if (wg == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (tid == 0) {
            asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(&tmA)) : "memory");
            asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(&tmB)) : "memory");
            for (int kt = 0; kt < kTiles; ++kt) {
                const int s = kt % STAGES;
                if (kt >= STAGES) mbar_wait(empty(s), ((kt / STAGES) - 1) & 1);  // round r-1 released
                const uint32_t sa = tiles + s * STAGE_BYTES;
                mbar_arrive_expect_tx(full(s), STAGE_BYTES);
                tma_load_2d(sa, &tmA, kt * BK, bm, full(s));                     // A[bm:+128, k:+64]
#pragma unroll
                for (int j = 0; j < BN / 64; ++j)                                // B[k:+64, bn+64j:+64]
                    tma_load_2d(sa + A_BYTES + j * B_BOX_BYTES, &tmB, bn + 64 * j, kt * BK, full(s));
            }
        }
        return false;
    }

    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    const int c = wg - 1;                       // consumer: rows 64c..64c+63 of the tile
#pragma unroll
    for (int i = 0; i < 128; ++i) d[i] = 0.0f;
    fence_acc(d);

    for (int kt = 0; kt < kTiles; ++kt) {
        const int s = kt % STAGES;
        mbar_wait(full(s), (kt / STAGES) & 1);
        const uint32_t sa = tiles + s * STAGE_BYTES + c * 64 * 128;  // 64 rows of 128 bytes
        const uint32_t sb = tiles + s * STAGE_BYTES + A_BYTES;
        wgmma_fence();
#pragma unroll
        for (int k = 0; k < BK / 16; ++k)
            wgmma_m64n256k16(d, smem_desc(sa + 32 * k, 16, 1024), smem_desc(sb + 2048 * k, B_LBO, B_SBO));
        wgmma_commit();
        fence_acc(d);
        wgmma_wait<1>();                        // the MMAs of tile kt-1 have retired...
        fence_acc(d);
        if (kt > 0 && tid % 32 == 0) mbar_arrive(empty((kt - 1) % STAGES));  // ...so its stage is free
    }
    wgmma_wait<0>();
    fence_acc(d);
    t = {raw, tiles, bm, bn, c, tid};
    return true;
}
