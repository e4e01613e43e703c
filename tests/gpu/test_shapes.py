"""On the GPU: the contract-free rungs (ragged128x128x8, ragged64x64x8, splitk128x128x8, splitk64x64x8,
ragged128x256x8, streamk128x128x8, streamk64x64x8, streamk64x32x8, splitk64x64x8t4, splitk128x256x8,
splitk128x256x8rs, splitk64x64x8rs, streamk128x256x8, splitk256x128x8rs, splitk256x64x8rs, tailsk128x256x8,
tall32) pass on ragged shapes of every kind (N or K
not a multiple of 4, one row, one column, K below one k tile, K ending mid-tile), split-K on many
splits, empty splits and the single-split fallback, the two-level sums of splitk64x64x8t4 and
splitk128x256x8 (whole and partial groups), and repeated launches (the arrival counters reset).
Checked by the bench's verification: every element against the rigorous FP32 bound, with beta = 0 on
a NaN-poisoned C and beta != 0. Runs on the device machine; skipped elsewhere."""

import dataclasses

import numpy as np
import pytest

from profiler.catalogue.kernel_paths import KERNELS_DIR
from profiler.catalogue.manifest import load_manifest
from profiler.measure.build import build_kernel

from helpers.gpu_runs import run

pytestmark = pytest.mark.gpu

BY_NAME = {s.name: s for s in load_manifest()}
NEW = [BY_NAME[n] for n in ("ragged128x128x8", "ragged64x64x8", "splitk128x128x8", "splitk64x64x8", "ragged128x256x8",
                             "streamk128x128x8", "streamk64x64x8", "streamk64x32x8", "splitk64x64x8t4", "splitk128x256x8",
                             "splitk128x256x8rs", "splitk64x64x8rs", "streamk128x256x8", "splitk256x128x8rs",
                             "splitk256x64x8rs", "tailsk128x256x8", "tall32")]
RAGGED = [(1, 1, 1), (1, 7, 3), (5, 1, 9), (3, 5, 7), (129, 257, 13), (4095, 33, 1023), (65, 4095, 4),
          (1000, 1000, 1000), (1023, 1021, 1022), (200, 300, 6), (2, 4, 8193), (130, 131, 8191), (64, 64, 64)]
# Split-K shapes: small M*N, long K (K ending mid-tile; splits of unequal length).
SPLIT = [(1024, 1024, 8192), (129, 257, 8191), (256, 256, 32768), (100, 30, 20000), (1, 1, 4097), (257, 129, 8197)]


@pytest.mark.parametrize("spec", NEW, ids=lambda s: s.name)
def test_new_rung_passes_ragged_shapes(spec):
    assert not spec.contract
    records = run(spec, RAGGED + SPLIT)
    assert [r["status"] for r in records] == ["PASS"] * len(RAGGED + SPLIT), [(r["M"], r["N"], r["K"], r.get("reason")) for r in records]


def test_split_k_runs_many_splits_and_repeats():
    """The grid really splits here (gridDim.z > 1), and the same shape twice in one process still
    passes: the last split of each tile left its counter at zero."""
    spec = BY_NAME["splitk128x128x8"]
    assert spec.launch(1024, 1024, 8192).grid[2] > 1 and spec.launch(256, 256, 32768).grid[2] == 64
    shapes = [(1024, 1024, 8192), (1024, 1024, 8192), (300, 200, 16384), (300, 200, 16384)]
    records = run(spec, shapes)
    assert [r["status"] for r in records] == ["PASS"] * 4, [r.get("reason") for r in records]
    small = BY_NAME["splitk64x64x8"]
    assert small.launch(512, 512, 512).grid[2] == 4
    records = run(small, [(512, 512, 512), (512, 512, 512), (1000, 1000, 1000)])
    assert [r["status"] for r in records] == ["PASS"] * 3, [r.get("reason") for r in records]


