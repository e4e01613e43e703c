// Shared body of the FP16 wgmma rungs (wgmma_ragged, wgmma_persist, wgmma_persist128,
// wgmma_splitk128, wgmma_tailsplit, wgmma_tailsplit128, wgmma_unaligned128, wgmma_pingpong,
// wgmma_tmastore, wgmma_tmastore_deep, wgmma_staged, wgmma_staged128, wgmma_stagedsplit128): TMA
// tiles in a full/empty mbarrier ring, 1 producer + 2 consumer warpgroups, wgmma m64nBNk16
// straight from 128B-swizzled shared memory, and a tile loop over a grouped raster so that one body
// serves a grid of all tiles (one tile per CTA) and a persistent grid of one CTA per SM.
//
// Why each part:
// - Ragged shapes. The tensor maps carry the true M, N, K, and TMA fills every element of a box
//   outside them with zeros (and still counts the whole box in the barrier's transaction bytes),
//   so a partial tile multiplies zeros: no predicates in the main loop. Only the epilogue checks
//   row < M and column < N. TMA's own rule stays: the global row pitch is a multiple of 16 bytes,
//   so K % 8 == 0 (A's rows) and N % 8 == 0 (B's rows); every column pair a thread stores then
//   lies wholly inside or outside C (N is even), so the float2 stores stay.
// - Persistent loop. The producer's ring index runs on across tiles: while the consumers do the
//   epilogue of tile i (alpha/beta, C read and written), the producer is already filling the
//   freed stages with tile i+1's first k tiles, so the next main loop starts on loaded data.
// - C prefetch. With beta != 0 the epilogue waits on the load of C (wgmma's report: 83% of its
//   long-scoreboard stalls). Eight k tiles before a tile's end each consumer warp asks L2 for the
//   C rows it will read (prefetch.global.L2), so the epilogue's loads hit L2, not DRAM; and it
//   reads C_BATCH column groups before their stores (store_rows), not one between two stores.
// - Raster (tile_of): groups of GROUP tile rows, walked column by column inside a group, so the
//   CTAs running at once share A and B panels in L2. The schedule is modelled in Python
//   (tests/test_wgmma_fp16_schedule.py): every tile visited once for any grid and shape.
//
// - Schedules (Sched): WHOLE, one work item per tile; SPLIT, every tile cut into S k ranges;
//   TAIL, the tiles of the full waves whole and only the last, partial wave's tiles cut into S k
//   ranges so that it fills the grid (3000^3: 288 tiles = 2 waves + 24 tiles on 132 SMs, the 24
//   cut 5 ways). Split partials meet in a workspace; the last split of a tile to arrive sums them
//   in split order. Modelled in Python (plan, item_of): every (tile, k tile) covered exactly once.
// - Unaligned operands (ANY): N or K not a multiple of 8 leaves rows of A or B off the 16-byte
//   grid TMA needs. Then the 128 producer threads fill each stage themselves: one 2-byte global
//   load per element (zero outside A or B), stored at the address the 128B swizzle gives it
//   (16-byte chunk c of row r at chunk c ^ (r % 8)), a proxy fence, and an arrive on the stage's
//   full barrier (128 arrivals instead of TMA's transaction bytes). The epilogue stores scalars
//   (an odd N misaligns float2). No setmaxnreg: the producer needs registers for its loads.
// - Staged operands (STAGED_FEED, wgmma_staged*): the kernel first copies such operands into
//   aligned buffers (kernels/staged_operands.cuh) and the TMA producer reads those; only the
//   epilogue differs from TMA_FEED, storing scalars when N is odd.
//
// - TMA store (TMA_BUFS = NB > 0, wgmma_tmastore, wgmma_tmastore_deep): the epilogue leaves through
//   shared memory. Each consumer warpgroup owns NB staging buffers of 64 rows x 32 FP32 (8 KB,
//   128B-swizzled like C's tensor map) and walks its 64 x BN results in BN/32 chunks: write
//   alpha * acc (+ beta * C) into buffer j % NB, fence.proxy.async, a warpgroup barrier, then one
//   thread stores the chunk with cp.async.bulk.tensor (clipped at C's bounds: ragged M, N need no
//   predicates) and commits a bulk group. Before a buffer is written again that thread waits
//   (wait_group.read) until the store that used it has read it, so after the last chunk the
//   warpgroup goes on to the next tile's MMAs while the TMA engine writes C. beta != 0: the C
//   chunk is loaded by TMA into the buffer first (the first NB during the main loop, the others
//   as soon as their buffer's store has read it; an mbarrier per buffer), added in place and
//   stored back.
//
// Layouts (as wgmma's): A K-major, one 64(k) x 128(m) box per stage; B MN-major (imm-trans-b),
// BN/64 boxes of 64(n) x 64(k), LBO = one box (8 KB), SBO = 1024 bytes (an 8-row k group); the
// k16 step is +32 bytes in A and +2048 bytes in B.
//
// Contract: 384 threads, 1 CTA per SM (__launch_bounds__(384, 1) in the including .cu, which also
// declares the dynamic shared memory: smem_bytes<BN, STAGES>()); sm_90a. Include after <cuda.h>,
// <cuda_fp16.h> and <stdint.h>.
#pragma once

