// Staged operands (manifest key `staging`): an FP16 operand whose rows TMA cannot address (a row
// of N or K halves that is not a multiple of 16 bytes) is copied by the whole grid into a buffer
// the launcher owns, with the same rows at a pitch of a multiple of PITCH halves (the manifest's
// staging_pitch_bytes / 2, at least 8), before the TMA main loop reads it through a tensor map over
// that buffer (true cols, padded pitch: TMA still zero-fills past the matrix, so what lies in a
// row's padding does not matter).
//
// Why a pitch of whole 128-byte lines (64 halves) in the rungs: rows of 5000 halves (10000 bytes)
// are not whole 32-byte sectors, so every other one starts 16 bytes into a sector and each 128-byte
// row of a TMA box touches five sectors, not four; at 5000^3 wgmma_tmastore moved 26% more through
// L2 than at 5120^3 and ran 0.594 against 0.437 ms (H200, 2026-11-29-h200). A copy's rows at a
// multiple of 64 halves each fill one line: 2500^3 ran 33% faster on wgmma_staged128 so.
//
// Why a copy and not element loads in the producer (wgmma_unaligned128): one producer warpgroup
// loading 2-byte elements feeds the tensor cores at ~5% of their rate. Here every thread of the
// grid copies, 16 bytes a store, once per launch, and the main loop then runs at the TMA rungs'
// speed: at 4095^3 (134 MB copied) wgmma_staged takes 0.330 ms under ncu where wgmma_persist
// takes about 0.27 ms at 4096^3 (fp16-staged-4; 0.353 ms before copy_rows issued its loads
// together, fp16-staged-3).
//
// The copy, per 16-byte chunk of a destination row: its 8 source halves start at flat index f =
// row * cols + col, at any even byte offset o within an aligned 16-byte unit of the source. They
// are read as that unit and the next (two 128-bit loads; one when o == 0), and the 16 bytes at o
// picked out by word selects and a funnel shift. A warp walks consecutive chunks, so each of its
// 128-bit loads covers 512 contiguous bytes: whole sectors, the second load mostly the first's
// (4-byte loads at a 16-byte lane stride, the first version, asked L2 for 3.8x the sectors:
// fp16-staged's report). A chunk that runs past the row's end, or whose second unit would pass
// the matrix's end, is read element by element, zeros past the row.
//
// Then a grid barrier (generation counter: arrivals counted, the last one resets the count and
// bumps the generation, the others spin on it), so every CTA's TMA reads see every CTA's copy.
// Proxy order: each thread fences its generic-proxy writes to the async proxy before arriving,
// and again after the barrier, before any TMA is issued.
//
// Contract: the grid is launched cooperatively (all CTAs resident: the launcher does, for
// `staging` kernels); launches do not overlap in time (one barrier per loaded module); A, B are
// 4-byte aligned; rows * cdiv(cols, 8) < 2^31 per operand. A null destination: that operand's rows
// are already aligned and its tensor map is over the operand itself; nothing is copied. When no
// operand is staged the barrier is skipped (the decision is the same in every CTA).
// Include after <cuda_fp16.h> and <stdint.h>.
#pragma once

#include "grid_barrier.cuh"