def test_t4_split_sums_one_and_two_levels_and_repeats():
    """splitk64x64x8t4's grid: one group of splits (256^3: 8), two levels with a partial last group
    (256x256x32768: 33 splits, groups 8+8+8+8+1; 128x128x65536: 64, eight whole groups), no split
    (1536^3); each twice in one process: every group and tile counter was reset."""
    spec = BY_NAME["splitk64x64x8t4"]
    splits = {shape: spec.launch(*shape).grid[2] for shape in [(256, 256, 256), (256, 256, 32768), (128, 128, 65536),
                                                               (512, 512, 512), (1024, 1024, 1024), (1536, 1536, 1536)]}
    assert list(splits.values()) == [8, 33, 64, 8, 2, 1], splits
    shapes = [s for s in [(256, 256, 256), (256, 256, 32768), (128, 128, 65536), (1023, 1021, 1022)] for _ in range(2)]
    records = run(spec, shapes)
    assert [r["status"] for r in records] == ["PASS"] * len(shapes), [(r["M"], r["N"], r["K"], r.get("reason")) for r in records]


def test_splitk128x256x8_sums_one_and_two_levels_on_each_path_and_repeats():
    """splitk128x256x8's grid: S = 4 in one group (1024x1024x8192), 16 in groups of 4 (512x512x16384,
    256x1024x16384), 64 in groups of 8 (256x256x32768), 2 (8192x256x2048), no split (4096^3); each
    twice in one process (every counter reset), and on the edge paths: K % 8 != 0 (whole tiles take
    the edge path), N % 4 != 0 (scalar B and C), a partial last group (S = 39 at 100x30x20000:
    groups of 7, the last of 4)."""
    spec = BY_NAME["splitk128x256x8"]
    shapes = [(1024, 1024, 8192), (512, 512, 16384), (256, 1024, 16384), (256, 256, 32768), (8192, 256, 2048),
              (4096, 4096, 4096), (100, 30, 20000), (257, 129, 8197), (512, 511, 16380)]
    splits = [spec.launch(*shape).grid[2] for shape in shapes]
    assert splits == [4, 16, 16, 64, 2, 1, 39, 16, 16], splits
    records = run(spec, [s for s in shapes for _ in range(2)])
    assert [r["status"] for r in records] == ["PASS"] * 2 * len(shapes), [(r["M"], r["N"], r["K"], r.get("reason")) for r in records]


def test_splitk128x256x8rs_sums_slices_on_each_path_and_repeats():
    """splitk128x256x8rs, launched cooperatively where it splits: S = 64 (256x256x32768: slices of 128
    float4s, half the threads idle), 39 (100x30x20000: slices of unequal length, most of the tile
    past M and N), 16, 4 and 2; no split (4096^3: 512 blocks, a plain launch; 2048^3: 128 blocks);
    scalar B and C (N % 4 != 0); each twice in one process: the last split out of each tile reset
    both its counters."""
    spec = BY_NAME["splitk128x256x8rs"]
    shapes = [(256, 256, 32768), (100, 30, 20000), (512, 512, 16384), (1024, 1024, 8192), (8192, 256, 2048),
              (4096, 4096, 4096), (2048, 2048, 2048), (257, 129, 8197), (512, 511, 16380)]
    launches = [spec.launch(*shape) for shape in shapes]
    assert [la.grid[2] for la in launches] == [64, 39, 16, 4, 2, 1, 1, 16, 16]
    assert [la.cooperative for la in launches] == [la.grid[2] > 1 for la in launches]
    records = run(spec, [s for s in shapes for _ in range(2)])
    assert [r["status"] for r in records] == ["PASS"] * 2 * len(shapes), [(r["M"], r["N"], r["K"], r.get("reason")) for r in records]


def test_splitk64x64x8rs_sums_slices_of_every_length_and_repeats_bit_for_bit():
    """splitk64x64x8rs, launched cooperatively where it splits: S = 198 (128x128x65536: slices of 5
    or 6 float4s, 8 lanes sharing each), 78 (100x30x20000: one tile, mostly past M and N), 49, 16,
    12 and 3 (1000^3: slices of 341 float4s, one lane each); no split (4096^3: 4096 blocks, a plain
    launch); scalar B and C (N % 4 != 0); each twice in one process (every counter reset). Then the
    same inputs give the same bits."""
    spec = BY_NAME["splitk64x64x8rs"]
    shapes = [(128, 128, 65536), (100, 30, 20000), (256, 256, 32768), (1, 1, 4097), (512, 511, 16380),
              (1000, 1000, 1000), (4096, 4096, 4096), (257, 129, 8197)]
    launches = [spec.launch(*shape) for shape in shapes]
    assert [la.grid[2] for la in launches] == [198, 78, 49, 16, 12, 3, 1, 32]
    assert [la.cooperative for la in launches] == [la.grid[2] > 1 for la in launches]
    records = run(spec, [s for s in shapes for _ in range(2)])
    assert [r["status"] for r in records] == ["PASS"] * 2 * len(shapes), [(r["M"], r["N"], r["K"], r.get("reason")) for r in records]
    _same_bits_every_launch(spec, [(128, 128, 65536), (257, 129, 8197)])