#include "hopper.cuh"

namespace wgfp16 {

constexpr int BM = 128;                     // two consumer warpgroups of 64 rows each
constexpr int BK = 64;                      // one 128-byte swizzled row of FP16
constexpr int THREADS = 384;
constexpr int A_BOX = BM * BK * 2;          // 16,384 bytes
constexpr int B_BOX = 64 * BK * 2;          // 8,192 bytes: 64(n) x 64(k)
constexpr int ALIGN = 1024;                 // swizzled tiles start on 1024-byte boundaries
constexpr int PREFETCH_AHEAD = 8;           // k tiles before a tile's end at which C is prefetched
constexpr int C_BATCH = 4;                  // column groups whose C reads an epilogue issues before their stores

template <int BN> __host__ __device__ constexpr int stage_bytes() { return A_BOX + BN / 64 * B_BOX; }
// Stages, the alignment slack, then 2 * STAGES mbarriers rounded up to 128 bytes.
template <int BN, int STAGES> __host__ __device__ constexpr int smem_bytes()
{
    return STAGES * stage_bytes<BN>() + ALIGN + (2 * STAGES * 8 + 127) / 128 * 128;
}

// TMA_BUFS = NB: NB staging buffers per consumer warpgroup after the stages, each 64 rows x
// C_COLS floats (one 128-byte swizzled row, C's tensor-map box), and one more mbarrier per buffer
// (the loads of C for beta != 0) after the ring's.
constexpr int C_COLS = 32;                  // FP32 columns of a staging chunk
constexpr int C_CHUNK = 64 * C_COLS * 4;    // 8,192 bytes
__host__ __device__ constexpr int staging_bytes(int nb) { return 2 * nb * C_CHUNK; }  // 2 consumer warpgroups
template <int BN, int STAGES, int NB> __host__ __device__ constexpr int smem_bytes_tmastore()
{
    return STAGES * stage_bytes<BN>() + staging_bytes(NB) + ALIGN + ((2 * STAGES + 2 * NB) * 8 + 127) / 128 * 128;
}

// Work schedules of the body (see the header's comment).
enum Sched { WHOLE = 0, SPLIT = 1, TAIL = 2, PINGPONG = 3 };
// How stages are fed: TMA tiles (N, K multiples of 8); ELEMENT_FEED, the producer threads' element
// loads (any N, K); STAGED_FEED, TMA tiles from operands the kernel staged at aligned pitches
// (kernels/staged_operands.cuh), so N may be odd: the epilogue then stores scalars.
enum Feed { TMA_FEED = 0, ELEMENT_FEED = 1, STAGED_FEED = 2 };
constexpr int TAIL_MIN_K = 4;               // k tiles per split of the tail, at least
constexpr int TAIL_MAX_SPLIT = 16;          // splits per tail tile, at most (the last sums them all)

// Items [0, F) are whole tiles t = item; item F + u is split u % S of tile F + u / S. nItems of them.
struct Plan { int F, S, nItems; };
struct Item { int t, kBegin, kEnd, u; };    // u: index of a split item among the split ones, -1 whole

__device__ __forceinline__ Plan plan(int sched, int nTiles, int kTiles, int grid, int bm, int bn,
                                     long long wsFloats, int maxTiles)
{
    int F = 0, S = 1;
    if (sched == SPLIT) {
        S = max(1, grid / nTiles);
    } else if (sched == TAIL) {
        const int R = nTiles % grid;        // tiles of the last, partial wave
        F = nTiles - R;
        if (R > 0) S = max(1, min(min(grid / R, kTiles / TAIL_MIN_K), TAIL_MAX_SPLIT));
    }
    if (S > 1 && ((long long)(nTiles - F) * S * bm * bn > wsFloats || nTiles - F > maxTiles)) S = 1;
    if (S == 1) F = nTiles;
    return {F, S, F + (nTiles - F) * S};
}

__device__ __forceinline__ Item item_of(int w, Plan p, int kTiles)
{
    if (w < p.F) return {w, 0, kTiles, -1};
    const int u = w - p.F, j = u % p.S;
    return {p.F + u / p.S, j * kTiles / p.S, (j + 1) * kTiles / p.S, u};
}

// Keeps the compiler from moving accumulator reads/writes across the asynchronous MMAs.
template <int NACC>
__device__ __forceinline__ void pin(float* d)
{
#pragma unroll
    for (int i = 0; i < NACC; ++i) asm volatile("" : "+f"(d[i]) :: "memory");
}

#define WGFP16_D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), \
                     "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define WGFP16_D32(i) WGFP16_D8(i), WGFP16_D8(i + 8), WGFP16_D8(i + 16), WGFP16_D8(i + 24)

// D[64 x BN] += A[64x16] (K-major) * B[16 x BN] (MN-major), accumulate (scale-d = 1).
template <int BN> __device__ __forceinline__ void mma_k16(float* d, uint64_t descA, uint64_t descB);

template <> __device__ __forceinline__ void mma_k16<256>(float* d, uint64_t descA, uint64_t descB)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"  // scale-d = 1: accumulate
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
        "}, %128, %129, p, 1, 1, 0, 1;\n"
        "}\n"
        : WGFP16_D32(0), WGFP16_D32(32), WGFP16_D32(64), WGFP16_D32(96)
        : "l"(descA), "l"(descB), "r"(1)
        : "memory");
}

