// splitk128x256x8rs: splitk128x256x8 with the partials summed by every split at once, a slice of
// the tile each (a reduce-scatter), instead of by the last arrivals of a tree.
//
// Predecessor: splitk128x256x8. Its tree leaves the sum to one block per group and one per tile:
// at 256x256x32768 (S = 64, groups of 8) two blocks in turn read 8 partials of 128 KiB each, one
// SM reading from L2 alone while the others idle; the GEMM took 0.133 ms there, 75% of cuBLAS,
// with the SMs busy 73% of it. Idea: the S splits of a tile wait for one another and then each
// sums 1/S of the tile over all S partials, in an order fixed by S, and writes that slice of C:
// every block reads 128 KiB, the sum is as deterministic as the tree's (H100: 0.098 ms,
// 100% of cuBLAS, SMs busy 94%; benchmarks/results/2026-11-23-h100/shapes-profile-3).
//
// Waiting needs every split of a tile resident at once: a split grid has at most 132 blocks (one
// per SM of a 132-SM GPU: the manifest's grid z) and is launched cooperatively (manifest key
// `cooperative`, true where S > 1), so a GPU that cannot hold it fails the launch instead of
// hanging. An unsplit grid (S = 1, any number of tiles) waits for nobody: a plain launch.
//
// The exchange (kernels/reduce_scatter.cuh): split z writes its partial in C's layout (row-major
// 128 x 256 floats, slot z * tiles + tile), waits until all S have, sums its slice of the tile
// and leaves; the last one out resets the tile's counters for the next launch.
//
// S (the manifest's grid z): max(1, min(64, K // 512, 132 // tiles)), as splitk128x256x8. Which k
// tiles a split multiplies and which slice it sums: kernels/spread_rs.cuh.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module); cooperative where S > 1.
// Launch: block (256), grid (cdiv(N, 256), cdiv(M, 128), S), 49,664 bytes of dynamic shared
// memory; one block per SM; sm_80+.

#include "spread_rs.cuh"

using SplitRS128x256 = spread::SplitReduceScatter<128, 256>;
static_assert(SplitRS128x256::SMEM_BYTES == 49664, "update smem_bytes in kernels/ladder.toml");

extern "C" __global__ void __launch_bounds__(SplitRS128x256::NTHREADS, 1)
sgemm_splitk128x256x8rs(int M, int N, int K, float alpha, const float* __restrict__ A,
                        const float* __restrict__ B, float beta, float* __restrict__ C)
{
    extern __shared__ __align__(16) float smem[];
    spread::three_paths<SplitRS128x256>(smem, M, N, K, alpha, A, B, beta, C);
}