def _same_bits_every_launch(spec, shapes):
    """Three launches on the same inputs give the same bits: a reduce-scatter's sum order does not
    depend on which split arrived first."""
    from profiler.measure.device import import_cupy
    from profiler.measure.launch import Gemm, KernelRunner

    cp = import_cupy()
    runner = KernelRunner(cp, spec, str(build_kernel(spec, "sm_90").cubin))
    for M, N, K in shapes:
        g = Gemm.random(cp, M, N, K, seed=5)
        c0 = g.C.copy()
        outs = []
        for _ in range(3):
            g.C[...] = c0
            runner(g, 1.5, 0.5)
            cp.cuda.runtime.deviceSynchronize()
            outs.append(g.C.copy())
        assert all(bool((o == outs[0]).all()) for o in outs[1:]), (spec.name, M, N, K)


# The tall tiles' shapes: tall-skinny C (16384x128x4096, 32768x64x1024, and one short of each
# dimension: every tile on an edge path, scalar B and C), K-large (S = 64 and 39), no split.
TALL = [(16384, 128, 4096), (32768, 64, 1024), (16383, 127, 4095), (256, 256, 32768), (100, 30, 20000),
        (8192, 256, 2048), (4096, 4096, 4096), (257, 129, 8197), (512, 511, 16380)]


@pytest.mark.parametrize(("name", "splits"), [("splitk256x128x8rs", [2, 1, 2, 64, 39, 2, 1, 16, 16]),
                                              ("splitk256x64x8rs", [2, 2, 2, 64, 39, 2, 1, 16, 16])])
def test_tall_tiles_sum_slices_on_each_path_and_repeat_bit_for_bit(name, splits):
    """splitk256x128x8rs and splitk256x64x8rs (two blocks an SM, so up to 264 blocks launched
    cooperatively) at their split counts, twice each in one process (every counter reset), then
    the same bits from three launches."""
    spec = BY_NAME[name]
    launches = [spec.launch(*shape) for shape in TALL]
    assert [la.grid[2] for la in launches] == splits
    assert [la.cooperative for la in launches] == [z > 1 for z in splits]
    records = run(spec, [s for s in TALL for _ in range(2)])
    assert [r["status"] for r in records] == ["PASS"] * 2 * len(TALL), [(r["M"], r["N"], r["K"], r.get("reason")) for r in records]
    _same_bits_every_launch(spec, [(16384, 128, 4096), (257, 129, 8197)])


EXPERIMENTS = {s.name: s for s in load_manifest(KERNELS_DIR / "experiments" / "experiments.toml")}
# the rungs splitk32x32x8t4 and splitk32x64x8t8 (8x4 results per thread) and the t4 experiments:
# other tiles, split policies and results per thread on kernels/t4_tile.cuh
T4_TILES = [BY_NAME["splitk32x32x8t4"], BY_NAME["splitk32x64x8t8"]] + [
    EXPERIMENTS[n] for n in ("splitk64x32x8t4", "splitk64x64x8t4deep", "splitk64x64x8t8")]


@pytest.mark.parametrize("spec", T4_TILES, ids=lambda s: s.name)
def test_t4_tiles_pass_ragged_and_split_shapes(spec):
    """splitk32x32x8t4, splitk32x64x8t8 and the t4 experiments (other tiles, split policies and
    results per thread on kernels/t4_tile.cuh) are held to splitk64x64x8t4's shapes, each split
    shape twice."""
    assert not spec.contract
    shapes = RAGGED + [s for s in SPLIT for _ in range(2)]
    records = run(spec, shapes)
    assert [r["status"] for r in records] == ["PASS"] * len(shapes), [(r["M"], r["N"], r["K"], r.get("reason")) for r in records]


