// tf32x3wg: 3xTF32 on Hopper's warpgroup MMA: FP32 tiles in by TMA, split in shared memory, three
// TF32 wgmmas per k step.
//
// Predecessor: tf32x3 (the same error compensation on mma.sync). tf32x3 keeps the FP32 bound but
// mma.sync's TF32 rate is about 2/3 of wgmma's, and every warp loads and splits its own fragments
// from shared memory. Idea (sm_90a): the pipeline of wgmma (TMA + mbarrier ring, one producer and
// two consumer warpgroups, setmaxnreg), with the split done once per tile in shared memory:
// (1) TMA brings FP32 tiles of A (one 32(k) x 128(m) box, 128-byte swizzle: each row of 32 floats
//     is one 128-byte swizzle row, already the K-major layout wgmma reads) and of B (one 128(n) x
//     32(k) box, no swizzle: rows of k, 512 bytes each) into a 3-stage full/empty mbarrier ring.
// (2) TF32 wgmma reads both operands K-major only (no transpose for 32-bit types), and B is KxN
//     row-major, N-major. Computing C^T = B^T A^T does not help: then B^T is the A operand and is
//     still M-major in memory. So the 256 consumer threads split each stage into four TF32 tiles
//     in a split buffer: big = tf32(x), small = tf32(x - big) (split_tf32, tf32_mma.cuh):
//       A: elementwise, at the same swizzled offsets (aBig, aSmall are laid out as the TMA tile);
//       B: transposed, B[k][n] written to [n][k] tiles in the K-major 128-byte-swizzle layout
//          (16-byte chunk k/4 of row n at chunk (k/4) ^ (n % 8) of the row's 128 bytes).
//     The FP32 stage goes back to the producer as soon as it is split (one arrive per warp).
// (3) Per k tile each consumer warpgroup issues 12 wgmma.m64n128k8 (TF32): for each of the 4 k8
//     steps small_a*big_b and big_a*small_b, then the 4 big_a*big_b, into a fresh 64x128 partial
//     accumulator (the first with scale-d = 0), which is added to the running accumulator with
//     FADD once they retire: inside the MMA the sums round toward zero, and on one accumulator
//     running over all of K that bias grows like K (tf32x3's header has the measurement).
// (4) Two split buffers: while the wgmmas of tile kt read buffer kt % 2, the consumers split tile
//     kt+1 into the other; each writer fences its stores into the async proxy
//     (fence.proxy.async) and a named barrier over the 256 consumer threads, after the wgmmas of
//     tile kt have retired (wgmma.wait_group 0), hands both buffers over for the next tile.
// (5) Grouped rasterisation of the 1-D grid (groups of 16 block rows), as wgmma.
// Descriptors (K-major, 128-byte swizzle, as wgmma's A): start >> 4, LBO unused (16), SBO = 1024
// bytes (8 rows of 128 bytes); the k8 step inside a swizzled row advances the start by 32 bytes.
// Epilogue: consumer c holds rows 64c + 16w + lane/4 (+8), columns 8j + 2(lane%4) (+1), j < 16.
//
// Contract: block (384), grid (M/128 * N/128), SMEM_BYTES (230,528) of dynamic shared memory (3
// FP32 stages of 32 KB, 2 split buffers of 64 KB, 1 KB of alignment slack, the mbarriers);
// sm_90a. M, N multiples of 128, K a multiple of 32 (whole tiles, no bounds checks); beta == 0: C
// is not read. Kernel parameters: the fixed list, then the tensor maps of A and B
// (__grid_constant__ CUtensorMap, made by KernelRunner from the manifest's tensor_maps).

#include <cuda.h>
#include <stdint.h>

#include "hopper.cuh"
#include "tf32_mma.cuh"

#define BM 128
#define BN 128
#define BK 32                                // 32 floats = one 128-byte swizzle row
#define STAGES 3
#define NTHREADS 384                         // producer warpgroup + 2 consumer warpgroups
#define NCONSUMERS 256
#define GROUP_M 16                           // block rows per rasterisation group
#define A_BYTES (BM * BK * 4)                // 16,384: one 32(k) x 128(m) TMA box
#define B_BYTES (BK * BN * 4)                // 16,384: one 128(n) x 32(k) TMA box
#define STAGE_BYTES (A_BYTES + B_BYTES)      // 32,768 = the expect_tx count of a stage
#define SPLIT_TILE 16384                     // one TF32 tile: 128 rows of 32 (K-major, swizzled)
#define SPLIT_BYTES (4 * SPLIT_TILE)         // aBig, aSmall, bBig, bSmall
#define ALIGN_SLACK 1024                     // swizzled tiles start on 1024-byte boundaries
#define BAR_BYTES 128                        // 2 * STAGES mbarriers of 8 bytes, rounded up
#define SMEM_BYTES (STAGES * STAGE_BYTES + 2 * SPLIT_BYTES + ALIGN_SLACK + BAR_BYTES)  // 230,528
#define SBO 1024                             // K-major, 128B swizzle: from one 8-row group to the next