namespace staged {

using grid::GridBarrier;
using grid::grid_sync;

// Rows x cols halves at src (pitch cols) to dst (pitch cdiv(cols, PITCH) * PITCH halves: the
// manifest's staging_pitch_bytes / 2), by every thread of the grid.
// A thread takes U chunks a pass (grid-stride apart) and issues all their 128-bit loads before it
// shifts or stores any. A chunk at a time (a grid-stride loop under `#pragma unroll 4`), each
// chunk's loads were waited on before the loop's next bound check let the next go: 18% of
// wgmma_staged's samples at 4095^3 (fp16-staged-3, gemmprof's lone-loads note), 0% now
// (fp16-staged-4). H100, one run (A/B run ab16f): wgmma_staged 4095^3 0.355 -> 0.329 ms (257
// -> 278% of cuBLAS GemmEx), 1023^3 66 -> 80%, 8191^3 355 -> 370%; wgmma_staged128 1023^3 107
// -> 128%, 4095^3 227 -> 241%.
template <int PITCH, int U = 4>
__device__ __forceinline__ void copy_rows(const __half* __restrict__ src, __half* __restrict__ dst, int rows, int cols)
{
    static_assert(PITCH % 8 == 0, "whole 16-byte chunks a row");
    const unsigned chunks = (cols + 7) / 8;                  // 16-byte chunks per destination row
    const size_t pitch = (size_t)(cols + PITCH - 1) / PITCH * PITCH;  // halves from one destination row to the next
    const unsigned total = (unsigned)rows * chunks;
    const long long bytes = 2LL * rows * cols;
    // every CTA of the grid a share, whatever its shape (wgmma_stagedswap160's is 3-D: counted by x
    // alone, each of its y * z CTAs of an x would copy the same chunks)
    const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const unsigned stride = gridDim.x * gridDim.y * gridDim.z * blockDim.x;
    const uint4* const aligned = reinterpret_cast<const uint4*>(src);
    const unsigned short* const halves = reinterpret_cast<const unsigned short*>(src);
    for (unsigned i0 = block * blockDim.x + threadIdx.x; i0 < total; i0 += U * stride) {
        unsigned r[U], c[U];
        long long f[U];
        int o[U];
        bool fast[U];
        uint4 a[U], b[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {  // the chunks' aligned units, every load of the pass in flight
            const unsigned i = i0 + u * stride;
            r[u] = i / chunks, c[u] = (i - r[u] * chunks) * 8;
            f[u] = (long long)r[u] * cols + c[u];            // the chunk's first source half
            const long long q = f[u] >> 3;                   // the aligned 16 source bytes it starts in
            o[u] = (int)(2 * f[u] & 15);                     // at byte o (even)
            fast[u] = i < total && c[u] + 8 <= (unsigned)cols && (o[u] == 0 || 16 * (q + 2) <= bytes);
            a[u] = fast[u] ? __ldg(aligned + q) : make_uint4(0, 0, 0, 0);
            b[u] = fast[u] && o[u] != 0 ? __ldg(aligned + q + 1) : make_uint4(0, 0, 0, 0);  // o == 0 reads a alone
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (i0 + u * stride >= total) break;
            uint32_t out[4];
            if (fast[u]) {
                const uint32_t w[8] = {a[u].x, a[u].y, a[u].z, a[u].w, b[u].x, b[u].y, b[u].z, b[u].w};
                // out[j] = bytes o + 4j .. o + 4j + 3 of w: words o / 4 + j and the next, shifted by o % 4 bytes.
                uint32_t t[6], v[5];
#pragma unroll
                for (int j = 0; j < 6; ++j) t[j] = o[u] & 8 ? w[j + 2] : w[j];
#pragma unroll
                for (int j = 0; j < 5; ++j) v[j] = o[u] & 4 ? t[j + 1] : t[j];
#pragma unroll
                for (int j = 0; j < 4; ++j) out[j] = __funnelshift_r(v[j], v[j + 1], (o[u] & 2) * 8);
            } else {                                         // the row's last chunk, or the matrix's
                unsigned short h[8];
#pragma unroll
                for (int j = 0; j < 8; ++j) h[j] = c[u] + j < (unsigned)cols ? __ldg(halves + f[u] + j) : (unsigned short)0;
#pragma unroll
                for (int j = 0; j < 4; ++j) out[j] = h[2 * j] | (uint32_t)h[2 * j + 1] << 16;
            }
            *reinterpret_cast<uint4*>(dst + r[u] * pitch + c[u]) = make_uint4(out[0], out[1], out[2], out[3]);
        }
    }
}

// The copies of A (M x K) into As and B (K x N) into Bs where those are non-null, rows PITCH
// halves apart (a multiple), then the barrier.
template <int PITCH = 8>
__device__ __forceinline__ void stage(int M, int N, int K, const __half* A, const __half* B, __half* As, __half* Bs,
                                      GridBarrier* bar)
{
    if (As == nullptr && Bs == nullptr) return;
    if (As != nullptr) copy_rows<PITCH>(A, As, M, K);
    if (Bs != nullptr) copy_rows<PITCH>(B, Bs, K, N);
    asm volatile("fence.proxy.async.global;\n" ::: "memory");  // this thread's copies, visible to TMA
    grid_sync(bar);
    asm volatile("fence.proxy.async.global;\n" ::: "memory");
}

}  // namespace staged
