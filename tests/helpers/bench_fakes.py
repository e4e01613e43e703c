"""`gemmprof bench` without a GPU: the GPU parts (environment, nvcc, the timing children) replaced by
stand-ins, so the command's own work (merging into a run, writing tables, handling signals) runs
for real. `install(monkeypatch)` for in-process tests; run as a script for signal tests:

    python tests/helpers/bench_fakes.py [--hang] bench -k naive --sizes 64 --out DIR --run-id r

`--hang`: after the results for the first kernel, the stand-in waits for a signal.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout (tests/helpers/ is two below)

ENV = {"gpu_name": "NVIDIA H200 (fake)", "arch": "sm_90", "gpu_slug": "h200", "compute_capability": "9.0",
       "sm_count": 132, "driver": "580.0", "cublas_version": "13.1.0", "cuda_runtime": "13.2"}


def fake_record(name: str, tier: str, shape, median: float = 1.0) -> dict:
    M, N, K = shape
    return {"kernel": name, "tier": tier, "M": M, "N": N, "K": K, "status": "PASS", "median_ms": median,
            "p10_ms": median * 0.99, "p90_ms": median * 1.01, "cv": 0.005, "error": 1e-7,
            "gflops": 2 * M * N * K / (median * 1e-3) / 1e9, "pct_of_cublas": 50.0}


def patch(setattr, hang: bool = False, median: float = 1.0) -> None:
    """Replace the GPU parts through `setattr(module, name, value)` (monkeypatch.setattr or the
    builtin)."""
    import profiler.measure.bench as measure_bench
    import profiler.measure.build as build
    import profiler.measure.provenance as provenance
    from profiler.catalogue.manifest import reference_rows

    def built(specs, arch, force=False, jobs=None):
        resources = build.Resources("k", arch, 32, 0, 0, 0, 0, 0)
        return [build.Built(s, Path("/nonexistent.cubin"), resources, True) for s in specs]

    def run_bench(work, cubins, policy, on_record, **kw):
        references = reference_rows([*work.specs, *work.dispatchers]) if work.include_cublas else []
        names = references + [(s.name, s.tier) for s in work.specs]
        for i, (name, tier) in enumerate(names):
            for shape in work.shapes:
                on_record(fake_record(name, tier, shape, median))
            if hang and i == 0:
                sys.stderr.write("HANGING\n")
                sys.stderr.flush()
                time.sleep(60)

    setattr(provenance, "collect_environment", lambda ncu=None, need_gpu=False, nvml_only=False: dict(ENV))
    setattr(build, "build_all", built)
    setattr(measure_bench, "bench", run_bench)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    args = sys.argv[1:]
    hang = "--hang" in args
    args = [a for a in args if a != "--hang"]
    patch(setattr, hang=hang)
    sys.argv = ["gemmprof", *args]
    from profiler.cli import main

    main()
