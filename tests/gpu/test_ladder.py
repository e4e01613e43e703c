"""On the GPU: every ladder kernel passes on odd and rectangular shapes, and wrong or faulting
kernels are reported as FAIL / ERROR without taking the run down. Runs on the device machine
(make gpu-check); skipped elsewhere."""


import pytest

from profiler.catalogue.kernel_spec import KernelSpec
from profiler.catalogue.manifest import load_manifest
from profiler.measure.build import build_kernel
from helpers.gpu_runs import QUICK, run
from helpers.paths import FAULTY_KERNEL

pytestmark = pytest.mark.gpu

# Odd sizes, non-multiples of every tile, rectangles; each kernel runs those in its contract.
SHAPES = [(128, 128, 128), (257, 129, 67), (777, 1000, 1023), (1536, 512, 2048), (96, 64, 4)]
FAULTY = FAULTY_KERNEL


@pytest.mark.parametrize("spec", load_manifest(), ids=lambda s: s.name)
def test_kernel_passes_every_shape_in_its_contract(spec):
    records = run(spec, SHAPES)
    assert [(r["M"], r["N"], r["K"]) for r in records] == SHAPES
    for r in records:
        if spec.unsupported_reason(r["M"], r["N"], r["K"]):
            assert r["status"] == "SKIP"
        elif spec.expect_fail:  # 1xTF32: outside the FP32 bound by design, and never timed
            assert r["status"] == "FAIL" and "expected" in r["reason"] and "median_ms" not in r, r
        else:
            assert r["status"] == "PASS", r
            assert r["error"] <= r["tolerance"] and r["median_ms"] > 0 and r["gflops"] > 0


# Whole-tile shapes for the TMA kernels (128x256x64 tiles): one k tile (fewer than the stages),
# a ring that wraps (5 k tiles over 4 stages), a partial rasterisation group, and rectangles.
TMA_SHAPES = [(128, 256, 64), (256, 512, 128), (384, 768, 320), (1024, 1024, 1024), (2304, 512, 1024), (512, 2048, 4096)]


@pytest.mark.parametrize("spec", [s for s in load_manifest() if s.tensor_maps], ids=lambda s: s.name)
def test_tma_kernel_passes_whole_tile_shapes(spec):
    shapes = [s for s in TMA_SHAPES if spec.unsupported_reason(*s) is None]
    assert len(shapes) >= 4, "the contract admits too few of the test shapes"
    records = run(spec, shapes)
    assert [(r["M"], r["N"], r["K"]) for r in records] == shapes
    for r in records:
        assert r["status"] == "PASS", r
        assert r["error"] <= r["tolerance"]


def faulty(entry: str) -> KernelSpec:
    return KernelSpec(name=entry.removeprefix("sgemm_"), file=str(FAULTY), entry=entry, tier="fp32", idea="broken on purpose",
                      grid=("cdiv(N, 32)", "cdiv(M, 32)"), block=(1024,))


@pytest.mark.parametrize("entry,why", [("sgemm_skips_last_column", "not finite"), ("sgemm_ignores_beta", "relative error")])
def test_wrong_kernel_fails_and_gets_no_time(entry, why):
    (r,) = run(faulty(entry), [(256, 256, 256)])
    assert r["status"] == "FAIL" and why in r["reason"]
    assert "median_ms" not in r and "gflops" not in r


def test_faulting_kernel_is_an_error_and_the_run_goes_on():
    records = run(faulty("sgemm_faults"), [(64, 64, 64), (128, 128, 128)])
    assert [r["status"] for r in records] == ["ERROR", "ERROR"]
    assert "illegal" in records[0]["reason"].lower() or "error" in records[0]["reason"].lower()
    # the next kernel in the same process tree still runs fine
    naive = next(s for s in load_manifest() if s.name == "naive")
    assert run(naive, [(64, 64, 64)])[0]["status"] == "PASS"


