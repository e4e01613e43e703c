// The epilogue of the 8-warp CUDA-core rungs with 64-column warp tiles (cutlass128x128x8 and its
// successors): C leaves through shared memory so that every store is a whole 256-byte row
// segment. In the accumulator layout a lane owns float4s 32 columns apart, so stored directly a
// warp's 128-bit stores would touch twice the sectors they need.
//
// Idea: each warp stages 4 rows x 64 columns of its results at a time (rows of CS_LD = 80 floats:
// no bank conflicts within any quarter warp, writing or reading), reads them back as 16 float4s
// per row, applies alpha and beta there (C read with the same coalesced float4s, only when
// beta != 0) and writes them.
//
// Contract: the lane owning accumulator acc[mi*4 + i][ni*4 + j] holds C(row0 + mi*16 + tr*4 + i,
// col_block + col_warp + ni*32 + tc*4 + j) for mi < MI, ni < 2, i, j < 4, with tr < 4 and tc < 8 from the lane
// number; `stage` is this warp's private 4 * CS_LD floats of shared memory (16-byte aligned), free
// to overwrite (the caller has synchronised after the main loop). ROT: the accumulator quads are
// stored rotated by ROT (regbank128x256x8's register-bank trick; 0 for none). CHECKED: rows and
// columns are bounds-checked against M and N, which needs N % 4 == 0 (a float4 of C is then
// wholly inside or outside); unchecked, C must hold the whole tile. C rows 16-byte aligned.
// SCALAR (with CHECKED): C is read and written element by element, each element checked, for
// any N and a 4-byte-aligned C (ragged128x256x8's edge tiles when N % 4 != 0), a warp's lanes on
// consecutive columns; with C_AHEAD > 0 its reads of C are fetched and read ahead as the float4
// path's are.
#pragma once

#define CS_LD 80  // row of the epilogue staging tile (64 + 16 floats)

// C's lines that store_c_through_smem<MI, ..., C_AHEAD > 0> reads for this warp (MI * 16 rows of 64
// columns from (row0, col_block + col_warp): two 128-byte lines a row), fetched into L2 before its
// first chunk. Without it and the reads ahead, each chunk's read of C waited a whole DRAM latency
// in turn: 16 of them at MI = 4, with the SM otherwise idle (ragged128x256x8 at 4096^3: 2.6% of its PC samples,
// long scoreboard at the beta * C FFMAs). CHECKED: lines past M or N are skipped (N % 4 == 0).
template <int MI, bool CHECKED>
__device__ __forceinline__ void prefetch_c(const float* C, int M, int N, int row0, int col_block, int col_warp, int lane)
{
#pragma unroll
    for (int p = 0; p < MI * 16 * 2 / 32; ++p) {
        const int q = lane + 32 * p, row = row0 + (q >> 1), col = col_block + col_warp + (q & 1) * 32;
        if (!CHECKED || (row < M && col < N))
            asm volatile("prefetch.global.L2 [%0];" ::"l"(C + (size_t)row * N + col));
    }
}

// The same for rows that do not start on a 16-byte boundary (N % 4 != 0): a row's 64 columns then
// span up to three 128-byte lines, fetched at its first, 33rd and last column below N. Without it
// (and the reads ahead), ragged128x256x8 at 8104x13678x165 spent 39% of its PC samples waiting at
// the element-wise beta * C loads, against 12% at N = 13680 (H200, ncu source view).
template <int MI>
__device__ __forceinline__ void prefetch_c_rows(const float* C, int M, int N, int row0, int col0, int lane)
{
    if (col0 >= N) return;
    const int last = min(col0 + 63, N - 1);
#pragma unroll
    for (int p = 0; p < MI * 16 * 3 / 32; ++p) {
        const int q = lane + 32 * p, row = row0 + q / 3, part = q % 3;
        const int col = part == 2 ? last : min(col0 + 32 * part, last);
        if (row < M) asm volatile("prefetch.global.L2 [%0];" ::"l"(C + (size_t)row * N + col));
    }
}