template <> __device__ __forceinline__ void mma_k16<128>(float* d, uint64_t descA, uint64_t descB)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"  // scale-d = 1: accumulate
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, p, 1, 1, 0, 1;\n"
        "}\n"
        : WGFP16_D32(0), WGFP16_D32(32)
        : "l"(descA), "l"(descB), "r"(1)
        : "memory");
}

// A warp's rows r (c0) and r + 8 (c1) of C from its accumulators: d[4j + {0,1}] at columns col +
// 8j + {0,1} of row r, d[4j + {2,3}] the same of row r + 8, as float2 pairs (N even) or, with
// `scalars` (an odd N misaligns float2), one float at a time. With beta != 0 the C of C_BATCH
// column groups is read before any of their stores: a load cannot pass a store before it (the
// compiler cannot prove C's rows apart), so reads between stores each waited a memory latency in
// turn (wgmma_splitk128 at 79x11008x4096: 21% of its samples; half of wgmma_staged's
// long-scoreboard samples at 4095^3, fp16-staged-2).
template <int BN>
__device__ __forceinline__ void store_rows(const float* d, float* c0, float* c1, bool in0, bool in1, int col, int N,
                                           float alpha, float beta, bool scalars = false)
{
    if (scalars) {
#pragma unroll
        for (int j0 = 0; j0 < BN / 8; j0 += C_BATCH) {
            float cv[C_BATCH][4];
#pragma unroll
            for (int jj = 0; jj < C_BATCH; ++jj) {
                const int j = j0 + jj;
                const bool inCol0 = col + 8 * j < N, inCol1 = col + 8 * j + 1 < N;
                const bool withC = beta != 0.0f;
                cv[jj][0] = withC && in0 && inCol0 ? c0[8 * j] : 0.0f;
                cv[jj][1] = withC && in0 && inCol1 ? c0[8 * j + 1] : 0.0f;
                cv[jj][2] = withC && in1 && inCol0 ? c1[8 * j] : 0.0f;
                cv[jj][3] = withC && in1 && inCol1 ? c1[8 * j + 1] : 0.0f;
            }
#pragma unroll
            for (int jj = 0; jj < C_BATCH; ++jj) {
                const int j = j0 + jj;
                const bool inCol0 = col + 8 * j < N, inCol1 = col + 8 * j + 1 < N;
                if (in0 && inCol0) c0[8 * j] = alpha * d[4 * j] + beta * cv[jj][0];
                if (in0 && inCol1) c0[8 * j + 1] = alpha * d[4 * j + 1] + beta * cv[jj][1];
                if (in1 && inCol0) c1[8 * j] = alpha * d[4 * j + 2] + beta * cv[jj][2];
                if (in1 && inCol1) c1[8 * j + 1] = alpha * d[4 * j + 3] + beta * cv[jj][3];
            }
        }
        return;
    }
#pragma unroll
    for (int j0 = 0; j0 < BN / 8; j0 += C_BATCH) {
        float2 old[C_BATCH][2];
#pragma unroll
        for (int jj = 0; jj < C_BATCH; ++jj) {
            const bool inCol = col + 8 * (j0 + jj) < N, withC = beta != 0.0f;
            old[jj][0] = withC && in0 && inCol ? *reinterpret_cast<const float2*>(c0 + 8 * (j0 + jj)) : make_float2(0.0f, 0.0f);
            old[jj][1] = withC && in1 && inCol ? *reinterpret_cast<const float2*>(c1 + 8 * (j0 + jj)) : make_float2(0.0f, 0.0f);
        }
#pragma unroll
        for (int jj = 0; jj < C_BATCH; ++jj) {
            const int j = j0 + jj;
            if (col + 8 * j >= N) continue;
            if (in0)
                *reinterpret_cast<float2*>(c0 + 8 * j) =
                    make_float2(alpha * d[4 * j] + beta * old[jj][0].x, alpha * d[4 * j + 1] + beta * old[jj][0].y);
            if (in1)
                *reinterpret_cast<float2*>(c1 + 8 * j) =
                    make_float2(alpha * d[4 * j + 2] + beta * old[jj][1].x, alpha * d[4 * j + 3] + beta * old[jj][1].y);
        }
    }
}

// ---- TMA store epilogue (TMASTORE) ------------------------------------------------------------

// Chunk (64 rows x C_COLS floats at shared address src) to C at element coordinates (c0 = column,
// c1 = row); TMA writes only the part inside C. One bulk group per commit, per thread.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, uint32_t src, int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n"
                 :: "l"(reinterpret_cast<uint64_t>(map)), "r"(src), "r"(c0), "r"(c1) : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// Until at most N of this thread's bulk groups are still reading their shared-memory source.
