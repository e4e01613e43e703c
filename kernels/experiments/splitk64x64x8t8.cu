// splitk64x64x8t8 (experiment): splitk64x64x8t4's tile with cuBLAS's 8x4 results per thread: four warps, not eight.
//
// Predecessor: splitk64x64x8t4. At small products cuBLAS runs 64x64 tiles of 128 threads, 32
// results each: 0.098 shared loads per FFMA against the t4 rungs' 0.148, and fewer register-bank
// conflicts. Idea: kernels/t4_tile.cuh at TM = 8: each thread computes 8x4 results from two float4
// of A and one of B per k step (3 loads per 32 FFMAs, not 2 per 16), on the same 64x64 tile with
// half the threads.
// Occupancy: launch bounds (128, 4): at most 128 registers, 16,900 bytes of shared memory; four
// blocks (16 warps) per SM.
//
// S (the manifest's grid z): max(1, min(64, K // 32, 528 // tiles)) with tiles = cdiv(M, 64) *
// cdiv(N, 64): about 528 blocks (four per SM of 132), as splitk64x64x8t4. S * tiles * 64 * 64 <=
// 528 * 4096 floats whenever S > 1, inside the 2^23 floats of the workspace; tiles * (cdiv(S, 8)
// + 1) <= 528 counters, of 16384.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module).
// Launch: block (128), grid (cdiv(N, 64), cdiv(M, 64), S); 16,900 bytes of static shared memory.

#include "../t4_tile.cuh"

#define BM 64
#define BN 64
#define TM 8                      // rows of results per thread (4 columns each)
#define NTHREADS 128              // BM * BN / (4 * TM)
#define GROUP 8                   // splits summed by the last of each group, then the groups' sums
#define WS_FLOATS (1LL << 23)     // partial tiles: 32 MiB
#define MAX_COUNTERS (1 << 14)    // arrival counters: groups and tiles

static_assert(t4::Tile<BM, BN, TM>::NT == NTHREADS, "block size");

__device__ __align__(16) float g_partials[WS_FLOATS];
__device__ unsigned g_counters[MAX_COUNTERS];  // zero at module load; each last arrival resets its own

extern "C" __global__ void __launch_bounds__(NTHREADS, 4)
sgemm_splitk64x64x8t8(int M, int N, int K, float alpha, const float* __restrict__ A,
                      const float* __restrict__ B, float beta, float* __restrict__ C)
{
    t4::gemm<BM, BN, GROUP, TM>(M, N, K, alpha, A, B, beta, C, ragged::Workspace{g_partials, g_counters, WS_FLOATS, MAX_COUNTERS});
}
