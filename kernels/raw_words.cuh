// Rows of FP16 at any pitch brought into shared memory 16 bytes at a time: where N or K is not a
// multiple of 8, a row's 16-byte chunks start at any even address, which neither cp.async nor a
// vector load can read. Each chunk is fetched as the 4-byte words that hold it (5 where it starts
// mid-word) and shifted into place before a 16-byte store to shared memory: about half the loads
// that single halves take and an eighth of the shared stores. Used by skinny_any (skinny.cuh) and
// wmma_stream.
#pragma once

#include <cuda_fp16.h>

namespace raw_words {

// Eight halves of a row-major rows x cols matrix from (r, c) (c a multiple of 8), for a row pitch
// that is no multiple of 16 bytes, which cp.async cannot copy: the chunk's bytes start at any even
// address, so it is fetched as the 4-byte words that hold it (5 where it starts mid-word), and
// only those holding a half inside the matrix (an aligned word that holds an element is readable).
// The words stay raw until the stage is stored (chunk()), so that no instruction waits on them
// while the MMAs of the tile before run.
__device__ __forceinline__ size_t chunk_at(const __half* src, int cols, int r, int c)  // the chunk's first byte
{
    return reinterpret_cast<size_t>(src + (size_t)r * cols + c);
}

__device__ __forceinline__ int chunk_halves(int rows, int cols, int r, int c)  // inside the matrix: 0-8
{
    return r < rows ? max(0, min(8, cols - c)) : 0;
}

__device__ __forceinline__ void fetch_words(unsigned (&w)[5], const __half* __restrict__ src, int rows, int cols, int r, int c)
{
    const size_t at = chunk_at(src, cols, r, c);
    const unsigned* const p = reinterpret_cast<const unsigned*>(at & ~(size_t)3);
    const int halves = chunk_halves(rows, cols, r, c);
    const int words = halves == 0 ? 0 : ((int)(at & 2) / 2 + halves + 1) / 2;  // the words that hold halves 0 .. halves - 1
#pragma unroll
    for (int e = 0; e < 5; ++e) w[e] = e < words ? __ldg(p + e) : 0u;
}

// The chunk from its words: shifted into place, zero past the matrix (where a word ran into the
// next row).
__device__ __forceinline__ void chunk(unsigned (&v)[4], const unsigned (&w)[5], const __half* src, int rows, int cols, int r, int c)
{
    const int shift = (int)(chunk_at(src, cols, r, c) & 2) * 8;  // bits to drop from the first word: 0 or 16
    const int halves = chunk_halves(rows, cols, r, c);
#pragma unroll
    for (int e = 0; e < 4; ++e) {
        const unsigned keep = 2 * e + 1 < halves ? 0xffffffffu : 2 * e < halves ? 0x0000ffffu : 0u;
        v[e] = __funnelshift_r(w[e], w[e + 1], shift) & keep;
    }
}

__device__ __forceinline__ void st_shared_16(unsigned dst, const unsigned (&v)[4])
{
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" :: "r"(dst), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]) : "memory");
}

}  // namespace raw_words
