// rowdot: FP16 products of a few columns (N of 1-8) at any M, K: each row of C a warp's dot
// products of a row of A with B's columns, streamed without staging A.
//
// Predecessor: wmma_tinysplit. At 1865x1x38686 (A 144 MB; cuBLAS 57 us, 2.5 TB/s) it ran 41% of
// cuBLAS: its 32-column tile holds one column of C, so its MMAs multiply zeros but in one column, and
// its at most 16 splits a tile leave a long K on few SMs. The staging rungs copy all of A first
// (for K odd TMA cannot read its rows), skinny_any's 128-column tiles are as empty. What such a
// product costs is A's one pass: idea, a GEMV's schedule:
// (1) a CTA of 8 warps takes 32 rows of A and 4 columns of C (a column group; N > 4 takes
//     cdiv(N, 4) of them, the column group fastest in the grid so that a row block's groups run
//     together and the second reads A from L2); each warp 4 rows, the lanes consecutive k, so each
//     load of a warp is 64 contiguous bytes of one row at any row pitch (single halves: K need not
//     be even);
// (2) B's slice of 512 k by the group's columns is staged in shared memory as floats, [k][column],
//     read once a k by each lane for its 4 rows (a float, float2 or float4 a lane: no conflicts);
// (3) 8 k a lane loaded before they are multiplied: up to 32 loads of A in flight a lane; launch
//     bounds (256, 4): 64 registers, four CTAs an SM. (Groups of 8 columns held 2 k a lane in
//     those registers: at N of 5-8 they ran 56% of cuBLAS where two groups of 4 run 89%.)
// (4) K split over S CTAs where the row blocks are too few for 4 CTAs an SM; each split sums its
//     lanes by shuffles in a fixed order, writes its 32x4 partial to a module workspace, and the
//     split counted last (split_arrival.cuh) sums the S partials in split order and writes C.
//
// Contract: block (256), grid (cdiv(N, 4), cdiv(M, 32), S) with cdiv(N, 4) cdiv(M, 32) S <= 4096
// where S > 1 (the manifest's S keeps it at 4 SMS); 8,208 bytes of static shared memory; sm_70+.
// Any M, N, K >= 1; any A, B, C of 2-byte (A, B) and 4-byte (C) alignment. beta == 0: C is not read.
// Launches must not overlap in time (one workspace per loaded module).

#include <cuda_fp16.h>

#include "split_arrival.cuh"

#define ROWS 32                      // rows of C a CTA
#define ROWS_PER_WARP 4
#define COLS 4                       // columns of C a CTA (a column group)
#define KC 512                       // k of B staged at a time
#define NTHREADS 256
#define MAX_SPLIT_CTAS 4096
__device__ __align__(16) float g_rowdot_partials[MAX_SPLIT_CTAS * ROWS * COLS];  // 2 MiB
__device__ unsigned g_rowdot_counters[MAX_SPLIT_CTAS];  // zero at module load; the last split resets its own

// Stage B[kc, kc + len) x [n0, n0 + nc) as floats, zero past them: Bs[k][c] for c < NCP.
template <int NCP>
__device__ __forceinline__ void stage_b(float* Bs, const __half* __restrict__ B, int N, int n0, int nc, int kc, int len)
{
    for (int e = threadIdx.x; e < KC * NCP; e += NTHREADS) {
        const int k = e / NCP, c = e % NCP;
        Bs[e] = (k < len && c < nc) ? __half2float(B[(size_t)(kc + k) * N + n0 + c]) : 0.0f;
    }
}