# The rungs whose splits are summed in a tree (kernels/fold.cuh), at split counts of their own grid
# and others forced into it.
TREE_SPLITS = [
    ("splitk64x64x8t4", "7", "more splits than k tiles at (100, 100, 20): empty splits still count themselves in"),
    ("splitk64x64x8t4", "20", "groups of 8, 8 and 4 splits, some empty at (129, 130, 131)"),
    ("splitk64x64x8t4", "300", "38 groups at small shapes; does not fit the workspace at 1024x1024: split 0 does it all"),
    ("splitk128x256x8", "7", "more splits than k tiles at (100, 100, 20): empty splits still count themselves in"),
    ("splitk128x256x8", "50", "groups of 8, the last of 2, some empty at (129, 130, 131)"),
    ("splitk128x256x8", "300", "does not fit the workspace at 1024x1024: split 0 does it all"),
]


@pytest.mark.parametrize("name,z,why", TREE_SPLITS, ids=[f"{n}-z{z}" for n, z, _ in TREE_SPLITS])
def test_tree_split_with_other_split_counts(name, z, why):
    base = BY_NAME[name]
    spec = dataclasses.replace(base, name=f"{name}-z{z}", grid=(*base.grid[:2], z))
    shapes = [(100, 100, 20), (1024, 1024, 1024), (129, 130, 131), (1, 1, 1), (65, 67, 4100)]
    records = run(spec, shapes)
    assert [r["status"] for r in records] == ["PASS"] * len(shapes), (why, [r.get("reason") for r in records])


@pytest.mark.parametrize("z,why", [("7", "more splits than k tiles: empty splits still count themselves in"),
                                   ("9", "does not fit the workspace at 1024x1024: split 0 does it all")])
def test_split_k_with_other_split_counts(z, why):
    base = BY_NAME["splitk128x128x8"]
    spec = dataclasses.replace(base, name=f"splitk-z{z}", grid=(*base.grid[:2], z))
    shapes = [(100, 100, 20), (1024, 1024, 1024), (129, 130, 131)]
    records = run(spec, shapes)
    assert [r["status"] for r in records] == ["PASS"] * len(shapes), (why, [r.get("reason") for r in records])


@pytest.mark.parametrize("spec", NEW, ids=lambda s: s.name)
def test_nonfinite_rows_and_columns_stay_in_their_own_results(spec):
    """Rows past M are zero-filled and columns past N clamped: Inf in A's last row and B's last
    column reaches only C's last row and last column."""
    from profiler.measure.device import import_cupy
    from profiler.measure.launch import Gemm, KernelRunner

    cp = import_cupy()
    runner = KernelRunner(cp, spec, str(build_kernel(spec, "sm_90").cubin))
    for M, N, K in [(130, 131, 13), (130, 132, 13), (65, 67, 4100)]:
        g = Gemm.random(cp, M, N, K, seed=3)
        g.A[M - 1, :] = np.inf
        g.B[:, N - 1] = np.inf
        g.C.fill(np.nan)
        runner(g, 1.0, 0.0)
        cp.cuda.runtime.deviceSynchronize()
        ref = g.A[: M - 1] @ g.B[:, : N - 1]
        got = g.C[: M - 1, : N - 1]
        assert bool(cp.isfinite(got).all())
        assert float(cp.abs(got - ref).max()) <= 1e-3 * float(cp.abs(ref).max())


def test_ragged128x256x8_takes_each_of_its_paths():
    """Whole tiles only (512^3, 128x256x8), whole tiles beside edge tiles with float4 B (1000^3;
    2500^3 and K = 1028: K % 8 != 0 puts every tile on the edge path), scalar B and C (4095^3,
    N = 260 with 129 rows), and one tile smaller than the block (5x7x9)."""
    spec = BY_NAME["ragged128x256x8"]
    shapes = [(512, 512, 512), (1000, 1000, 1000), (2500, 2500, 2500), (4095, 4095, 4095), (5, 7, 9),
              (384, 768, 1028), (129, 260, 1000), (128, 256, 8)]
    records = run(spec, shapes)
    assert [r["status"] for r in records] == ["PASS"] * len(shapes), [(r["M"], r["N"], r["K"], r.get("reason")) for r in records]


