"""On the GPU: every probe kernel is a correct GEMM (its planted bottleneck makes it slow, not
wrong): it passes verification against cuBLAS at its probe_shape, where it is profiled, and at
the small odd and even shapes the sanitizer pass uses. Runs on the device machine; skipped
elsewhere."""

import pytest

from profiler.catalogue.kernel_paths import PROBES_MANIFEST
from profiler.catalogue.manifest import load_manifest
from profiler.measure.bench import BenchTarget, bench_kernel
from profiler.measure.build import build_kernel
from profiler.measure.launch_once import small_shapes
from profiler.measure.timing import TimingPolicy

pytestmark = pytest.mark.gpu

QUICK = TimingPolicy(min_reps=2, max_reps=3, max_seconds=0.1, warmup_seconds=0.01, warmup_max_seconds=0.1)
PROBES = load_manifest(PROBES_MANIFEST)


@pytest.mark.parametrize("spec", PROBES, ids=lambda s: s.name)
def test_probe_passes_at_its_probe_shape_and_small_shapes(spec):
    shapes = [tuple(spec.probe_shape), *small_shapes(spec)]
    records = []
    bench_kernel(BenchTarget(spec.name, spec.tier, str(build_kernel(spec, "sm_90").cubin), spec), shapes, QUICK, records.append)
    assert [(r["M"], r["N"], r["K"]) for r in records] == shapes
    for r in records:
        assert r["status"] == "PASS", r
        assert r["error"] <= r["tolerance"]