template <int N>
__device__ __forceinline__ void bulk_wait_read() { asm volatile("cp.async.bulk.wait_group.read %0;\n" :: "n"(N) : "memory"); }
// Until at most N of this thread's bulk groups are incomplete (writes done).
template <int N>
__device__ __forceinline__ void bulk_wait() { asm volatile("cp.async.bulk.wait_group %0;\n" :: "n"(N) : "memory"); }

// Byte offset of the float pair (row r, columns 2p, 2p + 1) in a 64 x 32 FP32 staging chunk laid
// out as TMA's 128B swizzle lays out C's box: row r is 128 bytes, its 16-byte unit u = p / 2 sits
// at unit u ^ (r % 8) (the chunk is 1024-byte aligned).
//
// Bank math, one st.shared.v2 of a warp (fixed jl below): lane l writes rows r = 16 warp + l / 4
// and r + 8, pair p = 4 jl + l % 4, so r % 8 = l / 4 and the unit is (2 jl + (l % 4) / 2) ^ (l / 4).
// A 128-byte row spans all 32 banks, so the bank is 4 * unit + 2 * (l % 2) (+1). For each of the
// two halves h = (l % 4) / 2 the 8 rows map to 8 different units (XOR with l / 4 is a bijection),
// so every unit (4 banks) takes 16 bytes from each half: 256 bytes in 2 wavefronts, the minimum
// for 64-bit stores. Unswizzled (unit 2 jl + h in every row) the 8 rows hit the same 8 banks: 8
// wavefronts. The beta != 0 reads (ld.shared.v2 at the same addresses) are the same pattern.
// tests/project/test_wgmma_fp16.py models it.
__device__ __forceinline__ uint32_t staged_pair(int r, int p)
{
    return r * 128 + (((p >> 1) ^ (r & 7)) << 4) + (p & 1) * 8;
}

// The epilogue of one consumer warpgroup c through its NB staging buffers at stg (see the
// header's comment). d: the 64 x BN accumulators of the warpgroup's thread tid; rowWg, col0: the
// C coordinates of its first element. cbar: the buffers' load barriers. With beta != 0 the loads
// of chunks 0 .. NB - 1 were issued during the main loop (issue_c_loads); after the store of
// chunk j the buffer of chunk j - D is refilled with chunk j - D + NB: D = 0 with two buffers
// (the next chunk is already loaded), D = 1 with more, so the thread does not wait on the store
// it has just issued.
template <int BN, int NB>
__device__ __forceinline__ void store_tile_tma(const float* d, float alpha, float beta, const CUtensorMap* tmC,
                                               uint32_t stg, uint32_t cbar, int M, int N, int rowWg, int col0,
                                               int tid, int c)
{
    constexpr int CHUNKS = BN / C_COLS;
    constexpr int D = NB > 2 ? 1 : 0;
    static_assert(NB >= 2 && CHUNKS % NB == 0 && CHUNKS / NB % 2 == 0,
                  "each buffer's barrier completes an even number of phases per tile");
    const int lane = tid % 32;
    const int r = tid / 32 * 16 + lane / 4;    // this thread's rows r and r + 8 of the chunk
    const bool withC = beta != 0.0f;
#pragma unroll
    for (int j = 0; j < CHUNKS; ++j) {
        const int b = j % NB;
        const uint32_t buf = stg + b * C_CHUNK;
        if (withC) {
            mbar_wait(cbar + 8u * b, j / NB & 1);       // chunk j of C is in buffer b
        } else {
            if (tid == 0) bulk_wait_read<NB - 1>();     // the store NB chunks back, of buffer b, has read it
            asm volatile("bar.sync %0, 128;\n" :: "r"(2 + c) : "memory");
        }
#pragma unroll
        for (int jl = 0; jl < C_COLS / 8; ++jl) {
            // d[q], d[q + 1]: row r, columns 8 (4 j + jl) + 2 (lane % 4) + {0, 1}; d[q + 2], d[q + 3]: row r + 8.
            const int q = 4 * (C_COLS / 8 * j + jl);
            const int p = 4 * jl + lane % 4;
            const uint32_t a0 = buf + staged_pair(r, p), a1 = buf + staged_pair(r + 8, p);
            float v0 = alpha * d[q], v1 = alpha * d[q + 1], v2 = alpha * d[q + 2], v3 = alpha * d[q + 3];
            if (withC) {
                float c0, c1, c2, c3;
                asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(c0), "=f"(c1) : "r"(a0) : "memory");
                asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(c2), "=f"(c3) : "r"(a1) : "memory");
                v0 += beta * c0; v1 += beta * c1; v2 += beta * c2; v3 += beta * c3;
            }
            asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" :: "r"(a0), "f"(v0), "f"(v1) : "memory");
            asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" :: "r"(a1), "f"(v2), "f"(v3) : "memory");
        }
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");   // the writes, visible to TMA
        asm volatile("bar.sync %0, 128;\n" :: "r"(2 + c) : "memory");
        if (tid == 0) {
            const int col = col0 + C_COLS * j;
            if (rowWg < M && col < N) tma_store_2d(tmC, buf, col, rowWg);
            bulk_commit();
            if (withC && j >= D && j - D + NB < CHUNKS) {
                bulk_wait_read<D>();                    // the store of chunk j - D has read its buffer...
                const int br = (j - D) % NB;            // ...so it takes chunk j - D + NB
                mbar_arrive_expect_tx(cbar + 8u * br, C_CHUNK);
                tma_load_2d(stg + br * C_CHUNK, tmC, col0 + C_COLS * (j - D + NB), rowWg, cbar + 8u * br);
            }
        }
    }
}