STREAMK = [BY_NAME[n] for n in ("streamk128x128x8", "streamk64x64x8", "streamk64x32x8", "streamk128x256x8", "tailsk128x256x8")]
# Stream-K shapes: a partial last wave beside whole ones (1536^3, 2500^3 and 4096^2 x 512 at
# 64x64 tiles), small M*N over every block (256^3, 1023^3), K-large, twice each: the arrival
# counters of split tiles reset.
WAVES = [(1536, 1536, 1536), (2500, 2500, 2500), (4096, 4096, 512), (256, 256, 256), (1023, 1023, 1023),
         (256, 1024, 16384), (128, 128, 65536)]


@pytest.mark.parametrize("spec", STREAMK, ids=lambda s: s.name)
def test_stream_k_passes_partial_waves_and_repeats(spec):
    shapes = [s for s in WAVES for _ in range(2)]
    records = run(spec, shapes)
    assert [r["status"] for r in records] == ["PASS"] * len(shapes), [(r["M"], r["N"], r["K"], r.get("reason")) for r in records]


def test_streamk128x256x8_mixes_whole_and_shared_tiles_on_each_path():
    """streamk128x256x8 where whole tiles and shared ones meet: 3072^3 (288 tiles: 132 whole, 156
    shared; the whole-tile path), 4095^2 x 1000 (512 tiles: 264 whole; scalar B and C), 2816 x 3000 x 1028
    (264 tiles = two whole waves: no stream-K; K % 8 != 0, edge path), 2500^3 (200 tiles, all
    shared), each twice: every split tile's counter was reset."""
    spec = BY_NAME["streamk128x256x8"]
    shapes = [(3072, 3072, 3072), (4095, 4095, 1000), (2816, 3000, 1028), (2500, 2500, 2500)]
    assert [spec.launch(*shape).grid[0] for shape in shapes] == [132] * 4
    records = run(spec, [s for s in shapes for _ in range(2)])
    assert [r["status"] for r in records] == ["PASS"] * 2 * len(shapes), [(r["M"], r["N"], r["K"], r.get("reason")) for r in records]


def test_tailsk128x256x8_runs_whole_waves_beside_its_stream_k_row_on_each_path():
    """tailsk128x256x8 where whole waves and the stream-K row meet: 4096^2 x 1024 (512 tiles: 396
    whole, 116 shared; the whole-tile path), 4095^2 x 1000 (scalar B and C), 5000^2 x 1028 (800
    tiles, 8 shared over 132 blocks; K % 8 != 0, edge path), 3072 x 2816 x 64 (264 tiles = two
    whole waves: no stream-K row), each twice: every shared tile's counter was reset. Then grids of
    7 and of 600 columns (at 4096^2 x 1024, 7 x 74 blocks, 512 % 7 = 1 tile shared by 7; 600
    columns: more slots than the workspace holds, the shared tiles run whole)."""
    spec = BY_NAME["tailsk128x256x8"]
    shapes = [(4096, 4096, 1024), (4095, 4095, 1000), (5000, 5000, 1028), (3072, 2816, 64)]
    assert [spec.launch(*shape).grid[:2] for shape in shapes] == [(132, 4), (132, 4), (132, 7), (132, 2)]
    records = run(spec, [s for s in shapes for _ in range(2)])
    assert [r["status"] for r in records] == ["PASS"] * 2 * len(shapes), [(r["M"], r["N"], r["K"], r.get("reason")) for r in records]
    for cols in ("7", "600"):
        other = dataclasses.replace(spec, name=f"tailsk-g{cols}", grid=(cols, f"cdiv(cdiv(M, 128) * cdiv(N, 256), {cols})"))
        records = run(other, [(4096, 4096, 1024), (1000, 1000, 1000), (129, 257, 13)])
        assert [r["status"] for r in records] == ["PASS"] * 3, (cols, [r.get("reason") for r in records])


@pytest.mark.parametrize("grid,why", [("1", "one block walks every tile"),
                                      ("7", "blocks of unequal shares crossing many tiles"),
                                      ("5000", "more blocks than k tiles at small shapes; at 1024^3 the slots exceed "
                                               "the workspace and every tile runs whole")])
def test_stream_k_with_other_block_counts(grid, why):
    base = BY_NAME["streamk128x128x8"]
    spec = dataclasses.replace(base, name=f"streamk-g{grid}", grid=(grid,))
    shapes = [(100, 100, 20), (1024, 1024, 1024), (129, 130, 131), (1, 1, 1)]
    records = run(spec, shapes)
    assert [r["status"] for r in records] == ["PASS"] * len(shapes), (why, [r.get("reason") for r in records])