def test_dispatcher_runs_the_kernel_its_rules_choose():
    from profiler.catalogue.dispatchers import load_dispatchers
    from profiler.measure.bench import bench
    from profiler.measure.build import build_all
    from profiler.measure.jobs import BenchWork

    kernels = {s.name: s for s in load_manifest()}
    best = load_dispatchers()[0]
    needed = list({r.kernel: kernels[r.kernel] for r in best.ordered}.values())
    cubins = {b.spec.name: str(b.cubin) for b in build_all(needed, "sm_90")}
    records = []
    # derived rules (1362x925x247: splitk64x64x8t4), then `ahead` rules: few 64x64 tiles and a long K
    # (splitk64x64x8rs, split up to 256 ways), small products of few tiles (splitk32x32x8t4), decode
    # steps of 17-32 rows (splitk32x64x8t8), a few rows (skinny32)
    shapes = [(2048, 2048, 2048), (777, 1000, 1023), (1362, 925, 247), (42, 168, 30289), (256, 256, 256), (24, 4096, 4096),
              (8, 4096, 4096)]
    bench(BenchWork([], shapes, include_cublas=False, dispatchers=[best], kernels=kernels), cubins, QUICK, records.append)
    assert sorted((r["M"], r["dispatched_to"]) for r in records) == sorted(
        (M, best.choose(M, N, K, kernels).name) for M, N, K in shapes)
    assert all(r["kernel"] == best.name and r["status"] == "PASS" for r in records)
    assert all(r["dispatch_rule"].startswith("rule ") for r in records)  # the reason, shown in the bench table


def test_the_fp32_tc_dispatcher_runs_tensor_core_and_strict_kernels_within_fp32s_bound():
    """best-tc sends a few tiles over a long K to tf32x3sk, a grid of tiles to tf32x3bits, and the
    rest (here a shape outside the 3xTF32 rungs' contract, and a K-long one of 4 tiles) to
    `best`'s choice: strict FP32 kernels, verified and timed as fp32-tc rows against strict cuBLAS."""
    from profiler.catalogue.dispatchers import load_dispatchers
    from profiler.measure.bench import bench
    from profiler.measure.build import build_all
    from profiler.measure.jobs import BenchWork

    kernels = {s.name: s for s in load_manifest()}
    best_tc = next(d for d in load_dispatchers() if d.name == "best-tc")
    shapes = [(1024, 1024, 1024), (2048, 2048, 2048), (1023, 1023, 1023), (256, 256, 32768)]
    needed = list({best_tc.choose(*s, kernels).name: best_tc.choose(*s, kernels) for s in shapes}.values())
    cubins = {b.spec.name: str(b.cubin) for b in build_all(needed, "sm_90")}
    records = []
    bench(BenchWork([], shapes, include_cublas=False, dispatchers=[best_tc], kernels=kernels), cubins, QUICK, records.append)
    ran = {r["M"]: r for r in records}
    assert (ran[1024]["dispatched_to"], ran[2048]["dispatched_to"]) == ("tf32x3sk", "tf32x3bits")
    assert kernels[ran[1023]["dispatched_to"]].tier == kernels[ran[256]["dispatched_to"]].tier == "fp32"
    assert all(r["kernel"] == "best-tc" and r["tier"] == "fp32-tc" and r["status"] == "PASS" for r in records)


# --- kernels reading A and B through 1D linear textures (manifest key `textures`) --------------
TEXTURED = [s for s in load_manifest() if s.textures]
# Within N % 4 == 0, K % 4 == 0: ragged M, N past a texel row, K with a half-empty last k tile
# (K % 8 == 4), one-row and one-texel matrices.
RAGGED_IN_TEXEL_CONTRACT = [(777, 1000, 1020), (129, 260, 12), (1, 4, 4), (300, 132, 36), (2049, 516, 1028)]


@pytest.mark.parametrize("spec", TEXTURED, ids=lambda s: s.name)
def test_textured_kernel_passes_ragged_shapes_in_its_contract(spec):
    shapes = [s for s in RAGGED_IN_TEXEL_CONTRACT if spec.unsupported_reason(*s) is None]
    assert shapes, "no ragged shape is in the contract"
    records = run(spec, shapes)
    assert [r["status"] for r in records] == ["PASS"] * len(shapes), [r.get("reason") for r in records]


def _runner(spec):
    from profiler.measure.device import import_cupy
    from profiler.measure.launch import KernelRunner

    cp = import_cupy()
    return cp, KernelRunner(cp, spec, str(build_kernel(spec, "sm_90").cubin))