// beta != 0: chunks 0 .. NB - 1 of this warpgroup's C into its buffers, once the previous tile's
// stores have read them (by the thread that issued those stores).
template <int NB>
__device__ __forceinline__ void issue_c_loads(const CUtensorMap* tmC, uint32_t stg, uint32_t cbar, int rowWg, int col0)
{
    bulk_wait_read<0>();
#pragma unroll
    for (int b = 0; b < NB; ++b) {
        mbar_arrive_expect_tx(cbar + 8u * b, C_CHUNK);
        tma_load_2d(stg + b * C_CHUNK, tmC, col0 + C_COLS * b, rowWg, cbar + 8u * b);
    }
}

// One stage's tiles from unaligned A (M x K) and B (K x N), both row-major FP16, by the 128
// producer threads: element by element, zero outside, into the layout TMA's 128B swizzle gives.
// A: 128(m) rows of 64(k); thread tid keeps column k = tid % 64 and takes rows tid / 64 + 2i.
// B: BN/64 boxes of 64(k) rows of 64(n); thread tid keeps columns n = tid + 128 j, rows k = i.
template <int BN>
__device__ __forceinline__ void fill_stage(uint32_t sa, const unsigned short* __restrict__ A,
                                           const unsigned short* __restrict__ B, int M, int N, int K,
                                           int m0, int n0, int k0, int tid)
{
    const int k = tid % BK, gk = k0 + k;
#pragma unroll 8
    for (int i = 0; i < BM / 2; ++i) {
        const int r = tid / BK + 2 * i, gr = m0 + r;
        const unsigned short v = (gr < M && gk < K) ? __ldg(A + (size_t)gr * K + gk) : (unsigned short)0;
        const uint32_t at = sa + r * 128 + ((k / 8 ^ r % 8) << 4) + (k % 8) * 2;
        asm volatile("st.shared.b16 [%0], %1;\n" :: "r"(at), "h"(v) : "memory");
    }
#pragma unroll
    for (int j = 0; j < BN / 128; ++j) {
        const int n = tid + 128 * j, gn = n0 + n, box = n / 64, nn = n % 64;
        const uint32_t col = sa + A_BOX + box * B_BOX + (nn % 8) * 2;
#pragma unroll 8
        for (int i = 0; i < BK; ++i) {
            const int gki = k0 + i;
            const unsigned short v = (gki < K && gn < N) ? __ldg(B + (size_t)gki * N + gn) : (unsigned short)0;
            const uint32_t at = col + i * 128 + ((nn / 8 ^ i % 8) << 4);
            asm volatile("st.shared.b16 [%0], %1;\n" :: "r"(at), "h"(v) : "memory");
        }
    }
}

// Split-K scratch (SPLIT bodies): a module-scope partial-tile area and one arrival counter per
// tile, zero at module load; the last split of a tile resets its counter.
struct Workspace {
    float* partials;
    unsigned* counters;
    long long floats;                       // capacity of partials
    int maxTiles;                           // entries of counters
};

// The operands as plain pointers, for the ANY producer (the TMA producer reads the tensor maps).
struct Operands {
    const __half* A;
    const __half* B;
};

