"""The FP16 wgmma rungs' index math and dispatcher, on the CPU (kernels/wgmma_fp16.cuh).

The persistent grid's tile loop is modelled here line for line (tile_of and the stride loop over
blockIdx): every tile of any M, N is visited exactly once, for any grid size (a persistent grid of
SMS CTAs or one CTA per tile), and no CTA runs more than cdiv(tiles, grid) of them. The sources'
launch geometry and constants are read back so the model cannot drift from the manifest, and
`best-fp16` is checked to cover every shape of the suites with a kernel whose contract takes it."""

import re
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from profiler.dispatchers import load_dispatchers
from profiler.kernel_paths import KERNELS_DIR
from profiler.manifest import load_manifest
from profiler.suites import load_suite

BY_NAME = {s.name: s for s in load_manifest()}
PERSISTENT = ("wgmma_persist", "wgmma_persist128")
RUNGS = ("wgmma_ragged", *PERSISTENT)
BEST = next(d for d in load_dispatchers() if d.name == "best-fp16")


def tile_of(t: int, tiles_m: int, tiles_n: int, group: int) -> tuple[int, int]:
    """wgfp16::tile_of: tile t of the grouped raster (GROUP tile rows, column by column)."""
    per_group = group * tiles_n
    first = t // per_group * group
    rows = min(tiles_m - first, group)
    inside = t % per_group
    return first + inside % rows, inside // rows


