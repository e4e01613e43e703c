// probe lone_loads: ragged64x64x8 whose epilogue reads C a row at a time behind an edge check.
//
// Predecessor: ragged64x64x8. Idea: its main loop unchanged (kernels/ragged_tile.cuh: 4-stage
// cp.async, 64x64 tile of two 64x32 warps, 8x8 results per thread) and its epilogue's order:
// every read of C before the first write. Planted: the reads walk the thread's 8 rows and stop at
// the first row past M (a `break`). The compiler keeps each row's two float4 loads behind the
// check before them, and the row's FMAs use them before the next check, so a thread's 16 loads of
// C go two at a time, each pair waiting a whole memory latency, where loads predicated row by row
// (ragged_tile.cuh's store) go out together. No store sits between the loads: the serial
// epilogue's cause (a load behind a store) is absent. At the profile shape K is small (32: 4 k
// tiles), so the epilogue is much of the time. Planted cause: lone_loads.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launch: block (64), grid (cdiv(N, 64), cdiv(M, 64)); 16,896 bytes of static shared memory.

#include "ragged_tile.cuh"

#define BM 64
#define BN 64

extern "C" __global__ void __launch_bounds__(64, 8)
sgemm_probe_lone_loads(int M, int N, int K, float alpha, const float* __restrict__ A,
                       const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ ragged::Smem<BM, BN> sm;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    float acc[8][8];
    if (N % 4 == 0 && ragged::aligned16(B))  // uniform
        ragged::multiply<BM, BN, true>(acc, sm, M, N, K, A, B, bm, bn, 0, (K + ragged::BK - 1) / ragged::BK);
    else
        ragged::multiply<BM, BN, false>(acc, sm, M, N, K, A, B, bm, bn, 0, (K + ragged::BK - 1) / ragged::BK);
    // ragged_tile.cuh's store (64x64: two warps side by side, each 64 rows x 32 columns).
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wRow = (warp / (BN / 32)) * 64, wCol = (warp % (BN / 32)) * 32;
    const int tr = lane / 4, tc = lane % 4;
    const bool vecC = N % 4 == 0 && ragged::aligned16(C);
    auto row = [&](int i) { return bm + wRow + (i / 4) * 32 + tr * 4 + (i % 4); };  // grows with i
    auto col = [&](int ni) { return bn + wCol + ni * 16 + tc * 4; };
    auto at = [&](int i, int ni) { return C + (size_t)row(i) * N + col(ni); };
    float v[8][2][4];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int ni = 0; ni < 2; ++ni)
#pragma unroll
            for (int j = 0; j < 4; ++j) v[i][ni][j] = alpha * acc[i][ni * 4 + j];
    if (beta != 0.0f) {
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            if (row(i) >= M) break;  // the planted edge check: rows past M end the walk
#pragma unroll
            for (int ni = 0; ni < 2; ++ni) ragged::add_c4(v[i][ni], at(i, ni), vecC, col(ni), N, beta);
        }
    }
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int ni = 0; ni < 2; ++ni)
            if (row(i) < M) ragged::put4(at(i, ni), vecC, col(ni), N, v[i][ni]);
}
