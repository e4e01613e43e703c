"""The program Nsight Compute runs: one GEMM launch inside an NVTX range, and nothing else in it.

Outside the range: load, verify against cuBLAS (a wrong kernel is still profiled, so its counters
can explain it, but the run records it as FAIL) and warm up. Inside the range "gp", a nested range
"<kernel> <M>x<N>x<K>" holds exactly one GEMM, so `--nvtx-include gp/` captures that launch only.
Prints one JSON line prefixed with TARGET_PREFIX for the parent.
"""

from __future__ import annotations

import argparse
import json
import sys

from .device import gpu_info, import_cupy
from .launch import CublasRunner, Gemm, KernelRunner
from .verify import check
from .ncu import NVTX_OUTER, TARGET_PREFIX
from ..tiers import FAIL, PASS

WARMUP_LAUNCHES = 3


def nvtx_inner(name: str, M: int, N: int, K: int) -> str:
    return f"{name} {M}x{N}x{K}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--job", required=True, help="JSON: kernel, tier, spec, cubin, M, N, K")
    job = json.loads(p.parse_args(argv).job)
    name, tier, M, N, K = job["kernel"], job.get("tier", "fp32"), job["M"], job["N"], job["K"]
    cp = import_cupy()
    from cupy.cuda import nvtx

    from ..catalogue.kernel_spec import KernelSpec
    from ..tiers import REFERENCE_ROWS
    from ..tiers import tier as tier_record

    reference = CublasRunner(cp, tier)
    if job.get("spec"):
        spec = KernelSpec.from_dict(job["spec"])
        run = KernelRunner(cp, spec, job["cubin"])
    elif name in REFERENCE_ROWS and name != reference.name:  # a context row (cuBLAS FAST_TF32)
        run = CublasRunner(cp, tier, name)
    else:
        run = reference
    result = check(cp, run, reference, M, N, K, tier=tier, seed=job.get("seed", 0))
    g = Gemm.random(cp, M, N, K, dtype=tier_record(tier).dtype, seed=job.get("seed", 0) + 1)
    for _ in range(WARMUP_LAUNCHES):
        run(g, 1.0, 0.5)
    cp.cuda.runtime.deviceSynchronize()
    nvtx.RangePush(NVTX_OUTER)
    nvtx.RangePush(nvtx_inner(name, M, N, K))
    run(g, 1.0, 0.5)
    nvtx.RangePop()
    nvtx.RangePop()
    cp.cuda.runtime.deviceSynchronize()
    info = gpu_info()
    environment = {"cuda_runtime": info.cuda_runtime, "cuda_driver_api": info.cuda_driver_api,
                   "cublas_version": info.cublas_version, "sm_count": info.sm_count, "l2_bytes": info.l2_bytes}
    print(TARGET_PREFIX + json.dumps({"kernel": name, "M": M, "N": N, "K": K, "status": PASS if result.passed else FAIL,
                                      "reason": result.reason, "error": result.error, "environment": environment}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