def schedule(M: int, N: int, bm: int, bn: int, group: int, grid: int) -> dict[int, list[tuple[int, int]]]:
    """The tiles each CTA of the grid runs, in order (the body's `for t = blockIdx.x; ...; t += gridDim.x`)."""
    tiles_m, tiles_n = -(-M // bm), -(-N // bn)
    return {b: [tile_of(t, tiles_m, tiles_n, group) for t in range(b, tiles_m * tiles_n, grid)] for b in range(grid)}


def source_define(spec, name: str) -> int:
    return int(re.search(rf"^#define {name} (\d+)", spec.source.read_text(), re.M)[1])


def workspace_floats(spec) -> int:
    return 2 ** int(re.search(r"^#define WS_FLOATS \(1LL << (\d+)\)", spec.source.read_text(), re.M)[1])


@settings(max_examples=300, deadline=None)
@given(M=st.integers(1, 20000), N=st.integers(1, 20000), sms=st.integers(1, 200),
       name=st.sampled_from(RUNGS))
def test_every_tile_is_visited_exactly_once(M, N, sms, name):
    spec = BY_NAME[name]
    bn, group = source_define(spec, "BN"), source_define(spec, "GROUP")
    grid = min(spec.launch(M, N, 64).grid[0], sms) if name in PERSISTENT else spec.launch(M, N, 64).grid[0]
    tiles_m, tiles_n = -(-M // 128), -(-N // bn)
    runs = schedule(M, N, 128, bn, group, grid)
    visits = Counter(tile for tiles in runs.values() for tile in tiles)
    assert set(visits) == {(m, n) for m in range(tiles_m) for n in range(tiles_n)}
    assert set(visits.values()) == {1}
    assert max(len(t) for t in runs.values()) == -(-tiles_m * tiles_n // grid)


@given(tiles_m=st.integers(1, 100), tiles_n=st.integers(1, 100), group=st.integers(1, 20))
def test_raster_walks_a_group_column_by_column(tiles_m, tiles_n, group):
    order = [tile_of(t, tiles_m, tiles_n, group) for t in range(tiles_m * tiles_n)]
    for (m0, n0), (m1, n1) in zip(order, order[1:]):
        same_group = m0 // group == m1 // group
        # inside a group: down the rows of a column, then the next column; groups one after another
        assert (same_group and ((n1 == n0 and m1 == m0 + 1) or (n1 == n0 + 1 and m1 == m1 // group * group))) or \
               (not same_group and m1 == m0 // group * group + group and n1 == 0)


def test_a_broken_raster_is_caught():
    """The model's check has teeth: a raster that ignores the short last group leaves C."""
    def bad(t, tiles_m, tiles_n, group):
        per_group = group * tiles_n
        return t // per_group * group + t % per_group % group, t % per_group // group
    every = {(m, n) for m in range(5) for n in range(3)}
    assert {bad(t, 5, 3, 4) for t in range(15)} != every
    assert {tile_of(t, 5, 3, 4) for t in range(15)} == every


@pytest.mark.parametrize("name", RUNGS)
def test_persistent_grids_and_contracts(name):
    spec = BY_NAME[name]
    bn = source_define(spec, "BN")
    assert spec.contract == {"N": 8, "K": 8}  # TMA: rows of A and B are multiples of 16 bytes
    assert spec.unsupported_reason(4095, 4096, 4096) is None and spec.unsupported_reason(1, 8, 8) is None
    assert spec.unsupported_reason(4096, 4095, 4096) and spec.unsupported_reason(4096, 4096, 4092)
    tiles = -(-8192 // 128) * -(-8192 // bn)
    assert spec.launch(8192, 8192, 8192).grid[0] == (132 if name in PERSISTENT else tiles)
    assert spec.launch(129, 9, 8).grid[0] == 2 * 1
    assert BY_NAME["wgmma_splitk128"].contract == spec.contract


def test_fallback_takes_every_shape():
    spec = BY_NAME["wmma_ragged"]
    assert not spec.contract and spec.launch(1023, 4095, 7).grid[:2] == (32, 8)


def split_ranges(k_tiles: int, splits: int) -> list[range]:
    """The k tiles of split j (the SPLIT body): [j kTiles / S, (j + 1) kTiles / S)."""
    return [range(j * k_tiles // splits, (j + 1) * k_tiles // splits) for j in range(splits)]


@given(M=st.integers(1, 5000), N=st.integers(1, 5000).map(lambda n: 8 * n), K=st.integers(1, 20000).map(lambda k: 8 * k))
def test_split_k_partitions_k_and_fits_the_workspace(M, N, K):
    spec = BY_NAME["wgmma_splitk128"]
    tiles = -(-M // 128) * -(-N // 128)
    grid = spec.launch(M, N, K).grid[0]
    splits = grid // tiles
    assert grid == tiles * splits and 1 <= splits <= 32
    k_tiles = -(-K // 64)
    covered = [k for r in split_ranges(k_tiles, splits) for k in r]
    assert covered == list(range(k_tiles))
    if splits > 1:  # the body's own fallback to S = 1 never triggers for the manifest's grid
        assert tiles * splits * 128 * 128 <= workspace_floats(spec) and tiles <= source_define(spec, "MAX_TILES")
        assert grid <= 132 and min(len(r) for r in split_ranges(k_tiles, splits)) >= 16


def test_split_k_ranges_of_a_wrong_formula_are_caught():
    assert [k for r in split_ranges(10, 3) for k in r] == list(range(10))
    assert [k for j in range(3) for k in range(j * (10 // 3), (j + 1) * (10 // 3))] != list(range(10))


@pytest.mark.parametrize("suite", ["default", "quick"])
def test_best_fp16_covers_every_suite_shape(suite):
    for M, N, K in load_suite(suite):
        spec = BEST.choose(M, N, K, BY_NAME)
        assert spec is not None and spec.tier == "fp16" and spec.unsupported_reason(M, N, K) is None, (M, N, K)


@pytest.mark.parametrize("shape,kernel", [
    ((4096, 4096, 4096), "wgmma_persist"),      # 512 wide tiles: 3.9 waves; 1024 narrow: 7.8
    ((8192, 8192, 8192), "wgmma_persist"),
    ((2048, 2048, 2048), "wgmma_persist"),      # 128 wide tiles: one full wave
    ((3000, 3000, 3000), "wgmma_persist128"),   # 288 wide tiles: 3 waves, the last 18% full; 576 narrow: 5
    ((1024, 1024, 1024), "wgmma_persist128"),   # 32 wide tiles leave 100 SMs idle
    ((32768, 64, 1024), "wgmma_persist128"),    # N = 64: a 256-wide tile is 3/4 empty
    ((4095, 4095, 4095), "wmma_ragged"),        # odd leading dimensions: no TMA
    ((2500, 2500, 2500), "wmma_ragged"),        # 2500 % 8 = 4
    ((1000, 1000, 1000), "wgmma_persist128"),   # 1000 % 8 = 0: ragged tiles, TMA still fine
    ((1024, 1024, 8192), "wgmma_splitk128"),    # 64 narrow tiles, long K: 2 splits
    ((128, 128, 65536), "wgmma_splitk128"),     # one tile: 32 splits
    ((512, 4096, 4096), "wgmma_persist128"),    # 128 narrow tiles already fill the SMs
])
def test_best_fp16_rules_follow_the_wave_arithmetic(shape, kernel):
    assert BEST.choose(*shape, BY_NAME).name == kernel


def test_rung_sources_include_the_shared_body():
    assert "wgfp16::gemm<BN, STAGES, GROUP, true>" in BY_NAME["wgmma_splitk128"].source.read_text()
    for name in RUNGS:
        text = BY_NAME[name].source.read_text()
        assert '#include "wgmma_fp16.cuh"' in text and "wgfp16::gemm<BN, STAGES, GROUP>" in text
        assert "wgmma.mma_async" not in text  # the instruction lives in the header only
    assert (KERNELS_DIR / "wgmma_fp16.cuh").read_text().count('#include "hopper.cuh"') == 1
