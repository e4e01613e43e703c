// A hand-written Hopper GEMM of the foreign corpus (sm_90a): warpgroup MMA from shared memory,
// fed by the simplest loop there is. C (MxN, FP32) = A (MxK, FP16, row-major) @ B, with B held
// as its transpose Bt (NxK row-major: both operands K-major). Block tile 64x128x64, one
// warpgroup (128 threads); every k step loads A's and B's tiles with 16-byte loads, stores them
// to shared memory in the 128-byte swizzle the descriptors name, waits at a barrier, issues four
// wgmma.m64n128k16 and waits for all of them (wait_group 0) before the next step's loads.
// Nothing is in flight across steps: no pipelining, and the MMAs waited for at once.
// Contract: M % 64 == 0, N % 128 == 0, K % 64 == 0; grid (N / 128, M / 64), block 128.

#include <cuda_fp16.h>
#include <stdint.h>

#define ACC8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), \
                "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])

// A shared-memory matrix descriptor: K-major, 128-byte swizzle, 8-row groups 1024 bytes apart.
__device__ __forceinline__ uint64_t k_major_desc(uint32_t addr)
{
    return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)(1024 >> 4) << 32) | (1ull << 62);
}

// D[64x128] += A[64x16] * B[16x128], both K-major.
__device__ __forceinline__ void mma_m64n128k16(float* d, uint64_t a, uint64_t b)
{
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
        "%64, %65, 1, 1, 1, 0, 0;\n"
        : ACC8(0), ACC8(8), ACC8(16), ACC8(24), ACC8(32), ACC8(40), ACC8(48), ACC8(56)
        : "l"(a), "l"(b)
        : "memory");
}

// One row of 64 halves (128 bytes) in 16-byte chunks, chunk j of row r at chunk j ^ (r % 8).
__device__ __forceinline__ void load_rows(unsigned char* tile, const __half* src, int ld, int rows, int tid)
{
    for (int c = tid; c < rows * 8; c += 128) {
        const int r = c / 8, j = c % 8;
        const uint4 v = *reinterpret_cast<const uint4*>(src + (size_t)r * ld + j * 8);
        *reinterpret_cast<uint4*>(tile + r * 128 + ((j ^ (r % 8)) * 16)) = v;
    }
}

extern "C" __global__ void __launch_bounds__(128) wg_sync(const __half* A, const __half* Bt, float* C, int M, int N,
                                                          int K)
{
    __shared__ __align__(1024) unsigned char raw[1024 + 64 * 128 + 128 * 128];
    unsigned char* tiles = raw + ((1024 - ((uintptr_t)__cvta_generic_to_shared(raw) & 1023)) & 1023);
    const uint32_t sa = (uint32_t)__cvta_generic_to_shared(tiles), sb = sa + 64 * 128;
    const int tid = threadIdx.x, bm = blockIdx.y * 64, bn = blockIdx.x * 128;
    float d[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) d[i] = 0.f;
    for (int k0 = 0; k0 < K; k0 += 64) {
        load_rows(tiles, A + (size_t)bm * K + k0, K, 64, tid);
        load_rows(tiles + 64 * 128, Bt + (size_t)bn * K + k0, K, 128, tid);
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        __syncthreads();
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
        for (int k = 0; k < 4; ++k) mma_m64n128k16(d, k_major_desc(sa + 32 * k), k_major_desc(sb + 32 * k));
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
        __syncthreads();
    }
    const int warp = tid / 32, lane = tid % 32;
    const int r = bm + warp * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < 16; ++j) {
        const int col = bn + 8 * j + 2 * (lane % 4);
        C[(size_t)r * N + col] = d[4 * j];
        C[(size_t)r * N + col + 1] = d[4 * j + 1];
        C[(size_t)(r + 8) * N + col] = d[4 * j + 2];
        C[(size_t)(r + 8) * N + col + 1] = d[4 * j + 3];
    }
}
