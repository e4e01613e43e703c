"""Launch every kernel once per mode at two small shapes, with nothing else around it: the
program compute-sanitizer runs (`make gpu-sanitize`).

No timing harness, no verification, no cuBLAS: under memcheck, racecheck, synccheck and
initcheck every extra launch costs seconds, and pytest over the whole ladder did not finish in
170 s (DEVICE-NOTES.md). Per kernel and shape, two launches: beta = 0 onto an output that was
never written (initcheck: BLAS semantics say C is not read), then beta = 0.5 on that result (the
read of C). Kernels come from the manifest, extra manifests ($GEMMPROF_MANIFEST) included.
CuPy's memory pool is switched off: each buffer is its own cudaMalloc of its exact size, so an
access past its end is outside every allocation and memcheck sees it (inside a pool chunk, it
would land in a neighbour's bytes unnoticed).

    python -m profiler.measure.launch_once [-k NAME ...] [--arch sm_90]
"""

from __future__ import annotations

import argparse
import sys
import time

from ..catalogue.kernel_spec import KernelSpec
from ..tiers import tier as tier_record

# Multiples of the contract, odd (3) and even (2, 4): whole tiles for kernels that need them,
# ragged edges (not multiples of any tile) for kernels without a contract.
ODD_FACTORS, EVEN_FACTORS = (3, 3, 3), (2, 2, 4)
RAGGED_ODD, RAGGED_EVEN = (67, 45, 33), (64, 96, 128)


def small_shapes(spec: KernelSpec) -> list[tuple[int, int, int]]:
    """One odd and one even small shape inside the kernel's contract (textures: N and K a
    multiple of 4; TMA kernels: whole tiles)."""
    shapes = []
    for factors, ragged in ((ODD_FACTORS, RAGGED_ODD), (EVEN_FACTORS, RAGGED_EVEN)):
        shape = tuple(
            spec.contract[dim] * f if dim in spec.contract else r
            for dim, f, r in zip("MNK", factors, ragged)
        )
        if spec.unsupported_reason(*shape):  # a partial contract, e.g. only N: round up the rest
            shape = tuple(-(-d // spec.contract.get(dim, 1)) * spec.contract.get(dim, 1) for dim, d in zip("MNK", shape))
        shapes.append(shape)
    return shapes


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-k", "--kernel", action="append", help="kernel name (repeatable); default every kernel")
    p.add_argument("--arch", default="", help="target (default: the GPU's own)")
    args = p.parse_args(argv)

    from ..catalogue.manifest import select_kernels
    from .build import build_all
    from .device import gpu_info, import_cupy
    from .launch import Gemm, KernelRunner

    cp = import_cupy()
    cp.cuda.set_allocator(None)  # exact-size allocations (see the module docstring)
    info = gpu_info()
    specs = [s for s in select_kernels(args.kernel) if s.gpu_too_old(info.compute_capability) is None]
    built = {b.spec.name: b.cubin for b in build_all(specs, args.arch or info.arch)}
    started = time.perf_counter()
    for spec in specs:
        runner = KernelRunner(cp, spec, str(built[spec.name]))
        for M, N, K in small_shapes(spec):
            g = Gemm.random(cp, M, N, K, dtype=tier_record(spec.tier).dtype, seed=M + N + K)
            g.C = cp.empty((M, N), dtype=cp.float32)  # never written: beta = 0 must not read it
            runner(g, 1.0, 0.0)
            runner(g, 1.0, 0.5)
            cp.cuda.runtime.deviceSynchronize()
            finite = bool(cp.isfinite(g.C).all())
            print(f"{spec.name} {M}x{N}x{K}: launched twice, C {'finite' if finite else 'NOT FINITE'}", flush=True)
    print(f"{len(specs)} kernels in {time.perf_counter() - started:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
