// splitk64x64x8rs: splitk64x64x8 with the partials summed by every split of a tile at once, a
// slice each (kernels/reduce_scatter.cuh), and as many splits as the GPU holds blocks.
//
// Predecessor: splitk64x64x8. The last split of a tile to arrive sums all S partials alone, so S
// stays at most 64 and the grid small where M * N is: at 128x128x65536 (4 tiles) 256 blocks of two
// warps, under two per SM, each walking 128 k tiles, then one block per tile reading 64 partials
// (66.8% of cuBLAS; the t4 rung, eight warps a block, 78%). Idea: the splits of a tile wait for one
// another, then each sums 1/S of the tile, lanes sharing a float4 where the slice is short; the
// sum costs every block one tile of reads whatever S is, so S fills the GPU: up to 792 blocks (six
// per SM of 132, 12 warps), each at least 256 of K. H100, 128x128x65536 (S = 198): 0.102 ms ->
// 0.072 ms, 67% -> 96% of cuBLAS, SMs busy 67% -> 96% (benchmarks/results/2026-11-23-h100,
// shapes-suite-11 and shapes-profile-4).
//
// S (the manifest's grid z): max(1, min(256, K // 256, 792 // tiles)) with tiles = cdiv(M, 64) *
// cdiv(N, 64). Where S > 1 the grid (at most 792 blocks) is launched cooperatively (manifest key
// `cooperative`): a GPU that cannot hold it at once fails the launch instead of hanging. S = 1
// stores C from the block's own accumulators (splitk64x64x8 unsplit). S * tiles <= 792 slots of
// 4096 floats fit the workspace of 2^23 floats; tiles <= 792 counters of each kind.
// Split z multiplies k tiles [z * kTiles / S, (z + 1) * kTiles / S) (balanced).
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module); cooperative where S > 1.
// Launch: block (64), grid (cdiv(N, 64), cdiv(M, 64), S); 16,900 bytes of static shared memory;
// six blocks per SM (launch bounds: at most 168 registers).

#include "reduce_scatter.cuh"
#include "ragged_tile.cuh"

#define BM 64
#define BN 64
#define NTHREADS 64              // (BM / 64) * (BN / 32) warps
#define WS_FLOATS (1LL << 23)    // partial tiles: 32 MiB
#define MAX_TILES (1 << 13)      // arrival and departure counters: one each per tile
#ifndef RS_MIN_BLOCKS
#define RS_MIN_BLOCKS 6          // blocks per SM (launch bounds); experiments/splitk64x64x8rs8.cu: 8
#endif

static_assert(ragged::Tile<BM, BN>::NT == NTHREADS, "block size");

__device__ __align__(16) float g_partials[WS_FLOATS];  // partial tiles, row-major
__device__ unsigned g_arrived[MAX_TILES];   // zero at module load; the last split out resets its tile's
__device__ unsigned g_departed[MAX_TILES];

// This thread's accumulators into a row-major 64 x 64 slot (acc[i][ni * 4 + j] holds the tile's
// row wRow + (i / 4) * 32 + tr * 4 + i % 4, column wCol + ni * 16 + tc * 4 + j: ragged_tile.cuh's layout).
__device__ __forceinline__ void put(float* slot, const float (&acc)[8][8])
{
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wRow = (warp / (BN / 32)) * 64, wCol = (warp % (BN / 32)) * 32;
    const int tr = lane / 4, tc = lane % 4;
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int ni = 0; ni < 2; ++ni) {
            const int row = wRow + (i / 4) * 32 + tr * 4 + i % 4, col = wCol + ni * 16 + tc * 4;
            __stcg(reinterpret_cast<float4*>(slot + row * BN + col),
                   make_float4(acc[i][ni * 4], acc[i][ni * 4 + 1], acc[i][ni * 4 + 2], acc[i][ni * 4 + 3]));
        }
}

// This block's share of a C (M x N) whose main loop reads A as a (M x k) and B as b (k x n): its
// split of the tile's k tiles multiplied, then C stored (no split) or the partial summed with the
// other splits' (the reduce-scatter). splitk64x64x8st (kernels/experiments/) calls it on padded
// copies of A and B (n, k rounded up to whole float4s).
__device__ __forceinline__ void split_tile(int M, int N, int n, int k, float alpha, const float* __restrict__ a,
                                           const float* __restrict__ b, float beta, float* __restrict__ C, int splits,
                                           int tiles, bool fits)
{
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int kTiles = (k + ragged::BK - 1) / ragged::BK;
    if (!fits && blockIdx.z != 0) return;  // split 0 takes all of K and stores C
    const int t0 = fits ? (int)((long long)blockIdx.z * kTiles / splits) : 0;
    const int t1 = fits ? (int)((long long)(blockIdx.z + 1) * kTiles / splits) : kTiles;
    __shared__ ragged::Smem<BM, BN> sm;
    float acc[8][8];
    if (n % 4 == 0 && ragged::aligned16(b))  // uniform
        ragged::multiply<BM, BN, true>(acc, sm, M, n, k, a, b, bm, bn, t0, t1);
    else
        ragged::multiply<BM, BN, false>(acc, sm, M, n, k, a, b, bm, bn, t0, t1);
    if (!fits) {
        ragged::store<BM, BN>(acc, M, N, alpha, beta, C, bm, bn);
        return;
    }
    const int tile = blockIdx.y * gridDim.x + blockIdx.x, z = blockIdx.z;
    put(g_partials + ((size_t)z * tiles + tile) * (BM * BN), acc);
    rsum::exchange<BM, BN, NTHREADS>(g_partials, g_arrived, g_departed, tile, tiles, z, splits, M, N, alpha, beta, C, bm, bn);
}

extern "C" __global__ void __launch_bounds__(NTHREADS, RS_MIN_BLOCKS)
sgemm_splitk64x64x8rs(int M, int N, int K, float alpha, const float* __restrict__ A,
                      const float* __restrict__ B, float beta, float* __restrict__ C)
{
    const int splits = gridDim.z, tiles = gridDim.x * gridDim.y;
    const bool fits = splits > 1 && (long long)splits * tiles * (BM * BN) <= WS_FLOATS && tiles <= MAX_TILES;
    split_tile(M, N, N, K, alpha, A, B, beta, C, splits, tiles, fits);
}