// acc[i][c] += sum over this lane's k of A[row i][k] * B[k][c], k in [kBegin, kEnd).
template <int NCP, int UNROLL>
__device__ __forceinline__ void dot_rows(float (&acc)[ROWS_PER_WARP][NCP], float* Bs, const __half* __restrict__ A,
                                         const __half* __restrict__ B, int M, int N, int K, int n0, int nc,
                                         int row0, int kBegin, int kEnd)
{
    const int lane = threadIdx.x % 32;
    const __half* rowA[ROWS_PER_WARP];
    bool rowOk[ROWS_PER_WARP];
#pragma unroll
    for (int i = 0; i < ROWS_PER_WARP; ++i) {
        rowOk[i] = row0 + i < M;
        rowA[i] = A + (size_t)(rowOk[i] ? row0 + i : 0) * K;
    }
    for (int kc = kBegin; kc < kEnd; kc += KC) {
        const int len = min(KC, kEnd - kc);
        __syncthreads();                                  // the slice before is read by every warp
        stage_b<NCP>(Bs, B, N, n0, nc, kc, len);
        __syncthreads();
        for (int j = 0; j < len; j += 32 * UNROLL) {
            __half a[UNROLL][ROWS_PER_WARP];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                const int k = j + 32 * u + lane;
#pragma unroll
                for (int i = 0; i < ROWS_PER_WARP; ++i)
                    a[u][i] = (k < len && rowOk[i]) ? rowA[i][kc + k] : __float2half(0.0f);
            }
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                const int k = j + 32 * u + lane;              // Bs is zero from len to KC
                float b[NCP];
                if (k < KC) {
#pragma unroll
                    for (int c = 0; c < NCP; ++c) b[c] = Bs[k * NCP + c];
                } else {
#pragma unroll
                    for (int c = 0; c < NCP; ++c) b[c] = 0.0f;
                }
#pragma unroll
                for (int i = 0; i < ROWS_PER_WARP; ++i) {
                    const float x = __half2float(a[u][i]);
#pragma unroll
                    for (int c = 0; c < NCP; ++c) acc[i][c] += x * b[c];
                }
            }
        }
    }
}

template <int NCP, int UNROLL>
__device__ __forceinline__ void rowdot(int M, int N, int K, float alpha, const __half* __restrict__ A,
                                       const __half* __restrict__ B, float beta, float* __restrict__ C, float* Bs)
{
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int n0 = blockIdx.x * COLS, nc = min(COLS, N - n0);
    const int row0 = blockIdx.y * ROWS + warp * ROWS_PER_WARP;

    // Split z of S takes K's columns [z chunk, (z + 1) chunk), chunk a multiple of 32.
    const int S = gridDim.z, z = blockIdx.z;
    if (S > 1 && gridDim.x * gridDim.y * S > MAX_SPLIT_CTAS) __trap();
    const int chunk = ((K + S - 1) / S + 31) / 32 * 32;
    const int kBegin = min(K, z * chunk), kEnd = min(K, kBegin + chunk);

    float acc[ROWS_PER_WARP][NCP];
#pragma unroll
    for (int i = 0; i < ROWS_PER_WARP; ++i)
#pragma unroll
        for (int c = 0; c < NCP; ++c) acc[i][c] = 0.0f;
    dot_rows<NCP, UNROLL>(acc, Bs, A, B, M, N, K, n0, nc, row0, kBegin, kEnd);

    // The lanes' sums, in the same order at every launch; lane i * NCP + c then holds (i, c).
    float mine = 0.0f;
#pragma unroll
    for (int i = 0; i < ROWS_PER_WARP; ++i)
#pragma unroll
        for (int c = 0; c < NCP; ++c) {
            float v = acc[i][c];
#pragma unroll
            for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
            if (lane == i * NCP + c) mine = v;
        }
    const int i = lane / NCP, c = lane % NCP;             // this lane's element of C, if any
    const bool holds = lane < ROWS_PER_WARP * NCP;

    if (S > 1) {
        __shared__ int last;
        const int tile = blockIdx.y * gridDim.x + blockIdx.x;
        float* const part = g_rowdot_partials + (size_t)tile * S * (ROWS * COLS) + (warp * ROWS_PER_WARP + i) * COLS + c;
        if (holds) part[(size_t)z * (ROWS * COLS)] = mine;
        if (!arrived_last(&g_rowdot_counters[tile], S, last)) return;
        if (holds) {
            mine = 0.0f;
            for (int u = 0; u < S; ++u) mine += __ldcg(part + (size_t)u * (ROWS * COLS));
        }
        if (threadIdx.x == 0) g_rowdot_counters[tile] = 0;  // ready for the next launch
    }
    if (holds && row0 + i < M && c < nc) {
        float* const out = C + (size_t)(row0 + i) * N + n0 + c;
        *out = alpha * mine + (beta != 0.0f ? beta * *out : 0.0f);
    }
}

extern "C" __global__ void __launch_bounds__(NTHREADS, 4)
hgemm_rowdot(int M, int N, int K, float alpha, const __half* __restrict__ A, const __half* __restrict__ B, float beta,
             float* __restrict__ C)
{
    __shared__ __align__(16) float Bs[KC * COLS];
    const int nc = min(COLS, N - (int)blockIdx.x * COLS);   // uniform over the grid but its last column group
    if (nc == 1) rowdot<1, 8>(M, N, K, alpha, A, B, beta, C, Bs);
    else if (nc == 2) rowdot<2, 8>(M, N, K, alpha, A, B, beta, C, Bs);
    else rowdot<4, 8>(M, N, K, alpha, A, B, beta, C, Bs);
}