template <int MI, int ROT, bool CHECKED, bool SCALAR = false, int C_AHEAD = 0>
__device__ __forceinline__ void store_c_through_smem(float4* const cs4, const float (&acc)[MI * 4][8],
                                                     float* __restrict__ C, int M, int N, int row0, int col_block, int col_warp,
                                                     int lane, int tr, int tc, float alpha, float beta)
{
    if (C_AHEAD > 0 && beta != 0.0f) {
        if (SCALAR)
            prefetch_c_rows<MI>(C, M, N, row0, col_block + col_warp, lane);
        else
            prefetch_c<MI, CHECKED>(C, M, N, row0, col_block, col_warp, lane);
    }
    float4* const csw = cs4 + tr * (CS_LD / 4) + tc;
    const int rr = lane >> 4;
    const int cc = (lane & 15) * 4;
    const int col = col_block + col_warp + cc;
    // C_AHEAD > 0: C's lines are fetched into L2 first (prefetch_c), and each chunk's two float4s
    // of C (SCALAR: its 4 rows x 2 columns of elements) are read C_AHEAD chunks ahead, before the
    // stores of the chunks between, so their latencies overlap the chunks' work instead of being
    // waited out in turn (the compiler keeps a read after earlier stores through the same pointer).
    constexpr int CHUNKS = MI * 4, AHEAD = C_AHEAD, RING = AHEAD > 0 ? AHEAD : 1;
    auto c_at = [&](int n, int h) {  // chunk n = mi * 4 + i
        const int row = row0 + (n >> 2) * 16 + (rr + 2 * h) * 4 + (n & 3);
        return CHECKED ? C + (size_t)row * N + col : C + (size_t)row * N + col_block + col_warp + cc;
    };
    auto c_in = [&](int n, int h) { return !CHECKED || (row0 + (n >> 2) * 16 + (rr + 2 * h) * 4 + (n & 3) < M && col < N); };
    float4 cRing[RING][2];  // SCALAR: element (r, h) of chunk n in component r of cRing[n % RING][h]
    auto s_row = [&](int n, int r) { return row0 + (n >> 2) * 16 + r * 4 + (n & 3); };  // SCALAR: staged row r of chunk n
    auto s_col = [&](int h) { return col_block + col_warp + lane + 32 * h; };
    auto read_c = [&](int n) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            if (SCALAR) {
                float e[4];
#pragma unroll
                for (int r = 0; r < 4; ++r)
                    e[r] = s_row(n, r) < M && s_col(h) < N ? C[(size_t)s_row(n, r) * N + s_col(h)] : 0.f;
                cRing[n % RING][h] = make_float4(e[0], e[1], e[2], e[3]);
            } else {
                cRing[n % RING][h] = c_in(n, h) ? *reinterpret_cast<const float4*>(c_at(n, h)) : make_float4(0.f, 0.f, 0.f, 0.f);
            }
        }
    };
    if (AHEAD > 0 && beta != 0.0f) {
#pragma unroll
        for (int n = 0; n < AHEAD - 1 && n < CHUNKS; ++n) read_c(n);
    }
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int n = mi * 4 + i;
            if (AHEAD > 0 && beta != 0.0f && n + AHEAD - 1 < CHUNKS) read_c(n + AHEAD - 1);
            // Staged row r (r < 4) is global row row0 + mi*16 + r*4 + i; staged column c is
            // global column col_block + col_warp + c. Slot q of a staged quad holds column (q + ROT) % 4.
#pragma unroll
            for (int ni = 0; ni < 2; ++ni)
                csw[ni * 8] = make_float4(acc[mi * 4 + i][ni * 4 + (0 + ROT) % 4], acc[mi * 4 + i][ni * 4 + (1 + ROT) % 4],
                                          acc[mi * 4 + i][ni * 4 + (2 + ROT) % 4], acc[mi * 4 + i][ni * 4 + (3 + ROT) % 4]);
            __syncwarp();
            if (SCALAR) {
                // Lanes take consecutive columns c = lane, lane + 32 of each staged row r: a warp's
                // 4-byte accesses then cover 128 contiguous bytes (lanes 16 bytes apart touched 4x
                // the sectors: ragged128x256x8 at 4095^3, shapes-profile-2). All four rows' reads
                // of C before their writes (ragged_tile.cuh's epilogue says why).
                const float* const cs = reinterpret_cast<const float*>(cs4);
                float v[4][2];
#pragma unroll
                for (int r = 0; r < 4; ++r)
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        const int c = lane + 32 * h;
                        v[r][h] = alpha * cs[r * CS_LD + (c & ~3) + ((c - ROT) & 3)];
                    }
                auto inside = [&](int r, int h) { return s_row(n, r) < M && s_col(h) < N; };
                auto at = [&](int r, int h) { return C + (size_t)s_row(n, r) * N + s_col(h); };
                if (beta != 0.0f) {
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        const float4 c = cRing[n % RING][h];
                        const float cr[4] = {c.x, c.y, c.z, c.w};
#pragma unroll
                        for (int r = 0; r < 4; ++r)
                            if (AHEAD > 0)
                                v[r][h] += beta * cr[r];
                            else if (inside(r, h))
                                v[r][h] += beta * *at(r, h);
                    }
                }
#pragma unroll
                for (int r = 0; r < 4; ++r)
#pragma unroll
                    for (int h = 0; h < 2; ++h)
                        if (inside(r, h)) *at(r, h) = v[r][h];
            } else {
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int r = rr + 2 * h;
                    const int row = row0 + mi * 16 + r * 4 + i;
                    const float4 q = cs4[r * (CS_LD / 4) + (lane & 15)];
                    const float qq[4] = {q.x, q.y, q.z, q.w};
                    const float4 s = make_float4(qq[(4 - ROT) % 4], qq[(5 - ROT) % 4], qq[(6 - ROT) % 4], qq[(7 - ROT) % 4]);
                    if (!CHECKED || (row < M && col < N)) {
                        // (The unchecked address is summed term by term: the same SASS as before the
                        // epilogue was shared.)
                        float* const cp = CHECKED ? C + (size_t)row * N + col : C + (size_t)row * N + col_block + col_warp + cc;
                        float4 v = make_float4(alpha * s.x, alpha * s.y, alpha * s.z, alpha * s.w);
                        if (beta != 0.0f) {
                            const float4 c = AHEAD > 0 ? cRing[n % RING][h] : *reinterpret_cast<const float4*>(cp);
                            v.x += beta * c.x;
                            v.y += beta * c.y;
                            v.z += beta * c.z;
                            v.w += beta * c.w;
                        }
                        *reinterpret_cast<float4*>(cp) = v;
                    }
                }
            }
            __syncwarp();  // reads done before the next chunk overwrites the staging tile
        }
}
