"""The foreign corpus: GEMM-like kernels gemmprof did not write, each with one cause known by
construction (truth.toml beside this file says what a right verdict must and must not say).

Triton matmuls (triton_cases.py), cuBLAS through PyTorch at several precisions, shapes and a
batch, and hand-written CUDA (hand_written.cu, compiled with nvcc -lineinfo, launched by CuPy).
Each case runs once outside any range (compiles, creates handles, picks algorithms), then once
inside the NVTX ranges `corpus/<case>/<what> <shape>`, and is checked against a reference.

    gemmprof profile --nvtx-include corpus/ -- python3 tests/programs/corpus/corpus.py [CASE ...]

With no CASE every case runs; `--list` prints them; `--group triton|torch|cuda|holdout` runs one
group. The held-out cases (`v_*`) are kept apart: the diagnosis is tuned on the others and
reported on these, which it never saw.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import torch
import torch.nn.functional as F

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import triton_cases as tc  # noqa: E402  (a file of @jit kernels beside this one)

nvtx = torch.cuda.nvtx


def _randn(*shape, dtype):
    return torch.randn(*shape, device="cuda", dtype=torch.float32).to(dtype)


def _rel_error(got: torch.Tensor, want: torch.Tensor) -> float:
    got, want = got.double(), want.double()
    return float(torch.linalg.norm(got - want) / torch.linalg.norm(want))


def _strict_fp32(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    torch.backends.cuda.matmul.allow_tf32 = False
    return a.float() @ b.float()


def _ranged(case: str, label: str, fn):
    """fn() once for warm-up, then once inside corpus/<case>/<label>; its result."""
    fn()
    torch.cuda.synchronize()
    nvtx.range_push("corpus")
    nvtx.range_push(case)
    nvtx.range_push(label)
    out = fn()
    nvtx.range_pop()
    nvtx.range_pop()
    nvtx.range_pop()
    torch.cuda.synchronize()
    return out


# --- Triton ------------------------------------------------------------------------------------

def _triton(case, kernel, shape, tile, dtype=torch.float16, tol=1e-2, b_kmajor=False, **config):
    M, N, K = shape
    a, b = _randn(M, K, dtype=dtype), _randn(K, N, dtype=dtype)
    held = b.t().contiguous() if b_kmajor else b
    c = torch.empty(M, N, device="cuda", dtype=dtype)
    _ranged(case, f"gemm {M}x{N}x{K}", lambda: tc.launch(kernel, a, held, c, tile, b_kmajor=b_kmajor, **config))
    return _rel_error(c, _strict_fp32(a, b)), tol


def tt_pipelined():
    return _triton("tt_pipelined", tc.tt_pipelined, (8192, 8192, 8192), (128, 256, 64), stages=3)


def tt_one_stage():
    return _triton("tt_one_stage", tc.tt_one_stage, (8192, 8192, 8192), (128, 256, 64), stages=1)


def tt_row_order():
    # Tiles row by row along a wide N: each wave of 132 blocks spans about one row of tiles, so all
    # of B (256 MB, five times the L2) streams from DRAM again for every row: 1/132 byte a FLOP,
    # more than DRAM gives at the tensor cores' rate.
    return _triton("tt_row_order", tc.tt_row_order, (4096, 32768, 4096), (128, 256, 64), stages=3, group_m=0)


def tt_group_order():
    # tt_row_order's shape with tiles taken eight rows at a time: the same kernel, B reused from L2.
    return _triton("tt_group_order", tc.tt_group_order, (4096, 32768, 4096), (128, 256, 64), stages=3, group_m=8)


def tt_sync_mma():
    # 128x128 tiles (64 accumulators a thread): the read after every MMA costs no spills.
    return _triton("tt_sync_mma", tc.tt_sync_mma, (8192, 8192, 8192), (128, 128, 64), stages=3, sync=True)


def tt_small_tiles():
    return _triton("tt_small_tiles", tc.tt_small_tiles, (4096, 4096, 4096), (32, 32, 32), stages=2, warps=4)


def tt_tf32_one_stage():
    # B held K-major, the layout TF32 wgmma reads as it is: the one stage is the only planted cause.
    return _triton("tt_tf32_one_stage", tc.tt_tf32_one_stage, (4096, 4096, 4096), (128, 128, 32),
                   dtype=torch.float32, tol=5e-3, stages=1, tf32=True, b_kmajor=True)


def tt_tf32_transpose():
    # B row-major (N contiguous): TF32 wgmma reads only K-major operands, so each tile of B is
    # transposed on its way into shared memory, by scalar stores that collide in the banks.
    return _triton("tt_tf32_transpose", tc.tt_tf32_transpose, (4096, 4096, 4096), (128, 128, 32),
                   dtype=torch.float32, tol=5e-3, stages=3, tf32=True)


def tt_tail_wave():
    # 7 x 19 = 133 tiles of 128x256, one block per SM (three 48 KB stages): one wave of 132 SMs and
    # a second wave of one block, as long as the first.
    return _triton("tt_tail_wave", tc.tt_tail_wave, (896, 4864, 16384), (128, 256, 64), stages=3)


# --- cuBLAS through PyTorch --------------------------------------------------------------------

def _torch_mm(case, shape, dtype, tf32=False, tol=1e-2):
    M, N, K = shape
    a, b = _randn(M, K, dtype=dtype), _randn(K, N, dtype=dtype)

    def run():
        torch.backends.cuda.matmul.allow_tf32 = tf32
        return a @ b
    c = _ranged(case, f"gemm {M}x{N}x{K}", run)
    return _rel_error(c, _strict_fp32(a, b)), tol


def torch_fp16():
    return _torch_mm("torch_fp16", (8192, 8192, 8192), torch.float16)


def torch_fp32():
    return _torch_mm("torch_fp32", (4096, 4096, 4096), torch.float32, tol=1e-5)


def torch_tf32():
    return _torch_mm("torch_tf32", (4096, 4096, 4096), torch.float32, tf32=True, tol=5e-3)


def torch_fp16_small():
    return _torch_mm("torch_fp16_small", (256, 256, 256), torch.float16)


def _torch_bmm(name, label, batch, n, dtype, tol):
    """`batch` n x n x n products in one torch.bmm launch, named by the NVTX `label` (both ways
    of saying the batch count are read)."""
    a, b = _randn(batch, n, n, dtype=dtype), _randn(batch, n, n, dtype=dtype)
    c = _ranged(name, label, lambda: torch.bmm(a, b))
    return _rel_error(c, torch.bmm(a.float(), b.float())), tol


def torch_bmm_bf16():
    return _torch_bmm("torch_bmm_bf16", "bmm batch=4096 128x128x128", 4096, 128, torch.bfloat16, 2e-2)


def torch_decode_fp16():
    # One decode step of a linear layer: 16 tokens through a 8192x8192 weight (x @ W^T).
    M, N, K = 16, 8192, 8192
    x, w = _randn(M, K, dtype=torch.float16), _randn(N, K, dtype=torch.float16)
    y = _ranged("torch_decode_fp16", f"gemm {M}x{N}x{K}", lambda: F.linear(x, w))
    return _rel_error(y, _strict_fp32(x, w.t())), 1e-2


# --- hand-written CUDA -------------------------------------------------------------------------

_modules = {}


def _cuda(name, source="hand_written.cu", target=("-arch=sm_90",)):
    """A kernel of a hand-written source beside this file, compiled once with line info."""
    if source not in _modules:
        import cupy as cp
        cubin = Path(tempfile.mkdtemp()) / (Path(source).stem + ".cubin")
        subprocess.run(["nvcc", "-cubin", "-O3", "-lineinfo", *target, "-o", str(cubin), str(HERE / source)],
                       check=True)
        _modules[source] = cp.RawModule(path=str(cubin))
    return _modules[source].get_function(name)


def _sgemm(case, shape, block, grid_of, transposed_b=False):
    """A hand-written SGEMM of the case's name over fresh inputs (B passed as its transpose where
    the kernel reads it so), checked against strict FP32."""
    import cupy as cp
    M, N, K = shape
    a, b = _randn(M, K, dtype=torch.float32), _randn(K, N, dtype=torch.float32)
    c = torch.full((M, N), float("nan"), device="cuda")
    kernel = _cuda(case)
    held = b.t().contiguous() if transposed_b else b
    args = (cp.asarray(a), cp.asarray(held), cp.asarray(c), cp.int32(M), cp.int32(N), cp.int32(K))
    _ranged(case, f"gemm {M}x{N}x{K}", lambda: kernel(grid_of(M, N), block, args))
    return _rel_error(c, _strict_fp32(a, b)), 1e-5


def naive():
    return _sgemm("naive", (2048, 2048, 2048), (32, 8), lambda M, N: (M // 32, N // 8))


def smem():
    return _sgemm("smem", (2048, 2048, 2048), (32, 32), lambda M, N: (N // 32, M // 32))


def divergent():
    return _sgemm("divergent", (2048, 2048, 2048), (32, 8), lambda M, N: (N // 32, M // 8))


def stream_scale():
    import cupy as cp
    n = 1 << 28  # 1 GiB of floats in, 1 GiB out
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    kernel = _cuda("stream_scale")
    args = (cp.asarray(x), cp.asarray(y), cp.float32(0.5), cp.int64(n))
    _ranged("stream_scale", f"stream {n} floats", lambda: kernel((132 * 8,), (256,), args))
    return _rel_error(y, 0.5 * x), 1e-6


# --- the held-out set: cases the diagnosis was not tuned on ----------------------------------------

def decode_unrolled():
    """FP16 decode product (M = 1) by a hand-written split-K mma.sync kernel whose loops the
    compiler unrolled (hand_written_decode.cu): beta = 0, alpha = 1."""
    import cupy as cp
    M, N, K = 1, 4096, 4096
    a, b = _randn(M, K, dtype=torch.float16), _randn(K, N, dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda")
    kernel = _cuda("skinny_unrolled", "hand_written_decode.cu", ("-arch=sm_90",))
    kernel.max_dynamic_shared_size_bytes = 110592
    splits = max(1, min(K // 256, 264 // (N // 128)))
    args = (cp.int32(M), cp.int32(N), cp.int32(K), cp.float32(1.0), cp.asarray(a), cp.asarray(b),
            cp.float32(0.0), cp.asarray(c))
    _ranged("decode_unrolled", f"gemm {M}x{N}x{K}",
            lambda: kernel((1, N // 128, splits), (128,), args, shared_mem=110592))
    return _rel_error(c, _strict_fp32(a.float(), b.float())), 1e-2


def v_tt_bf16():
    return _triton("v_tt_bf16", tc.v_tt_bf16, (4096, 4096, 4096), (128, 256, 64), dtype=torch.bfloat16, stages=3)


def v_tt_one_stage():
    return _triton("v_tt_one_stage", tc.v_tt_one_stage, (4096, 4096, 4096), (128, 128, 32), stages=1, warps=4)


def v_tt_sync():
    return _triton("v_tt_sync", tc.v_tt_sync, (4096, 4096, 8192), (64, 128, 64), stages=4, warps=4, sync=True)


def v_tt_tiny():
    return _triton("v_tt_tiny", tc.v_tt_tiny, (2048, 2048, 4096), (16, 16, 32), stages=3, warps=1)


def v_tt_row_order():
    return _triton("v_tt_row_order", tc.v_tt_row_order, (2048, 65536, 4096), (128, 128, 64), stages=4, warps=4,
                   group_m=0)


def v_tt_tail():
    # 7 x 19 = 133 tiles of 128x128 with four 32 KB stages (one block an SM): a lone block in wave two.
    return _triton("v_tt_tail", tc.v_tt_tail, (896, 2432, 32768), (128, 128, 64), stages=4, warps=4)


def v_tt_uneven():
    # 14 x 10 = 140 tiles of 128x128 with three 32 KB stages and four warps (two blocks an SM): one
    # wave, in which 8 SMs run two blocks and the other 124 one.
    return _triton("v_tt_uneven", tc.v_tt_uneven, (1792, 1280, 16384), (128, 128, 64), stages=3, warps=4)


def v_torch_bf16():
    return _torch_mm("v_torch_bf16", (4096, 4096, 4096), torch.bfloat16)


def v_torch_gemv():
    M, N, K = 1, 14336, 4096
    x, w = _randn(M, K, dtype=torch.float16), _randn(N, K, dtype=torch.float16)
    y = _ranged("v_torch_gemv", f"gemm {M}x{N}x{K}", lambda: F.linear(x, w))
    return _rel_error(y, _strict_fp32(x, w.t())), 1e-2


def v_torch_small():
    return _torch_mm("v_torch_small", (128, 128, 128), torch.float32, tol=1e-5)


def v_torch_bmm_fp16():
    return _torch_bmm("v_torch_bmm_fp16", "bmm 8192x64x64x64", 8192, 64, torch.float16, 1e-2)


def v_transposed():
    return _sgemm("v_transposed", (2048, 2048, 2048), (32, 8), lambda M, N: (N // 32, M // 8), transposed_b=True)


def v_conflicts():
    return _sgemm("v_conflicts", (2048, 2048, 2048), (32, 32), lambda M, N: (N // 32, M // 32))


def v_fp64():
    return _sgemm("v_fp64", (2048, 2048, 2048), (32, 8), lambda M, N: (N // 32, M // 8))


def v_atomic_splitk():
    import cupy as cp
    M = N = K = 2048
    a, b = _randn(M, K, dtype=torch.float32), _randn(K, N, dtype=torch.float32)
    c = torch.zeros((M, N), device="cuda")
    kernel = _cuda("v_atomic_splitk")
    args = (cp.asarray(a), cp.asarray(b), cp.asarray(c), cp.int32(M), cp.int32(N), cp.int32(K))

    def run():
        c.zero_()
        kernel((N // 16, M // 16, K // 64), (16, 16), args)
    _ranged("v_atomic_splitk", f"gemm {M}x{N}x{K}", run)
    return _rel_error(c, _strict_fp32(a, b)), 1e-5


def v_local():
    import cupy as cp
    M = N = K = 2048
    a, b = _randn(M, K, dtype=torch.float32), _randn(K, N, dtype=torch.float32)
    c = torch.full((M, N), float("nan"), device="cuda")
    rows = cp.asarray([8], dtype=cp.int32)
    kernel = _cuda("v_local")
    args = (cp.asarray(a), cp.asarray(b), cp.asarray(c), cp.int32(M), cp.int32(N), cp.int32(K), rows)
    _ranged("v_local", f"gemm {M}x{N}x{K}", lambda: kernel((N // 32, M // 64), (32, 8), args))
    return _rel_error(c, _strict_fp32(a, b)), 1e-5


def v_stream4():
    import cupy as cp
    n = 1 << 28
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    kernel = _cuda("v_stream4")
    args = (cp.asarray(x), cp.asarray(y), cp.float32(0.5), cp.int64(n // 4))
    _ranged("v_stream4", f"stream {n} floats", lambda: kernel((132 * 4,), (256,), args))
    return _rel_error(y, 0.5 * x), 1e-6


def v_wg_sync():
    import cupy as cp
    M = N = K = 4096
    a, b = _randn(M, K, dtype=torch.float16), _randn(K, N, dtype=torch.float16)
    bt = b.t().contiguous()
    c = torch.full((M, N), float("nan"), device="cuda")
    kernel = _cuda("wg_sync", "hand_written_wgmma.cu", ("-gencode=arch=compute_90a,code=sm_90a",))
    args = (cp.asarray(a), cp.asarray(bt), cp.asarray(c), cp.int32(M), cp.int32(N), cp.int32(K))
    _ranged("v_wg_sync", f"gemm {M}x{N}x{K}", lambda: kernel((N // 128, M // 64), (128,), args))
    return _rel_error(c, _strict_fp32(a, b)), 1e-2


CASES = {f.__name__: f for f in (
    tt_pipelined, tt_one_stage, tt_row_order, tt_group_order, tt_sync_mma, tt_small_tiles, tt_tf32_one_stage, tt_tf32_transpose,
    tt_tail_wave,
    torch_fp16, torch_fp32, torch_tf32, torch_fp16_small, torch_bmm_bf16, torch_decode_fp16,
    naive, smem, divergent, stream_scale, decode_unrolled,
    v_tt_bf16, v_tt_one_stage, v_tt_sync, v_tt_tiny, v_tt_row_order, v_tt_tail, v_tt_uneven,
    v_torch_bf16, v_torch_gemv, v_torch_small, v_torch_bmm_fp16,
    v_transposed, v_conflicts, v_fp64, v_atomic_splitk, v_local, v_stream4, v_wg_sync,
)}


# Which framework each case comes from (the capture profiles one group a run).
GROUPS = {name: "holdout" if name.startswith("v_") else "triton" if name.startswith("tt_")
          else "torch" if name.startswith("torch_") else "cuda" for name in CASES}


def main(argv: list[str]) -> int:
    if argv[:1] == ["--list"]:
        print("\n".join(CASES))
        return 0
    if argv[:1] == ["--group"] and len(argv) == 2:
        argv = [name for name, group in GROUPS.items() if group == argv[1]]
    unknown = [c for c in argv if c not in CASES]
    if unknown:
        print(f"corpus: no case {', '.join(unknown)}; --list lists them", file=sys.stderr)
        return 2
    failed = 0
    for name in argv or list(CASES):
        try:
            error, tol = CASES[name]()
        except Exception as exc:  # one case that cannot run must not take the others' profiles with it
            failed += 1
            print(f"corpus: {name:<20} ERROR {type(exc).__name__}: {str(exc)[:300]}", flush=True)
            continue
        ok = error <= tol
        failed += not ok
        print(f"corpus: {name:<20} relative error {error:.2e} (tolerance {tol:.0e}) {'PASS' if ok else 'FAIL'}",
              flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