// PINGPONG consumers: warpgroup c runs the CTA's tiles c, c + 2, c + 4, ... of its stride loop
// whole (128 x BN, two m64 wgmmas per k16 step), so while one warpgroup runs its epilogue the
// other's main loop keeps the tensor cores busy. The producer fills the ring tile after tile, so
// the CTA's local tile i holds ring positions [i kTiles, (i + 1) kTiles): warpgroup c starts each
// of its tiles at that position (stage = position % STAGES, phase parity = position / STAGES % 2).
// A parity wait is only right one phase ahead: waiting for round r of a stage whose round r - 1
// has not completed yet passes at once. Hence the order: warpgroup c starts tile i only once the
// other warpgroup has passed its last full-barrier wait of tile i - 1 (named barriers 2 and 3:
// bar.arrive by the one, bar.sync by the other), so every position before tile i has completed.
// No barrier laps a waiting consumer either: position q + STAGES is loaded only after q was
// released. Each stage is read by one warpgroup: its empty barrier counts 4 warps.
template <int BN, int STAGES, int GROUP>
__device__ __forceinline__ void pingpong_consumer(int M, int N, int tilesM, int tilesN, int kTiles, float alpha,
                                                  float beta, float* __restrict__ C, uint32_t tiles, uint32_t bars,
                                                  int c, int warp, int lane)
{
    static_assert(BN == 128, "a warpgroup holds a whole 128 x 128 tile: 128 accumulators a thread");
    constexpr int STAGE = stage_bytes<BN>();
    constexpr int NACC = BN;                // 128 x BN floats over 128 threads
    const int nTiles = tilesM * tilesN;
    for (int i = c, w = blockIdx.x + c * gridDim.x; w < nTiles; i += 2, w += 2 * gridDim.x) {
        const Tile x = tile_of(w, tilesM, tilesN, GROUP);
        const bool next = w + (int)gridDim.x < nTiles;   // the other warpgroup has tile i + 1
        if (i > 0) asm volatile("bar.sync %0, 256;\n" :: "r"(2 + c) : "memory");   // tile i - 1 all loaded
        const long long pos = (long long)i * kTiles;
        int s = (int)(pos % STAGES), round = (int)(pos / STAGES);
        float d[NACC];
#pragma unroll
        for (int q = 0; q < NACC; ++q) d[q] = 0.0f;
        pin<NACC>(d);
        int held = -1;
        for (int kt = 0; kt < kTiles; ++kt) {
            mbar_wait(bars + 8u * s, round & 1);
            if (kt == kTiles - 1 && next) asm volatile("bar.arrive %0, 256;\n" :: "r"(3 - c) : "memory");
            const uint32_t sa = tiles + s * STAGE, sb = sa + A_BOX;
            wgmma_fence();
#pragma unroll
            for (int k = 0; k < BK / 16; ++k) {
                const uint64_t descB = smem_desc(sb + 2048 * k, B_BOX, 1024);
                mma_k16<BN>(d, smem_desc(sa + 32 * k, 16, 1024), descB);                 // rows 0-63
                mma_k16<BN>(d + NACC / 2, smem_desc(sa + 64 * 128 + 32 * k, 16, 1024), descB);  // rows 64-127
            }
            wgmma_commit();
            pin<NACC>(d);
            wgmma_wait<1>();
            pin<NACC>(d);
            if (held >= 0 && lane == 0) mbar_arrive(bars + 8u * (STAGES + held));
            held = s;
            if (++s == STAGES) { s = 0; ++round; }
            if (beta != 0.0f && kt == max(kTiles - PREFETCH_AHEAD, 0)) {
                constexpr int LINES = BN / 32;                                  // 128-byte lines per row
#pragma unroll
                for (int h = 0; h < 2; ++h)
#pragma unroll
                    for (int q = 0; q < 16 * LINES / 32; ++q) {
                        const int idx = lane + 32 * q;
                        const int r = x.m * BM + 64 * h + warp * 16 + idx / LINES, col = x.n * BN + idx % LINES * 32;
                        if (r < M && col < N)
                            asm volatile("prefetch.global.L2 [%0];\n" :: "l"(C + (size_t)r * N + col));
                    }
            }
        }
        wgmma_wait<0>();
        pin<NACC>(d);
        if (held >= 0 && lane == 0) mbar_arrive(bars + 8u * (STAGES + held));
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const float* const dh = d + h * NACC / 2;
            const int r = x.m * BM + 64 * h + warp * 16 + lane / 4;
            const int col = x.n * BN + 2 * (lane % 4);
            float* const c0 = C + (size_t)r * N + col;
            float* const c1 = c0 + (size_t)8 * N;
            store_rows<BN>(dh, c0, c1, r < M, r + 8 < M, col, N, alpha, beta);
        }
    }
}