// Keeps the compiler from moving accumulator reads/writes across the asynchronous MMAs.
__device__ __forceinline__ void fence_acc(float* d)
{
#pragma unroll
    for (int i = 0; i < 64; ++i) asm volatile("" : "+f"(d[i]) :: "memory");
}

#define ACC8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), \
                "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define ACC32(i) ACC8(i), ACC8(i + 8), ACC8(i + 16), ACC8(i + 24)

// D[64x128] = A[64x8] * B[8x128] (+ D when ACCUMULATE), TF32 in, FP32 out; A and B K-major.
template <int ACCUMULATE>
__device__ __forceinline__ void wgmma_m64n128k8_tf32(float* d, uint64_t descA, uint64_t descB)
{
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
        "%64, %65, p, 1, 1;\n"
        "}\n"
        : ACC32(0), ACC32(32)
        : "l"(descA), "l"(descB), "r"(ACCUMULATE)
        : "memory");
}

// ---- the split -------------------------------------------------------------------------------

// Splits the FP32 stage at `stage` (generic pointer into shared memory) into the split buffer at
// `split`; ct is the consumer thread (0..255). A: 1024 float4, 4 per thread, same offsets in
// and out. B: thread ct takes column n = ct % 128 and 16-byte k chunks kc = ct / 128 + 2j; it
// reads B[4kc..4kc+3][n] (a warp reads 32 consecutive floats of a row: no bank conflict) and
// writes one float4 of big and one of small at row n, chunk kc ^ (n % 8) (the 8 lanes of one n % 8
// cycle cover the 32 banks: 4 wavefronts per warp store, the minimum for 512 bytes).
__device__ __forceinline__ void split_stage(const unsigned char* stage, unsigned char* split, int ct)
{
    const float4* a = reinterpret_cast<const float4*>(stage);
    uint4* aBig = reinterpret_cast<uint4*>(split);
    uint4* aSmall = reinterpret_cast<uint4*>(split + SPLIT_TILE);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const int i = ct + NCONSUMERS * j;
        const float4 x = a[i];
        uint4 big, small;
        split_tf32(x.x, big.x, small.x);
        split_tf32(x.y, big.y, small.y);
        split_tf32(x.z, big.z, small.z);
        split_tf32(x.w, big.w, small.w);
        aBig[i] = big;
        aSmall[i] = small;
    }
    const float* b = reinterpret_cast<const float*>(stage + A_BYTES);
    unsigned char* bBig = split + 2 * SPLIT_TILE;
    unsigned char* bSmall = split + 3 * SPLIT_TILE;
    const int n = ct % BN;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const int kc = ct / BN + 2 * j;
        const float* col = b + 4 * kc * BN + n;
        uint4 big, small;
        split_tf32(col[0], big.x, small.x);
        split_tf32(col[BN], big.y, small.y);
        split_tf32(col[2 * BN], big.z, small.z);
        split_tf32(col[3 * BN], big.w, small.w);
        const int off = n * 128 + ((kc ^ (n % 8)) << 4);
        *reinterpret_cast<uint4*>(bBig + off) = big;
        *reinterpret_cast<uint4*>(bSmall + off) = small;
    }
}

__device__ __forceinline__ void consumers_sync() { asm volatile("bar.sync 1, %0;\n" :: "n"(NCONSUMERS) : "memory"); }

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
sgemm_tf32x3wg(int M, int N, int K, float alpha, const float* __restrict__ A,
               const float* __restrict__ B, float beta, float* __restrict__ C,
               const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    // Stages at tiles + s*STAGE_BYTES (A then B), split buffers after them, barriers last:
    // full[s], then empty[s].
    const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
    const uint32_t tiles = (raw + ALIGN_SLACK - 1) & ~(uint32_t)(ALIGN_SLACK - 1);
    unsigned char* const gtiles = smem_raw + (tiles - raw);  // the same place, as a generic pointer
    const uint32_t splits = tiles + STAGES * STAGE_BYTES;
    const uint32_t bars = splits + 2 * SPLIT_BYTES;
    auto full = [&](int s) { return bars + 8u * s; };
    auto empty = [&](int s) { return bars + 8u * (STAGES + s); };

    const int wg = threadIdx.x / 128;          // 0: producer, 1-2: consumers

    const int tilesM = M / BM, tilesN = N / BN;
    const Tile tile = tile_of(blockIdx.x, tilesM, tilesN, GROUP_M);
    const int bm = tile.m * BM, bn = tile.n * BN;
    const int kTiles = K / BK;

    if (threadIdx.x == 0) ring_init(full(0), STAGES, NCONSUMERS / 32);   // one release per consumer warp, once it has split the stage
    __syncthreads();

    if (wg == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (threadIdx.x == 0) {
            asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(&tmA)) : "memory");
            asm volatile("prefetch.tensormap [%0];\n" :: "l"(reinterpret_cast<uint64_t>(&tmB)) : "memory");
            for (int kt = 0; kt < kTiles; ++kt) {
                const int s = kt % STAGES;
                if (kt >= STAGES) mbar_wait(empty(s), ((kt / STAGES) - 1) & 1);  // round r-1 split
                const uint32_t sa = tiles + s * STAGE_BYTES;
                mbar_arrive_expect_tx(full(s), STAGE_BYTES);
                tma_load_2d(sa, &tmA, kt * BK, bm, full(s));             // A[bm:+128, k:+32]
                tma_load_2d(sa + A_BYTES, &tmB, bn, kt * BK, full(s));   // B[k:+32, bn:+128]
            }
        }
        return;
    }

    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    const int ct = threadIdx.x - 128;           // consumer thread 0..255
    const int c = wg - 1;                       // consumer warpgroup: rows 64c..64c+63 of the tile
    const int lane = threadIdx.x % 32;

    // Split tile kt (stage kt % STAGES) into split buffer kt % 2, give the stage back, and fence
    // the stores into the async proxy that wgmma reads through.
    auto split = [&](int kt) {
        const int s = kt % STAGES;
        mbar_wait(full(s), (kt / STAGES) & 1);
        split_stage(gtiles + s * STAGE_BYTES, gtiles + STAGES * STAGE_BYTES + (kt % 2) * SPLIT_BYTES, ct);
        __syncwarp();
        if (lane == 0) mbar_arrive(empty(s));
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    };

    float acc[64], part[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] = 0.0f;
