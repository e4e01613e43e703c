"""Device-machine diagnostic for rung 14 (wgmma): build the kernel with alternative B descriptor
strides (-DB_LBO/-DB_SBO) and check each in-process against CuPy's own product, so one GPU call
tells which reading of the MN-major 128B-swizzle descriptor the hardware agrees with.

    python3 scripts/wgmma_variants.py      (prints one line per variant and shape)
"""

from __future__ import annotations

import dataclasses
import sys

import numpy as np

from profiler.errors import GemmprofError
from profiler.manifest import load_manifest
from profiler.measure.build import build_kernel
from profiler.measure.device import import_cupy
from profiler.measure.launch import Gemm, KernelRunner

VARIANTS = {
    "as committed (LBO 8192, SBO 1024)": (),
    "swapped (LBO 1024, SBO 8192)": ("-DB_LBO=1024", "-DB_SBO=8192"),
}
SHAPES = [(128, 256, 64), (256, 512, 320), (1024, 1024, 1024)]


def main() -> int:
    cp = import_cupy()
    spec = next(s for s in load_manifest() if s.name == "wgmma")
    ok = False
    for label, flags in VARIANTS.items():
        variant = dataclasses.replace(spec, nvcc_flags=spec.nvcc_flags + flags)
        runner = KernelRunner(cp, variant, str(build_kernel(variant, "sm_90").cubin))
        for M, N, K in SHAPES:
            g = Gemm.random(cp, M, N, K, dtype=np.float16, seed=1)
            ref = g.A.astype(cp.float32) @ g.B.astype(cp.float32)
            g.C.fill(np.nan)
            try:
                runner(g, 1.0, 0.0)
                cp.cuda.get_current_stream().synchronize()
            except (RuntimeError, GemmprofError) as exc:  # CUDA errors are RuntimeErrors; a fault poisons the context
                print(f"{label:40s} {M}x{N}x{K}: ERROR {type(exc).__name__}: {exc}")
                return 2
            err = float(cp.linalg.norm(cp.nan_to_num(g.C - ref, nan=1e30)) / cp.linalg.norm(ref))
            print(f"{label:40s} {M}x{N}x{K}: relative error {err:.3e} {'PASS' if err < 1e-2 else 'FAIL'}")
            ok |= label.startswith("as committed") and err < 1e-2 and (M, N, K) == SHAPES[-1]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
