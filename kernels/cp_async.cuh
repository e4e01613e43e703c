// cp.async (sm_80+): copies from global to shared memory that bypass the registers, so a
// kernel can issue the loads of a later tile and compute on the current one while they land.
//
// Contract: `dst` is a shared-memory address as a 32-bit integer (smem_u32), aligned to the copy
// size; `src` is a global address aligned to it. The `z` forms read `src_bytes` bytes (the copy
// size or 0) and zero-fill the rest, which is how a tile's out-of-range part is loaded as zeros
// without a branch. 4-byte copies go through L1 (.ca: the only mode for 4 bytes), 16-byte ones
// bypass it (.cg): a GEMM tile is read once per block.
#pragma once

__device__ __forceinline__ unsigned smem_u32(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void cp_async_4(unsigned dst, const void* src)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" :: "r"(dst), "l"(src) : "memory");
}

__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(dst), "l"(src) : "memory");
}

__device__ __forceinline__ void cp_async_4z(unsigned dst, const void* src, unsigned src_bytes)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" :: "r"(dst), "l"(src), "r"(src_bytes) : "memory");
}

__device__ __forceinline__ void cp_async_16z(unsigned dst, const void* src, unsigned src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(dst), "l"(src), "r"(src_bytes) : "memory");
}

// Close the group of copies issued since the last commit.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Wait until at most N committed groups are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory"); }
