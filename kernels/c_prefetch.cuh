// c_prefetch.cuh: a block's tile of C brought into L2 before its epilogue needs it.
//
// When beta != 0 the epilogue reads the tile of C it writes. Left to the epilogue, those reads
// wait a memory latency at the end of each block, and in a one-wave grid every block reads its C
// from DRAM at the same moment (splitk64x64x8rs at 32768x64x1024: 7% of the warp samples at the
// epilogue's C loads, benchmarks/results/2026-11-23-h100/lean-copies/tall-profile). Prefetched
// to L2 as the block starts, with the evict-last hint (ahead of the lines of A and B that stream
// past meanwhile), they overlap the main loop and hit L2 at the end.
//
// Measured (H100, A/B in one run: benchmarks/results/2026-11-23-h100/lean-copies/prefetch-c-2):
// splitk64x64x8 1.7-16% faster at all twelve shapes, 32768x64x1024 89.6 -> 92.3% of cuBLAS, 768^3
// 94 -> 101%. Not used by splitk64x64x8rs, splitk64x64x8t4 and texld128x128x8, which it made up
// to 11% slower on grids of many waves and short K (2048x2048x64, 8192x8192x128, 4096x4096x512):
// there C is a large share of all traffic, and fetching it early only moves that traffic.

#pragma once

namespace ragged {

// Prefetch rows bm .. bm + BM - 1 (below M), columns bn .. bn + BN - 1 (below N) of C into L2:
// every 128-byte line of each row, one row per thread of the NT. Nothing when beta == 0.
template <int BM, int BN, int NT>
__device__ __forceinline__ void prefetch_c(const float* C, int M, int N, float beta, int bm, int bn)
{
    if (beta == 0.0f) return;
    const int last = min(bn + BN, N) - 1;  // the tile's last column inside C
    for (int r = threadIdx.x; r < BM && bm + r < M; r += NT) {
        const float* row = C + (size_t)(bm + r) * N;
        for (int c = bn; c < last; c += 32)
            asm volatile("prefetch.global.L2::evict_last [%0];" :: "l"(row + c));
        asm volatile("prefetch.global.L2::evict_last [%0];" :: "l"(row + last));
    }
}

}  // namespace ragged
