// The tiled GEMM pieces the probes are built from, so that each probe's file says only what it
// plants.
//
// Idea: a probe is a plain, correct smem-tiled kernel (the ladder's smem or blocktile2d) with ONE
// thing changed; that one thing should be all its file holds. Shared here:
// - load_tiles: a BMxBK tile of A, stored transposed (As[k][m], rows padded to BM + 4 so the
//   transposing stores do not conflict), and a BKxBN tile of B (Bs[k][n]), copied by NT threads,
//   element e = tid + NT*l of each tile per step l; a warp reads consecutive addresses of B.
// - blocktile2d: the ladder's blocktile2d block tile (BMxBNxBK, a TMxTN micro-tile of outer
//   products per thread, BN/TN threads across) over those tiles, with C stored as float4s;
//   Acc is the accumulator type (float; a probe may plant another).
// - store_micro_tile: a thread's TMxTN results (rows row0.., columns bn + col..), scaled, as
//   float4 stores (whole sectors).
// - store_scaled: one element of C, scaled.
// - smem_tile_loads: the ladder's smem kernel's copy of one TILExTILE tile of A and of B, one
//   element each per thread of a (TILE, TILE) block.
//
// Contract: no bounds checks: M and N multiples of the block tile, K of BK (or TILE). A, B, C
// row-major; C rows 16-byte aligned for the float4 stores. C = alpha * A B + beta * C, C not read
// when beta == 0. blocktile2d runs (BM/TM) * (BN/TN) threads in a block of (NT) and grid
// (N/BN, M/BM); As and Bs are the caller's shared memory (static or dynamic).
#pragma once

namespace probe {

template <int BM, int BN, int BK, int NT>
__device__ __forceinline__ void load_tiles(float (*As)[BM + 4], float (*Bs)[BN], const float* __restrict__ A,
                                           const float* __restrict__ B, int N, int K, int bm, int bn, int k0, int tid)
{
#pragma unroll
    for (int l = 0; l < BM * BK / NT; ++l) {
        const int e = tid + NT * l;
        As[e % BK][e / BK] = A[(size_t)(bm + e / BK) * K + k0 + e % BK];
        Bs[e / BN][e % BN] = B[(size_t)(k0 + e / BN) * N + bn + e % BN];
    }
}

template <int TM, int TN, typename Acc>
__device__ __forceinline__ void store_micro_tile(const Acc (&acc)[TM][TN], float* __restrict__ C, int N, int row0, int bn,
                                                 int col, float alpha, float beta)
{
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        float* c = C + (size_t)(row0 + i) * N + bn + col;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {  // float4 stores: whole sectors
            float4 v = make_float4(alpha * (float)acc[i][j], alpha * (float)acc[i][j + 1],
                                   alpha * (float)acc[i][j + 2], alpha * (float)acc[i][j + 3]);
            if (beta != 0.0f) {
                const float4 o = *reinterpret_cast<const float4*>(c + j);
                v.x += beta * o.x; v.y += beta * o.y; v.z += beta * o.z; v.w += beta * o.w;
            }
            *reinterpret_cast<float4*>(c + j) = v;
        }
    }
}

template <int BM, int BN, int BK, int TM, int TN, typename Acc>
__device__ __forceinline__ void blocktile2d(float (*As)[BM + 4], float (*Bs)[BN], int N, int K, float alpha,
                                            const float* __restrict__ A, const float* __restrict__ B, float beta,
                                            float* __restrict__ C)
{
    constexpr int NT = (BM / TM) * (BN / TN);
    const int tid = threadIdx.x, tRow = tid / (BN / TN), tCol = tid % (BN / TN);
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    Acc acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        load_tiles<BM, BN, BK, NT>(As, Bs, A, B, N, K, bm, bn, k0, tid);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            Acc a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = As[k][tRow * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = Bs[k][tCol * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    store_micro_tile<TM, TN>(acc, C, N, bm + tRow * TM, bn, tCol * TN, alpha, beta);
}

__device__ __forceinline__ void store_scaled(float* c, float acc, float alpha, float beta)
{
    const float v = alpha * acc;
    *c = beta != 0.0f ? v + beta * *c : v;
}

template <int TILE>
__device__ __forceinline__ void smem_tile_loads(float (&As)[TILE][TILE], float (&Bs)[TILE][TILE], const float* __restrict__ A,
                                                const float* __restrict__ B, int N, int K, int row, int col, int k0)
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    As[ty][tx] = A[(size_t)row * K + k0 + tx];
    Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
}

}  // namespace probe
