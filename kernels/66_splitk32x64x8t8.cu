// splitk32x64x8t8: splitk32x32x8t4 with 8x4 results per thread on 32x64 tiles of two warps: decode steps of 17-32 rows.
//
// Predecessor: splitk32x32x8t4. At FP32 decode steps of 17-32 rows (32x4096x4096, 20x4096x14336)
// `best` ran splitk64x64x8, whose 64-row tiles leave half their rows or more empty: 61-80% of
// cuBLAS. Idea: kernels/t4_tile.cuh at TM = 8, as cuBLAS's small-product kernels: each thread
// computes 8x4 results from two float4 of A and one of B per k step (3 shared loads per 32 FFMAs,
// where TM = 4 loads 2 per 16), on a 32x64 tile of 64 threads: a step of 17-32 rows fills one
// tile's rows, each element of B loaded is used 32 times and of A 64 times, and K is split so that
// about 1056 blocks fill the SMs. At 32 rows and N = K = 4096 it ran 114% of cuBLAS (splitk64x64x8:
// 81%). Where the t4 rungs' 64 registers let sixteen or more warps an SM hide latency at small
// products of many rows, its 126 registers (sixteen warps an SM) lose to them.
//
// Occupancy: launch bounds (64, 8): at most 128 registers, 12,804 bytes of shared memory; eight
// blocks (16 warps) per SM.
//
// S (the manifest's grid z): max(1, min(64, K // 32, 1056 // tiles)) with tiles = cdiv(M, 32) *
// cdiv(N, 64): about 1056 blocks (eight per SM of 132). S * tiles * 32 * 64 <= 1056 * 2048 floats
// whenever S > 1, inside the 2^23 floats of the workspace; tiles * (cdiv(S, 8) + 1) <= 1056
// counters, of 16384.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module).
// Launch: block (64), grid (cdiv(N, 64), cdiv(M, 32), S); 12,804 bytes of static shared memory.

#include "t4_tile.cuh"

#define BM 32
#define BN 64
#define TM 8                      // rows of results per thread (4 columns each)
#define NTHREADS 64               // BM * BN / (4 * TM)
#define GROUP 8                   // splits summed by the last of each group, then the groups' sums
#define WS_FLOATS (1LL << 23)     // partial tiles: 32 MiB
#define MAX_COUNTERS (1 << 14)    // arrival counters: groups and tiles

static_assert(t4::Tile<BM, BN, TM>::NT == NTHREADS, "block size");

__device__ __align__(16) float g_partials[WS_FLOATS];
__device__ unsigned g_counters[MAX_COUNTERS];  // zero at module load; each last arrival resets its own

extern "C" __global__ void __launch_bounds__(NTHREADS, 8)
sgemm_splitk32x64x8t8(int M, int N, int K, float alpha, const float* __restrict__ A,
                      const float* __restrict__ B, float beta, float* __restrict__ C)
{
    t4::gemm<BM, BN, GROUP, TM>(M, N, K, alpha, A, B, beta, C, ragged::Workspace{g_partials, g_counters, WS_FLOATS, MAX_COUNTERS});
}
