"""Bench the experimental SGEMM variants (kernels/experiments/, not in the ladder yet) against
cuBLAS, with rungs 10 and 11 as baselines, through the project's own builder and bench worker:
verification against cuBLAS, then timing alternating with cuBLAS (L2 flushed) in the same child,
so every row's % of cuBLAS comes from its own run. A variant that fails or faults is a row
with its status; the run goes on.

    python3 benchmarks/variants.py [--sizes 4096,8192] [--only NAME,...] [--build-only]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from profiler.errors import GemmprofError  # noqa: E402
from profiler.manifest import KernelSpec, load_manifest  # noqa: E402
from profiler.measure.bench import bench_kernel  # noqa: E402
from profiler.measure.build import build_kernel  # noqa: E402
from profiler.measure.timing import TimingPolicy  # noqa: E402

BASELINES = ("cutlass128x128x8", "cutlass128x256x8", "regbank128x256x8", "spread128x256x8")


def _variant(name: str, idea: str, bm: int, bn: int, bk: int, smem: int) -> KernelSpec:
    return KernelSpec(name=name, file=f"experiments/{name}.cu", entry=f"sgemm_{name}", tier="fp32", idea=idea,
                      grid=(f"cdiv(N, {bn})", f"cdiv(M, {bm})"), block=(256,), smem_bytes=smem,
                      contract={"M": bm, "N": bn, "K": bk}, min_cc=80, index=100)


VARIANTS = (
    _variant("bankrot128x256k16", "regbank128x256x8 with k tiles of 16: half the barriers and LDS bursts", 128, 256, 16, 74496),
    _variant("bankrot128x128", "128x128x16, 2 blocks/SM, 4-stage cp.async, bank-rotated accumulators", 128, 128, 16, 66560),
    _variant("flat128x256", "regbank128x256x8 with a branch-free k tile: one basic block, no LDS burst at the barrier", 128, 256, 8, 49664),
    _variant("flat128x256k16", "flat128x256 with k tiles of 16 and 4 stages (99 KB): 93% FFMA, LDS spread", 128, 256, 16, 99328),
)


def kernels(only: list[str] | None = None) -> list[KernelSpec]:
    specs = [s for s in load_manifest() if s.name in BASELINES] + list(VARIANTS)
    return [s for s in specs if not only or s.name in only]


def build(specs: list[KernelSpec], arch: str = "sm_90") -> dict[str, object]:
    """name -> Built, or the error message of a variant that does not compile."""
    out: dict[str, object] = {}
    for s in specs:
        try:
            out[s.name] = build_kernel(s, arch)
        except GemmprofError as exc:
            out[s.name] = str(exc)
    return out


def row(name: str, regs, rec: dict) -> str:
    shape = f"{rec['M']}x{rec['N']}x{rec['K']}"
    ms = f"{rec['median_ms']:.4f}" if "median_ms" in rec else "-"
    cub = f"{rec['cublas_median_ms']:.4f}" if "cublas_median_ms" in rec else "-"
    pct = f"{rec['pct_of_cublas']:.1f}" if "pct_of_cublas" in rec else "-"
    why = "" if rec["status"] == "PASS" else f"  {rec.get('reason', '')}"[:120]
    return f"{name:<20} {regs!s:>4} {shape:<16} {ms:>9} {cub:>9} {pct:>7}  {rec['status']}{why}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="4096,8192", help="square sizes, comma-separated")
    ap.add_argument("--only", default="", help="kernel names, comma-separated (default: all)")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--max-seconds", type=float, default=3.0, help="timing budget per kernel and shape")
    ap.add_argument("--build-only", action="store_true", help="compile and print ptxas resources, no GPU")
    args = ap.parse_args(argv)
    shapes = [(n, n, n) for n in (int(x) for x in args.sizes.split(",") if x)]
    specs = kernels([x for x in args.only.split(",") if x] or None)
    built = build(specs, args.arch)
    for s in specs:
        b = built[s.name]
        print(f"{s.name:<20} " + (f"{b.resources.registers} registers, spills {b.resources.spill_store_bytes}/"
                                   f"{b.resources.spill_load_bytes} B, {s.file}" if not isinstance(b, str) else f"BUILD FAILED: {b}"))
    if args.build_only:
        return 0 if all(not isinstance(b, str) for b in built.values()) else 1
    policy = TimingPolicy(max_seconds=args.max_seconds)
    print(f"\n{'kernel':<20} {'regs':>4} {'shape':<16} {'median_ms':>9} {'cublas_ms':>9} {'%cuBLAS':>7}  status", flush=True)
    for s in specs:
        b = built[s.name]
        if isinstance(b, str):
            for M, N, K in shapes:
                print(row(s.name, "-", {"M": M, "N": N, "K": K, "status": "ERROR", "reason": b.splitlines()[0]}), flush=True)
            continue
        bench_kernel(s.name, s.tier, str(b.cubin), shapes, policy,
                     lambda rec, s=s, b=b: print(row(s.name, b.resources.registers, rec), flush=True), spec=s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
