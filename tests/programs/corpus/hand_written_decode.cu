// A hand-written FP16 decode kernel of the foreign corpus (sm_80+): an early version of
// gemmprof's `skinny` rung (commit 034a4a2), kept as it was written. C (MxN, FP32) = A (MxK) @ B (KxN), FP16
// row-major, for small M. Tile 16, 32 or 64 rows (from M) by 128 columns, mma.sync m16n8k16
// from ldmatrix, a cp.async pipeline of 64-deep k tiles (6 stages at 16 rows, 4 at 64), K split over gridDim.z with the
// splits' partials summed by the last to arrive (a module workspace and counters).
// What it is in the corpus for: its loops are left to the compiler, which unrolls them all. At
// 1x4096x4096 a CTA runs 8 k tiles, so each warp runs most of its instructions once: the time
// goes to fetching code, not to moving B.
// Contract: N % 8 == 0, K % 8 == 0; grid (cdiv(M, 64), cdiv(N, 128), S), block 128, 110,592
// bytes of dynamic shared memory.

#include <cuda_fp16.h>

__device__ __forceinline__ unsigned smem_u32(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void cp_async_16z(unsigned dst, const void* src, unsigned src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(dst), "l"(src), "r"(src_bytes) : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory"); }

#define BN 128
#define BK 64
#define NTHREADS 128
#define SMEM_BYTES 110592                            // dynamic shared memory: 6 stages of 16 rows
#define WS_FLOATS (1LL << 22)                        // 16 MiB: 264 partial tiles of 64x128 take 8.3
#define MAX_TILES 4096                               // arrival counters (split grids have <= 264 tiles)

__device__ __align__(16) float g_partials[WS_FLOATS];
__device__ unsigned g_counters[MAX_TILES];           // zero at module load; the last split resets its own

namespace skinny {

// Row r's 16-byte chunk c of a tile whose rows are `chunks` chunks long, XOR-swizzled over 8 rows:
// the 8 rows one ldmatrix reads at the same chunk land in 8 different bank groups.
__device__ __forceinline__ int swz(int r, int c, int chunks) { return r * chunks + (c ^ (r & 7)); }

__device__ __forceinline__ void ldmatrix_x4(unsigned (&d)[4], unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(addr));
}

__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&d)[4], unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(addr));
}