// The whole kernel body. smem: the dynamic shared memory of smem_bytes<BN, STAGES>() bytes.
// SCHED (plan, item_of): SPLIT: the grid is tiles * S CTAs (S = gridDim.x / tiles); TAIL: full
// waves whole, the last wave's tiles split. A split item covers k tiles [j kTiles / S,
// (j + 1) kTiles / S) of its tile. Every split writes its FP32 partial to the workspace and
// counts itself in; the split that arrives last sums the S partials in the order j = 0..S-1 (the
// result does not depend on arrival order) and runs the epilogue. No CTA waits for another. A
// plan that does not fit the workspace runs unsplit (S = 1). FEED (Feed): ELEMENT_FEED, the producer
// loads elements from ops instead of TMA tiles (tmA, tmB unused), the epilogue stores scalars;
// STAGED_FEED, TMA tiles as usual, scalar stores when N is odd. TMA_BUFS > 0
// (WHOLE only): the epilogue through that many staging buffers per consumer warpgroup and TMA
// stores to tmC (smem_bytes_tmastore).
template <int BN, int STAGES, int GROUP, int SCHED = WHOLE, int FEED = TMA_FEED, int TMA_BUFS = 0>
__device__ __forceinline__ void gemm(int M, int N, int K, float alpha, float beta, float* __restrict__ C,
                                     const CUtensorMap* tmA, const CUtensorMap* tmB, unsigned char* smem,
                                     Workspace ws = {}, Operands ops = {}, const CUtensorMap* tmC = nullptr)
{
    constexpr bool TMASTORE = TMA_BUFS > 0;
    constexpr bool ANY = FEED == ELEMENT_FEED;
    static_assert(!TMASTORE || (SCHED == WHOLE && FEED == TMA_FEED), "the TMA store epilogue is written for whole tiles from TMA loads");
    constexpr int STAGE = stage_bytes<BN>();
    constexpr int NACC = BN / 2;            // 64 x BN floats over 128 threads
    const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
    const uint32_t tiles = (raw + ALIGN - 1) & ~(uint32_t)(ALIGN - 1);
    const uint32_t bars = tiles + STAGES * STAGE + staging_bytes(TMA_BUFS);
    auto full = [&](int s) { return bars + 8u * s; };
    auto empty = [&](int s) { return bars + 8u * (STAGES + s); };

    const int wg = threadIdx.x / 128;       // 0: producer, 1-2: consumers
    const int tid = threadIdx.x % 128;
    const int tilesM = (M + BM - 1) / BM, tilesN = (N + BN - 1) / BN;
    const int nTiles = tilesM * tilesN;
    const int kTiles = (K + BK - 1) / BK;
    const Plan p = SCHED == WHOLE || SCHED == PINGPONG ? Plan{nTiles, 1, nTiles}
                                  : plan(SCHED, nTiles, kTiles, gridDim.x, BM, BN, ws.floats, ws.maxTiles);

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(full(s), ANY ? 128 : 1);  // the producer's arrive.expect_tx, or each producer thread's arrive
            mbar_init(empty(s), SCHED == PINGPONG ? 4 : 2 * 4);  // one arrive per warp reading the stage
        }
        if constexpr (TMASTORE)
            for (int b = 0; b < 2 * TMA_BUFS; ++b) mbar_init(bars + 8u * (2 * STAGES + b), 1);  // C loads: expect_tx
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    }
    __syncthreads();

    if (wg == 0) {
        if constexpr (ANY) {
            const unsigned short* const a = reinterpret_cast<const unsigned short*>(ops.A);
            const unsigned short* const b = reinterpret_cast<const unsigned short*>(ops.B);
            int s = 0, round = 0;
            for (int w = blockIdx.x; w < p.nItems; w += gridDim.x) {
                const Item it = item_of(w, p, kTiles);
                const Tile x = tile_of(it.t, tilesM, tilesN, GROUP);
                for (int kt = it.kBegin; kt < it.kEnd; ++kt) {
                    if (round > 0) mbar_wait(empty(s), (round - 1) & 1);
                    fill_stage<BN>(tiles + s * STAGE, a, b, M, N, K, x.m * BM, x.n * BN, kt * BK, tid);
                    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // visible to wgmma
                    mbar_arrive(full(s));
                    if (++s == STAGES) { s = 0; ++round; }
                }
            }
            return;
        }
        if constexpr (!ANY) asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (tid == 0) {
            asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(tmA)) : "memory");
            asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(tmB)) : "memory");
            int s = 0, round = 0;           // ring position, continued from tile to tile
            for (int w = blockIdx.x; w < p.nItems; w += gridDim.x) {
                const Item it = item_of(w, p, kTiles);
                const Tile x = tile_of(it.t, tilesM, tilesN, GROUP);
                for (int kt = it.kBegin; kt < it.kEnd; ++kt) {
                    if (round > 0) mbar_wait(empty(s), (round - 1) & 1);    // released in round-1
                    const uint32_t sa = tiles + s * STAGE;
                    mbar_arrive_expect_tx(full(s), STAGE);                  // whole boxes, zero-filled or not
                    tma_load_2d(sa, tmA, kt * BK, x.m * BM, full(s));
#pragma unroll
                    for (int b = 0; b < BN / 64; ++b)
                        tma_load_2d(sa + A_BOX + b * B_BOX, tmB, x.n * BN + 64 * b, kt * BK, full(s));
                    if (++s == STAGES) { s = 0; ++round; }
                }
            }
        }
        return;
    }

    if constexpr (!ANY) asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    const int c = wg - 1;                   // rows 64c..64c+63 of the tile (PINGPONG: tiles c, c + 2, ...)
    const int warp = tid / 32, lane = tid % 32;
    if constexpr (SCHED == PINGPONG) {
        pingpong_consumer<BN, STAGES, GROUP>(M, N, tilesM, tilesN, kTiles, alpha, beta, C, tiles, bars, c, warp, lane);
        return;
    }
    // TMASTORE: this warpgroup's staging buffers and their load barriers.
    const uint32_t stg = tiles + STAGES * STAGE + c * TMA_BUFS * C_CHUNK;
    const uint32_t cbar = bars + 8u * (2 * STAGES + TMA_BUFS * c);
    if constexpr (TMASTORE)
        if (tid == 0) asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(tmC)) : "memory");
    int s = 0, round = 0;
    for (int w = blockIdx.x; w < p.nItems; w += gridDim.x) {
        const Item it = item_of(w, p, kTiles);
        const int kBegin = it.kBegin, kEnd = it.kEnd;
        const Tile x = tile_of(it.t, tilesM, tilesN, GROUP);
        const int row0 = x.m * BM + c * 64 + warp * 16;     // this warp's 16 rows
        const int col0 = x.n * BN;
        float d[NACC];
#pragma unroll
        for (int i = 0; i < NACC; ++i) d[i] = 0.0f;
        pin<NACC>(d);

        int held = -1;                      // the stage whose MMAs may still be running
        for (int kt = kBegin; kt < kEnd; ++kt) {
            mbar_wait(full(s), round & 1);
            const uint32_t sa = tiles + s * STAGE + c * 64 * 128;      // 64 rows of 128 bytes
            const uint32_t sb = tiles + s * STAGE + A_BOX;
            wgmma_fence();
#pragma unroll
            for (int k = 0; k < BK / 16; ++k)
                mma_k16<BN>(d, smem_desc(sa + 32 * k, 16, 1024), smem_desc(sb + 2048 * k, B_BOX, 1024));
            wgmma_commit();
            pin<NACC>(d);
            wgmma_wait<1>();                // the previous k tile's MMAs have retired...
            pin<NACC>(d);
            if (held >= 0 && lane == 0) mbar_arrive(empty(held));     // ...so its stage is free
            held = s;
            if (++s == STAGES) { s = 0; ++round; }
            if (beta != 0.0f && kt == max(kEnd - PREFETCH_AHEAD, kBegin)) {
                constexpr int LINES = BN / 32;                         // 128-byte lines per row
#pragma unroll
                for (int i = 0; i < 16 * LINES / 32; ++i) {
                    const int idx = lane + 32 * i;
                    const int r = row0 + idx / LINES, col = col0 + idx % LINES * 32;
                    if (r < M && col < N)
                        asm volatile("prefetch.global.L2 [%0];\n" :: "l"(C + (size_t)r * N + col));
                }
                if constexpr (TMASTORE)
                    if (tid == 0) issue_c_loads<TMA_BUFS>(tmC, stg, cbar, x.m * BM + c * 64, col0);
            }
        }
        wgmma_wait<0>();
        pin<NACC>(d);
        if (held >= 0 && lane == 0) mbar_arrive(empty(held));

        if constexpr (TMASTORE) {
            store_tile_tma<BN, TMA_BUFS>(d, alpha, beta, tmC, stg, cbar, M, N, x.m * BM + c * 64, col0, tid, c);
            continue;
        }

        if constexpr (SCHED != WHOLE) {
            if (it.u >= 0) {
                // Partial of split item u, float4 q of consumer thread th at partials[((u * NACC/4 + q) * 256 + th) * 4]:
                // each float4 store of a warp covers 512 contiguous bytes. Tile group g = u / S counts its splits.
                const int S = p.S, g = it.u / S;
                constexpr int Q = NACC / 4;
                const int th = c * 128 + tid;
                float4* const part = reinterpret_cast<float4*>(ws.partials);
#pragma unroll
                for (int q = 0; q < Q; ++q)
                    part[((size_t)it.u * Q + q) * 256 + th] = make_float4(d[4 * q], d[4 * q + 1], d[4 * q + 2], d[4 * q + 3]);
                __threadfence();            // the partial is visible device-wide before this split is counted
                __shared__ int lastSplit;
                asm volatile("bar.sync 1, 256;\n" ::: "memory");         // the consumer warpgroups
                if (th == 0) lastSplit = atomicAdd(&ws.counters[g], 1u) == (unsigned)(S - 1);
                asm volatile("bar.sync 1, 256;\n" ::: "memory");
                if (!lastSplit) continue;
                __threadfence();            // the other splits' partials are read after their counts were seen
#pragma unroll
                for (int q = 0; q < Q; ++q) {
                    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
                    for (int k = 0; k < S; ++k) {
                        const float4 v = __ldcg(&part[((size_t)(g * S + k) * Q + q) * 256 + th]);
                        sum.x += v.x; sum.y += v.y; sum.z += v.z; sum.w += v.w;
                    }
                    d[4 * q] = sum.x; d[4 * q + 1] = sum.y; d[4 * q + 2] = sum.z; d[4 * q + 3] = sum.w;
                }
                if (th == 0) ws.counters[g] = 0;                          // ready for the next launch
            }
        }

        // d[4j + {0,1}] = (row, 8j + 2q + {0,1}), d[4j + {2,3}] = (row + 8, same columns), q = lane % 4.
        const int r = row0 + lane / 4;
        const int col = col0 + 2 * (lane % 4);
        float* const c0 = C + (size_t)r * N + col;
        float* const c1 = c0 + (size_t)8 * N;
        const bool scalars = ANY || (FEED == STAGED_FEED && (N & 1));   // an odd N misaligns float2
        store_rows<BN>(d, c0, c1, r < M, r + 8 < M, col, N, alpha, beta, scalars);
    }
    if constexpr (TMASTORE)
        if (tid == 0) bulk_wait<0>();       // the last stores have read the staging buffers and written C
}

}  // namespace wgfp16
