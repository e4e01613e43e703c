// Hopper (sm_90a) primitives shared by the TMA + wgmma kernels (wgmma, tf32x3wg, the epilogue
// probe): mbarriers, TMA tile loads, shared-memory matrix descriptors and the wgmma group fences.
//
// Contract: addresses are shared-memory addresses as 32-bit integers; an mbarrier is 8 bytes,
// 8-byte aligned; TMA destinations and swizzled tiles are 1024-byte aligned (the descriptors'
// base offset is 0). Include after <cuda.h> (CUtensorMap) and <stdint.h>.
#pragma once

// ---- mbarrier --------------------------------------------------------------------------------

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" :: "r"(bar), "r"(count) : "memory");
}

__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" :: "r"(bar), "r"(bytes) : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" :: "r"(bar) : "memory");
}

__device__ __forceinline__ uint32_t mbar_try_wait(uint32_t bar, uint32_t parity)
{
    uint32_t done;
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    return done;
}

__device__ __forceinline__ uint64_t global_ns()
{
    uint64_t t;
    asm volatile("mov.u64 %0, %globaltimer;\n" : "=l"(t));
    return t;
}

// Blocks until the phase of the given parity has completed (a fresh barrier is in phase 0).
// Deadlock guard: a wait longer than 10 s traps (a launch error the bench reports) instead of
// hanging the run.
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity)
{
    if (mbar_try_wait(bar, parity)) return;
    const uint64_t start = global_ns();
    for (uint32_t n = 1; !mbar_try_wait(bar, parity); ++n)
        if ((n & 1023) == 0 && global_ns() - start > 10000000000ull) __trap();
}

// ---- TMA -------------------------------------------------------------------------------------

// 2-D tile at element coordinates (c0 = innermost, c1) into shared memory; completes tx bytes on bar.
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, int c0, int c1, uint32_t bar)
{
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
        :: "r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar) : "memory");
}

// ---- the full/empty ring of a TMA producer and its consumers ------------------------------------

// The ring's mbarriers at bars, 8 bytes each: full(s) = bars + 8 s, completed by the producer's
// arrive.expect_tx and the bytes of its loads, and empty(s) = bars + 8 (stages + s), completed by
// `releases` arrivals (one per consumer warp). By one thread; a __syncthreads() must follow before
// any thread uses them.
__device__ __forceinline__ void ring_init(uint32_t bars, int stages, uint32_t releases)
{
    for (int s = 0; s < stages; ++s) {
        mbar_init(bars + 8u * s, 1);
        mbar_init(bars + 8u * (stages + s), releases);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// ---- wgmma -----------------------------------------------------------------------------------

// Shared-memory matrix descriptor: start >> 4 (bits 0-13), LBO >> 4 (16-29), SBO >> 4 (32-45),
// base offset 0 (tiles are aligned to their swizzle pattern), swizzle mode (bits 62-63).
enum SmemSwizzle : uint64_t { SWIZZLE_128B = 1, SWIZZLE_64B = 2, SWIZZLE_32B = 3 };
__device__ __forceinline__ uint64_t smem_desc(uint32_t addr, uint32_t lbo, uint32_t sbo,
                                              SmemSwizzle swizzle = SWIZZLE_128B)
{
    return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)(lbo >> 4) << 16) | ((uint64_t)(sbo >> 4) << 32) |
           ((uint64_t)swizzle << 62);
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" :: "n"(N) : "memory"); }

// Tile t of a tilesM x tilesN grid in grouped raster order: `group` tile rows at a time (the last
// group may be shorter), column by column inside a group, so neighbouring blocks share A and B
// tiles in L2.
struct Tile { int m, n; };
__device__ __forceinline__ Tile tile_of(int t, int tilesM, int tilesN, int group)
{
    const int perGroup = group * tilesN;
    const int first = t / perGroup * group;
    const int rows = min(tilesM - first, group);
    const int in = t % perGroup;
    return {first + in % rows, in / rows};
}