#pragma unroll
    for (int i = 0; i < 64; ++i) part[i] = 0.0f;

    split(0);
    consumers_sync();
    for (int kt = 0; kt < kTiles; ++kt) {
        const uint32_t buf = splits + (kt % 2) * SPLIT_BYTES;
        const uint32_t aBig = buf + c * 64 * 128, aSmall = aBig + SPLIT_TILE;  // this warpgroup's 64 rows
        const uint32_t bBig = buf + 2 * SPLIT_TILE, bSmall = buf + 3 * SPLIT_TILE;
        wgmma_fence();
        fence_acc(part);
        wgmma_m64n128k8_tf32<0>(part, smem_desc(aSmall, 16, SBO), smem_desc(bBig, 16, SBO));
        wgmma_m64n128k8_tf32<1>(part, smem_desc(aBig, 16, SBO), smem_desc(bSmall, 16, SBO));
#pragma unroll
        for (int k = 1; k < BK / 8; ++k) {
            wgmma_m64n128k8_tf32<1>(part, smem_desc(aSmall + 32 * k, 16, SBO), smem_desc(bBig + 32 * k, 16, SBO));
            wgmma_m64n128k8_tf32<1>(part, smem_desc(aBig + 32 * k, 16, SBO), smem_desc(bSmall + 32 * k, 16, SBO));
        }
#pragma unroll
        for (int k = 0; k < BK / 8; ++k)
            wgmma_m64n128k8_tf32<1>(part, smem_desc(aBig + 32 * k, 16, SBO), smem_desc(bBig + 32 * k, 16, SBO));
        wgmma_commit();
        fence_acc(part);
        if (kt + 1 < kTiles) split(kt + 1);     // overlaps the MMAs of tile kt
        wgmma_wait<0>();
        fence_acc(part);
#pragma unroll
        for (int i = 0; i < 64; ++i) acc[i] += part[i];
        consumers_sync();                       // buffer kt % 2 is free, tile kt+1 is split
    }

    // Epilogue: acc[4j + {0,1}] = (r, 8j + 2(lane%4) .. +1), acc[4j + {2,3}] = (r + 8, same columns).
    const int warp = (threadIdx.x / 32) % 4;
    const int r = bm + c * 64 + warp * 16 + lane / 4;
    float* const c0 = C + (size_t)r * N + bn + 2 * (lane % 4);
    float* const c1 = c0 + (size_t)8 * N;
    if (beta != 0.0f) {
#pragma unroll
        for (int j = 0; j < 16; ++j) {
            const float2 o0 = *reinterpret_cast<const float2*>(c0 + 8 * j);
            const float2 o1 = *reinterpret_cast<const float2*>(c1 + 8 * j);
            *reinterpret_cast<float2*>(c0 + 8 * j) =
                make_float2(alpha * acc[4 * j] + beta * o0.x, alpha * acc[4 * j + 1] + beta * o0.y);
            *reinterpret_cast<float2*>(c1 + 8 * j) =
                make_float2(alpha * acc[4 * j + 2] + beta * o1.x, alpha * acc[4 * j + 3] + beta * o1.y);
        }
    } else {
#pragma unroll
        for (int j = 0; j < 16; ++j) {
            *reinterpret_cast<float2*>(c0 + 8 * j) = make_float2(alpha * acc[4 * j], alpha * acc[4 * j + 1]);
            *reinterpret_cast<float2*>(c1 + 8 * j) = make_float2(alpha * acc[4 * j + 2], alpha * acc[4 * j + 3]);
        }
    }
}