@pytest.mark.parametrize("spec", TEXTURED, ids=lambda s: s.name)
def test_textured_kernel_keeps_a_nonfinite_a_row_to_itself(spec):
    """K % 8 == 4: the last k tile's second half runs on into A's next row. Inf there must not
    reach the row before it (0 * Inf = NaN): only row 1 of C may be non-finite."""
    import numpy as np

    from profiler.measure.launch import Gemm

    cp, runner = _runner(spec)
    M, N, K = 130, 132, 12
    g = Gemm.random(cp, M, N, K, seed=7)
    g.A[1, :] = np.inf
    g.C.fill(np.nan)
    runner(g, 1.0, 0.0)
    cp.cuda.runtime.deviceSynchronize()
    rows = cp.asarray([r for r in range(M) if r != 1])
    ref = g.A[rows] @ g.B
    assert bool(cp.isfinite(g.C[rows]).all())
    assert float(cp.abs(g.C[rows] - ref).max()) <= 1e-4 * float(cp.abs(ref).max())
    assert not bool(cp.isfinite(g.C[1]).any())


@pytest.mark.parametrize("spec", TEXTURED, ids=lambda s: s.name)
def test_textures_are_made_once_per_buffer_and_misaligned_views_refused(spec):
    from profiler.errors import GemmprofError
    from profiler.measure.launch import Gemm

    cp, runner = _runner(spec)
    g = Gemm.random(cp, 256, 256, 64, seed=1)
    for _ in range(5):
        runner(g, 1.0, 0.0)
    assert runner.textures.created == len(spec.textures)
    runner(Gemm.random(cp, 256, 256, 64, seed=2), 1.0, 0.0)
    assert runner.textures.created == 2 * len(spec.textures)
    # A view 16 bytes into a buffer: float4-aligned, but not at the device's textureAlignment.
    matrix = spec.textures[0]
    shape = getattr(g, matrix).shape
    base = cp.zeros(shape[0] * shape[1] + 4, dtype=cp.float32)
    shifted = Gemm(256, 256, 64, g.A, g.B, g.C)
    setattr(shifted, matrix, base[4:].reshape(shape))
    with pytest.raises(GemmprofError, match="textureAlignment"):
        runner(shifted, 1.0, 0.0)
    cp.cuda.runtime.deviceSynchronize()


def test_skinny32_passes_every_tile_height_split_and_repeats():
    """skinny32's three tile heights (M 1-4, 5-8, 9-16, and M above 16: several row tiles), N
    ending mid-tile, K of one row, K odd and split many ways and unequally (the last arriver's sum,
    the workspace's counters reset for the next launch), grids too large to split; each shape
    twice and shapes alternating, so a split launch follows an unsplit one."""
    spec = next(s for s in load_manifest() if s.name == "skinny32")
    shapes = [(1, 4, 1), (1, 4096, 4096), (3, 516, 4099), (5, 11008, 4096), (8, 4096, 14336), (9, 1028, 777),
              (16, 28672, 8192), (17, 4096, 4096), (64, 1000, 65536), (200, 40, 16384), (1000, 1000, 1000), (2, 8, 3)]
    records = run(spec, [s for s in shapes for _ in range(2)])
    bad = [(r["M"], r["N"], r["K"], r["status"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == 2 * len(shapes)


def test_tall32_passes_both_tile_widths_splits_and_repeats():
    """tall32's two tile widths (N <= 32: 256 rows; N 33-64: 128 rows; N above 64: several column
    tiles), N not a multiple of 4 (C stored by floats), M ending mid-tile, K of one row, K odd and
    split many ways (the last arriver's sum, the counters reset for the next launch), a grid too
    large to split; each shape twice, so a split launch follows an unsplit one."""
    spec = next(s for s in load_manifest() if s.name == "tall32")
    shapes = [(1, 1, 1), (5584, 30, 36785), (12217, 16, 24971), (257, 33, 4099), (3616, 38, 5249), (1000, 64, 65536),
              (333, 100, 777), (60682, 24, 44), (40000, 64, 1024), (7, 3, 5000), (1000, 1000, 1000)]
    records = run(spec, [s for s in shapes for _ in range(2)])
    bad = [(r["M"], r["N"], r["K"], r["status"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == 2 * len(shapes)
