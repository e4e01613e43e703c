"""Triton matmuls of the foreign corpus, one @jit kernel per case so each launch carries its own
name. Every case shares one tile loop (`_tile_matmul`) and differs from the well-configured one
(`tt_pipelined`) in exactly one planted way: its stages, its tile order, its tile size, an
accumulator read between MMAs, an operand layout TF32 wgmma cannot read, or a grid one tile past
a full wave.
Triton needs @jit functions in a file (not exec'd strings), hence this module."""

import triton
import triton.language as tl


@triton.jit
def _tile_matmul(a_ptr, b_ptr, c_ptr, M, N, K, floor,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                 GROUP_M: tl.constexpr, SYNC: tl.constexpr, TF32: tl.constexpr, B_KMAJOR: tl.constexpr):
    """C = A @ B for row-major A (MxK) and C (MxN), B row-major KxN or, with B_KMAJOR, held as its
    transpose (NxK row-major, K contiguous: the layout TF32 wgmma reads without a transpose);
    M, N, K multiples of the tile.
    GROUP_M > 0: tiles taken GROUP_M rows at a time (operand tiles reused from L2); 0: row by
    row along N (all of B streams past every row of tiles). SYNC: the accumulator is read after
    every MMA (a max against `floor`, -inf: no effect on the values), so no MMA can be in flight
    while the next is issued."""
    pid = tl.program_id(0)
    tiles_m = M // BLOCK_M
    tiles_n = N // BLOCK_N
    if GROUP_M > 0:
        per_group = GROUP_M * tiles_n
        first_m = (pid // per_group) * GROUP_M
        rows = min(tiles_m - first_m, GROUP_M)
        pid_m = first_m + (pid % per_group) % rows
        pid_n = (pid % per_group) // rows
    else:
        pid_m = pid // tiles_n
        pid_n = pid % tiles_n
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * K + offs_k[None, :]
    if B_KMAJOR:
        b_ptrs = b_ptr + offs_n[None, :] * K + offs_k[:, None]
        b_step = BLOCK_K
    else:
        b_ptrs = b_ptr + offs_k[:, None] * N + offs_n[None, :]
        b_step = BLOCK_K * N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K // BLOCK_K):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        if TF32:
            acc = tl.dot(a, b, acc, input_precision="tf32")
        else:
            acc = tl.dot(a, b, acc)
        if SYNC:
            acc = tl.maximum(acc, floor)
        a_ptrs += BLOCK_K
        b_ptrs += b_step
    c_ptrs = c_ptr + offs_m[:, None] * N + offs_n[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty))


# One kernel per case: the same body under the case's own name (the name ncu and gemmprof show).

@triton.jit
def tt_pipelined(a, b, c, M, N, K, floor, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                 GROUP_M: tl.constexpr, SYNC: tl.constexpr, TF32: tl.constexpr, B_KMAJOR: tl.constexpr):
    _tile_matmul(a, b, c, M, N, K, floor, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, SYNC, TF32, B_KMAJOR)


@triton.jit
def tt_one_stage(a, b, c, M, N, K, floor, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                 GROUP_M: tl.constexpr, SYNC: tl.constexpr, TF32: tl.constexpr, B_KMAJOR: tl.constexpr):
    _tile_matmul(a, b, c, M, N, K, floor, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, SYNC, TF32, B_KMAJOR)


@triton.jit
def tt_row_order(a, b, c, M, N, K, floor, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                 GROUP_M: tl.constexpr, SYNC: tl.constexpr, TF32: tl.constexpr, B_KMAJOR: tl.constexpr):
    _tile_matmul(a, b, c, M, N, K, floor, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, SYNC, TF32, B_KMAJOR)


@triton.jit
def tt_small_tiles(a, b, c, M, N, K, floor, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   GROUP_M: tl.constexpr, SYNC: tl.constexpr, TF32: tl.constexpr, B_KMAJOR: tl.constexpr):
    _tile_matmul(a, b, c, M, N, K, floor, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, SYNC, TF32, B_KMAJOR)


@triton.jit
def tt_group_order(a, b, c, M, N, K, floor, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   GROUP_M: tl.constexpr, SYNC: tl.constexpr, TF32: tl.constexpr, B_KMAJOR: tl.constexpr):
    _tile_matmul(a, b, c, M, N, K, floor, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, SYNC, TF32, B_KMAJOR)


