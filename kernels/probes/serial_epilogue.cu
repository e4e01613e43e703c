// probe serial_epilogue: ragged64x64x8 whose epilogue reads C and writes it by turns.
//
// Predecessor: ragged64x64x8. Idea: its main loop unchanged (kernels/ragged_tile.cuh: 4-stage
// cp.async, 64x64 tile of two 64x32 warps, 8x8 results per thread). Planted: the epilogue in the
// order ragged_tile.cuh's store4 keeps (AHEAD = false): per float4 of C, a load, then its store,
// then the next load. The compiler cannot prove that a store to one row of C misses a later load
// of another, so each of a thread's 16 loads of C waits a whole memory latency behind the store
// before it. At the profile shape K is small (64: 8 k tiles), so the epilogue is much of the
// time, and with beta != 0 most of it is those waits. Planted cause: serial_epilogue.
//
// Contract: none (any M, N, K >= 1; any 4-byte-aligned A, B, C). beta == 0: C is not read.
// Launch: block (64), grid (cdiv(N, 64), cdiv(M, 64)); 16,896 bytes of static shared memory.

#include "ragged_tile.cuh"

#define BM 64
#define BN 64

extern "C" __global__ void __launch_bounds__(64, 8)
sgemm_probe_serial_epilogue(int M, int N, int K, float alpha, const float* __restrict__ A,
                            const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ ragged::Smem<BM, BN> sm;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    float acc[8][8];
    if (N % 4 == 0 && ragged::aligned16(B))  // uniform
        ragged::multiply<BM, BN, true>(acc, sm, M, N, K, A, B, bm, bn, 0, (K + ragged::BK - 1) / ragged::BK);
    else
        ragged::multiply<BM, BN, false>(acc, sm, M, N, K, A, B, bm, bn, 0, (K + ragged::BK - 1) / ragged::BK);
    ragged::store<BM, BN, false>(acc, M, N, alpha, beta, C, bm, bn);  // the planted order
}
