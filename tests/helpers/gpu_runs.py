"""One kernel built and run through the bench path at a few shapes, quickly (the GPU tests of the
ladder and of the shape suite share it)."""

from __future__ import annotations

from profiler.catalogue.kernel_spec import KernelSpec
from profiler.measure.bench import BenchTarget, bench_kernel
from profiler.measure.build import build_kernel
from profiler.measure.timing import TimingPolicy

QUICK = TimingPolicy(min_reps=3, max_reps=5, max_seconds=0.2, warmup_seconds=0.01, warmup_max_seconds=0.2)


def run(spec: KernelSpec, shapes, arch="sm_90"):
    built = build_kernel(spec, arch)
    records = []
    bench_kernel(BenchTarget(spec.name, spec.tier, str(built.cubin), spec), shapes, QUICK, records.append)
    return records