@triton.jit
def tt_sync_mma(a, b, c, M, N, K, floor, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                GROUP_M: tl.constexpr, SYNC: tl.constexpr, TF32: tl.constexpr, B_KMAJOR: tl.constexpr):
    _tile_matmul(a, b, c, M, N, K, floor, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, SYNC, TF32, B_KMAJOR)


@triton.jit
def tt_tf32_one_stage(a, b, c, M, N, K, floor, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                      GROUP_M: tl.constexpr, SYNC: tl.constexpr, TF32: tl.constexpr, B_KMAJOR: tl.constexpr):
    _tile_matmul(a, b, c, M, N, K, floor, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, SYNC, TF32, B_KMAJOR)


@triton.jit
def tt_tf32_transpose(a, b, c, M, N, K, floor, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                      GROUP_M: tl.constexpr, SYNC: tl.constexpr, TF32: tl.constexpr, B_KMAJOR: tl.constexpr):
    _tile_matmul(a, b, c, M, N, K, floor, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, SYNC, TF32, B_KMAJOR)


@triton.jit
def tt_tail_wave(a, b, c, M, N, K, floor, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                 GROUP_M: tl.constexpr, SYNC: tl.constexpr, TF32: tl.constexpr, B_KMAJOR: tl.constexpr):
    _tile_matmul(a, b, c, M, N, K, floor, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, SYNC, TF32, B_KMAJOR)


# The held-out set: the same body under other names, at other tiles and shapes.

@triton.jit
def v_tt_bf16(a, b, c, M, N, K, floor, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
              GROUP_M: tl.constexpr, SYNC: tl.constexpr, TF32: tl.constexpr, B_KMAJOR: tl.constexpr):
    _tile_matmul(a, b, c, M, N, K, floor, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, SYNC, TF32, B_KMAJOR)


@triton.jit
def v_tt_one_stage(a, b, c, M, N, K, floor, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   GROUP_M: tl.constexpr, SYNC: tl.constexpr, TF32: tl.constexpr, B_KMAJOR: tl.constexpr):
    _tile_matmul(a, b, c, M, N, K, floor, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, SYNC, TF32, B_KMAJOR)


@triton.jit
def v_tt_sync(a, b, c, M, N, K, floor, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
              GROUP_M: tl.constexpr, SYNC: tl.constexpr, TF32: tl.constexpr, B_KMAJOR: tl.constexpr):
    _tile_matmul(a, b, c, M, N, K, floor, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, SYNC, TF32, B_KMAJOR)


@triton.jit
def v_tt_tiny(a, b, c, M, N, K, floor, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
              GROUP_M: tl.constexpr, SYNC: tl.constexpr, TF32: tl.constexpr, B_KMAJOR: tl.constexpr):
    _tile_matmul(a, b, c, M, N, K, floor, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, SYNC, TF32, B_KMAJOR)


@triton.jit
def v_tt_row_order(a, b, c, M, N, K, floor, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   GROUP_M: tl.constexpr, SYNC: tl.constexpr, TF32: tl.constexpr, B_KMAJOR: tl.constexpr):
    _tile_matmul(a, b, c, M, N, K, floor, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, SYNC, TF32, B_KMAJOR)


@triton.jit
def v_tt_tail(a, b, c, M, N, K, floor, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
              GROUP_M: tl.constexpr, SYNC: tl.constexpr, TF32: tl.constexpr, B_KMAJOR: tl.constexpr):
    _tile_matmul(a, b, c, M, N, K, floor, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, SYNC, TF32, B_KMAJOR)


@triton.jit
def v_tt_uneven(a, b, c, M, N, K, floor, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                GROUP_M: tl.constexpr, SYNC: tl.constexpr, TF32: tl.constexpr, B_KMAJOR: tl.constexpr):
    _tile_matmul(a, b, c, M, N, K, floor, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, SYNC, TF32, B_KMAJOR)


def launch(kernel, a, b, c, tile, group_m=8, stages=3, warps=8, sync=False, tf32=False, b_kmajor=False):
    """One launch of `kernel` over C (a grid of whole tiles); with `b_kmajor`, `b` is B's transpose."""
    M, K = a.shape
    N = b.shape[0] if b_kmajor else b.shape[1]
    bm, bn, bk = tile
    assert M % bm == 0 and N % bn == 0 and K % bk == 0, (M, N, K, tile)
    grid = ((M // bm) * (N // bn),)
    kernel[grid](a, b, c, M, N, K, float("-inf"), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=group_m,
                 SYNC=sync, TF32=tf32, B_KMAJOR=b_kmajor, num_stages=stages, num_warps=warps)