__device__ __forceinline__ void mma16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// One CTA: rows [m0, m0 + 16 MT) of C, columns [n0, n0 + 128), k tiles [kt0, kt1) of split z.
// Warp w owns columns n0 + 32 w .. + 31 (four n8 tiles) of all the rows (MT m16 tiles).
template <int MT>
__device__ __forceinline__ void body(int M, int N, int K, float alpha, const __half* __restrict__ A,
                                     const __half* __restrict__ B, float beta, float* __restrict__ C,
                                     unsigned char* smem)
{
    constexpr int BM = 16 * MT;
    constexpr int A_CHUNKS = BK / 8;                 // 16-byte chunks per row of the A tile (8)
    constexpr int B_CHUNKS = BN / 8;                 // and of the B tile (16)
    constexpr int A_STAGE = BM * BK * 2, B_STAGE = BK * BN * 2;
    constexpr int ACC = MT * 4 * 4;                  // MT m16 tiles x 4 n8 tiles x 4 floats
    constexpr int STAGES = MT == 1 ? 6 : MT == 2 ? 5 : 4;  // <= 110,592 bytes: two CTAs per SM
    static_assert(STAGES * (A_STAGE + B_STAGE) <= SMEM_BYTES, "SMEM_BYTES holds the stages");

    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
    const int S = gridDim.z, z = blockIdx.z;
    const int kTiles = (K + BK - 1) / BK;
    const int kt0 = (int)((long long)z * kTiles / S), kt1 = (int)((long long)(z + 1) * kTiles / S);
    const int nk = kt1 - kt0;

    const unsigned sA = smem_u32(smem), sB = sA + STAGES * A_STAGE;
    if (S > 1 && (long long)gridDim.x * gridDim.y * S * BM * BN > WS_FLOATS) __trap();

    // Loads of k tile t into stage s: zero-filled past M, N and K (N, K multiples of 8: a chunk is
    // all in or all out).
    auto load = [&](int t, int s) {
        const int k0 = (kt0 + t) * BK;
#pragma unroll
        for (int i = tid; i < BM * A_CHUNKS; i += NTHREADS) {
            const int r = i / A_CHUNKS, c = i % A_CHUNKS;
            const int gr = m0 + r, gk = k0 + 8 * c;
            const bool in = gr < M && gk < K;
            cp_async_16z(sA + s * A_STAGE + 16 * swz(r, c, A_CHUNKS), in ? A + (size_t)gr * K + gk : A, in ? 16 : 0);
        }
#pragma unroll
        for (int i = tid; i < BK * B_CHUNKS; i += NTHREADS) {
            const int r = i / B_CHUNKS, c = i % B_CHUNKS;
            const int gk = k0 + r, gn = n0 + 8 * c;
            const bool in = gk < K && gn < N;
            cp_async_16z(sB + s * B_STAGE + 16 * swz(r, c, B_CHUNKS), in ? B + (size_t)gk * N + gn : B, in ? 16 : 0);
        }
    };

    float d[ACC];
#pragma unroll
    for (int i = 0; i < ACC; ++i) d[i] = 0.0f;

#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < nk) load(s, s);
        cp_async_commit();
    }
    for (int t = 0; t < nk; ++t) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();                             // tile t landed; every warp is done with t - 1's stage
        if (t + STAGES - 1 < nk) load(t + STAGES - 1, (t + STAGES - 1) % STAGES);
        cp_async_commit();
        const int s = t % STAGES;
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk) {
            // B: four 8x8 matrices per ldmatrix.x4.trans, (k 0-7 | 8-15) x (n 0-7 | 8-15) of 16 columns.
            unsigned b[4][2];
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int kr = 16 * kk + (lane / 8 % 2) * 8 + lane % 8;
                const int nc = (32 * warp + 16 * h + (lane / 16) * 8) / 8;
                unsigned r[4];
                ldmatrix_x4_trans(r, sB + s * B_STAGE + 16 * swz(kr, nc, B_CHUNKS));
                b[2 * h][0] = r[0]; b[2 * h][1] = r[1]; b[2 * h + 1][0] = r[2]; b[2 * h + 1][1] = r[3];
            }
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {
                unsigned a[4];
                const int ar = 16 * mt + lane % 16, ac = 2 * kk + lane / 16;
                ldmatrix_x4(a, sA + s * A_STAGE + 16 * swz(ar, ac, A_CHUNKS));
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    mma16816(*reinterpret_cast<float(*)[4]>(&d[(mt * 4 + j) * 4]), a, b[j][0], b[j][1]);
            }
        }
    }
    cp_async_wait<0>();

    if (S > 1) {
        // Partial of tile g's split z, float4 q of thread tid at partials[((g * S + z) * Q + q) * 128 + tid]:
        // a warp's float4 stores cover 512 contiguous bytes.
        constexpr int Q = ACC / 4;
        const int g = blockIdx.y * gridDim.x + blockIdx.x;
        float4* const part = reinterpret_cast<float4*>(g_partials);
#pragma unroll
        for (int q = 0; q < Q; ++q)
            part[((size_t)(g * S + z) * Q + q) * NTHREADS + tid] = make_float4(d[4 * q], d[4 * q + 1], d[4 * q + 2], d[4 * q + 3]);
        __threadfence();                             // the partial is visible device-wide before this split is counted
        __shared__ int lastSplit;
        __syncthreads();
        if (tid == 0) lastSplit = atomicAdd(&g_counters[g], 1u) == (unsigned)(S - 1);
        __syncthreads();
        if (!lastSplit) return;
        __threadfence();                             // the other splits' partials are read after their counts were seen
        // A split's Q float4s are loaded together, then added: S round trips to L2, not S * Q.
#pragma unroll
        for (int i = 0; i < ACC; ++i) d[i] = 0.0f;
#pragma unroll 2
        for (int k = 0; k < S; ++k) {
            float4 v[Q];
#pragma unroll
            for (int q = 0; q < Q; ++q) v[q] = __ldcg(&part[((size_t)(g * S + k) * Q + q) * NTHREADS + tid]);
#pragma unroll
            for (int q = 0; q < Q; ++q) {
                d[4 * q] += v[q].x; d[4 * q + 1] += v[q].y; d[4 * q + 2] += v[q].z; d[4 * q + 3] += v[q].w;
            }
        }
        if (tid == 0) g_counters[g] = 0;             // ready for the next launch
    }

    // d[(mt * 4 + j) * 4 + {0,1}] = (row 16 mt + lane / 4, column 32 warp + 8 j + 2 (lane % 4) + {0,1}),
    // + {2,3}: the same columns 8 rows down. N is a multiple of 8: an n8 tile is all in or all out,
    // and a float2 of C is 8-byte aligned.
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int col = n0 + 32 * warp + 8 * j + 2 * (lane % 4);
            if (col >= N) continue;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int row = m0 + 16 * mt + lane / 4 + 8 * h;
                if (row >= M) continue;
                float2* const c = reinterpret_cast<float2*>(C + (size_t)row * N + col);
                const float* v = &d[(mt * 4 + j) * 4 + 2 * h];
                float2 out = make_float2(alpha * v[0], alpha * v[1]);
                if (beta != 0.0f) {
                    const float2 old = *c;
                    out.x += beta * old.x;
                    out.y += beta * old.y;
                }
                *c = out;
            }
        }
    }
}

}  // namespace skinny

extern "C" __global__ void __launch_bounds__(NTHREADS)
skinny_unrolled(int M, int N, int K, float alpha, const __half* __restrict__ A, const __half* __restrict__ B,
             float beta, float* __restrict__ C)
{
    extern __shared__ __align__(128) unsigned char smem_raw[];
    if (M <= 16)
        skinny::body<1>(M, N, K, alpha, A, B, beta, C, smem_raw);
    else if (M <= 32)
        skinny::body<2>(M, N, K, alpha, A, B, beta, C, smem_raw);
    else
        skinny::body<4>(M, N, K, alpha, A, B, beta, C, smem_raw);
}
