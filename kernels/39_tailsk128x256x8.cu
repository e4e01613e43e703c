// tailsk128x256x8: ragged128x256x8 with only its last, partial wave of tiles under stream-K.
//
// Predecessor: ragged128x256x8 (one block per 128x256 tile, one block per SM), which runs T tiles
// in cdiv(T, 132) waves, the last one partly empty: at 5000^3 800 tiles are 6.06 waves run in 7.
// streamk128x256x8 fills that last wave but runs the whole waves persistently too. Idea: keep
// every whole wave ragged128x256x8's (a grid of one block a tile, the same tile body), and add one
// row of G = 132 blocks (the grid's last) that share the T % G tiles left as equal runs of k tiles
// under streamk.cuh's tail_plan, summed as streamk128x256x8's split tiles are
// (spread_streamk.cuh): T % G tiles take (T % G) / G of a tile's time, not a whole one. Each block
// walks its run backwards (streamk.cuh's tail_first), so the row moves through K together:
// walked forwards, the row read A and B from DRAM twice (4096^3: 888 MB against ragged128x256x8's
// 463 MB; backwards 515 MB).
// H100 (benchmarks/results/2026-11-23-h100: shapes-suite-15, tailsk/): 5000^3 95 -> 106% of
// cuBLAS (5.69 -> 5.18 ms, SMs busy 87% -> 97%), 3072^3 87 -> 109%, 8192^3 102 -> 105%. Where
// the last wave is nearly full (4096^3 and 7168^3: 116 tiles of 132) it gains nothing: the
// stream-K row's main loop, scheduled apart from the whole tiles' by ptxas, took 15% more PC
// samples an instruction at 4096^3 (short scoreboard 9% of its samples against 3%), written as a
// loop or as two units alike. Where T < 132 every tile is shared (2048^3: 80%). streamk128x256x8
// is as fast or faster from 2048^3 up but at 4095^3 and 7168^3 (shapes-suite-19: 3072^3 117 against
// 118%, 4095^3 99.4 against 98.2%); `best`, whose rules take a kernel within 2% of the fastest,
// runs this rung from 3072^3 to 4095^3 (M * N * K >= 2.9e10 below streamk128x256x8's 6.87e10).
//
// Grid: (G, cdiv(T, G)) with T = cdiv(M, 128) * cdiv(N, 256): which block runs which tile is
// streamk.cuh's tail_row and tail_whole_tile. Tile t is at row t / cdiv(N, 256), column
// t % cdiv(N, 256) of tiles.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module).
// Launch: block (256), grid (G, cdiv(T, G)), 49,664 bytes of dynamic shared memory; one block per
// SM; sm_80+.

#include "spread_streamk.cuh"

extern "C" __global__ void __launch_bounds__(Tile128x256::NTHREADS, 1)
sgemm_tailsk128x256x8(int M, int N, int K, float alpha, const float* __restrict__ A,
                      const float* __restrict__ B, float beta, float* __restrict__ C)
{
    extern __shared__ __align__(16) float smem[];
    const int tilesN = (N + sk::BN - 1) / sk::BN;
    const int tiles = ((M + sk::BM - 1) / sk::BM) * tilesN;
    if (streamk::tail_row(tiles, gridDim.x, blockIdx.y)) {
        sk::gemm<true>(smem, M, N, K, alpha, A, B, beta, C);
        return;
    }
    const int tile = streamk::tail_whole_tile(tiles, gridDim.x, blockIdx.x, blockIdx.y);
    if (tile < 0) return;
    spread::three_paths<spread::WholeK<128, 256>>(smem, M, N, K, alpha, A, B, beta, C,
                                                  spread::TilePlace{(unsigned)(tile / tilesN), (unsigned)(tile % tilesN)});
}
