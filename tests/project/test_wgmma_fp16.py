"""The FP16 wgmma rungs' index math and dispatcher, on the CPU (kernels/wgmma_fp16.cuh).

The persistent grid's tile loop is modelled here line for line (tile_of and the stride loop over
blockIdx): every tile of any M, N is visited exactly once, for any grid size (a persistent grid of
SMS CTAs or one CTA per tile), and no CTA runs more than cdiv(tiles, grid) of them. The sources'
launch geometry and constants are read back so the model cannot drift from the manifest, and
`best-fp16` is checked to cover every shape of the suites with a kernel whose contract takes it.
The work schedules (plan, item_of: whole tiles, split-K, the last wave split along K) are modelled
the same way: every (tile, k tile) pair of any shape is computed exactly once, for any grid."""

import re
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from profiler.catalogue.dispatchers import load_dispatchers
from profiler.catalogue.kernel_paths import KERNELS_DIR
from profiler.catalogue.manifest import load_manifest
from profiler.catalogue.suites import load_suite

BY_NAME = {s.name: s for s in load_manifest()}
TMASTORES = ("wgmma_tmastore", "wgmma_tmastore_deep")
PERSISTENT = ("wgmma_persist", "wgmma_persist128", *TMASTORES)
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


TAIL_RUNGS = ("wgmma_tailsplit", "wgmma_tailsplit128", "wgmma_unaligned128")
HEADER = (KERNELS_DIR / "wgmma_fp16.cuh").read_text()


def header_constant(name: str) -> int:
    return int(re.search(rf"constexpr int {name} = (\d+);", HEADER)[1])


TAIL_MIN_K, TAIL_MAX_SPLIT = header_constant("TAIL_MIN_K"), header_constant("TAIL_MAX_SPLIT")


def plan(sched: str, n_tiles: int, k_tiles: int, grid: int, bm: int, bn: int, ws_floats: int, max_tiles: int):
    """wgfp16::plan: (F, S, nItems): items [0, F) whole tiles, then S splits of each tile left."""
    F, S = 0, 1
    if sched == "SPLIT":
        S = max(1, grid // n_tiles)
    elif sched == "TAIL":
        R = n_tiles % grid
        F = n_tiles - R
        if R > 0:
            S = max(1, min(grid // R, k_tiles // TAIL_MIN_K, TAIL_MAX_SPLIT))
    if S > 1 and ((n_tiles - F) * S * bm * bn > ws_floats or n_tiles - F > max_tiles):
        S = 1
    if S == 1:
        F = n_tiles
    return F, S, F + (n_tiles - F) * S


def item_of(w: int, F: int, S: int, k_tiles: int):
    """wgfp16::item_of: (tile, k begin, k end, split index u or -1)."""
    if w < F:
        return w, 0, k_tiles, -1
    u = w - F
    j = u % S
    return F + u // S, j * k_tiles // S, (j + 1) * k_tiles // S, u


def run_plan(n_tiles, k_tiles, grid, F, S, n_items, item=item_of):
    """Per CTA, its items in order (the body's `for w = blockIdx.x; ...; w += gridDim.x`)."""
    return {b: [item(w, F, S, k_tiles) for w in range(b, n_items, grid)] for b in range(grid)}


def check_cover(n_tiles, k_tiles, runs):
    """Every (tile, k tile) exactly once: each tile's k ranges, sorted, tile [0, k_tiles) end to end
    (ranges, not pairs, so that large shapes stay cheap); each split index used once."""
    ranges: dict[int, list[tuple[int, int]]] = {}
    for items in runs.values():
        for t, k0, k1, _ in items:
            ranges.setdefault(t, []).append((k0, k1))
    assert set(ranges) == set(range(n_tiles))
    for t, rs in ranges.items():
        end = 0
        for k0, k1 in sorted(rs):
            assert k0 == end and k1 >= k0, (t, sorted(rs))
            end = k1
        assert end == k_tiles, (t, sorted(rs))
    splits = [u for items in runs.values() for *_, u in items if u >= 0]
    assert len(splits) == len(set(splits))


@settings(max_examples=300, deadline=None)
@given(M=st.integers(1, 20000), N=st.integers(1, 20000), K=st.integers(1, 70000), sms=st.integers(1, 200),
       name=st.sampled_from(TAIL_RUNGS + ("wgmma_splitk128",)))
def test_split_schedules_cover_every_tile_and_k_tile_once(M, N, K, sms, name):
    """For the manifest's grid and for a grid of any SM count (the body reads gridDim.x only)."""
    spec = BY_NAME[name]
    bn = source_define(spec, "BN")
    n_tiles, k_tiles = -(-M // 128) * -(-N // bn), -(-K // 64)
    ws, max_tiles = workspace_floats(spec), source_define(spec, "MAX_TILES")
    sched = "SPLIT" if name == "wgmma_splitk128" else "TAIL"
    for grid in {spec.launch(M, N, K).grid[0], sms}:
        F, S, n_items = plan(sched, n_tiles, k_tiles, grid, 128, bn, ws, max_tiles)
        runs = run_plan(n_tiles, k_tiles, grid, F, S, n_items)
        check_cover(n_tiles, k_tiles, runs)
        if S > 1:  # partials and counters inside the workspace
            assert (n_items - F) * 128 * bn <= ws and (n_tiles - F) <= max_tiles
        if sched == "TAIL":
            assert all(sum(u >= 0 for *_, u in items) <= 1 for items in runs.values())  # one split a CTA
            if S > 1:
                assert F % grid == 0  # the whole tiles are full waves
                assert n_items - F <= grid and min(k1 - k0 for items in runs.values() for _, k0, k1, u in items if u >= 0) >= TAIL_MIN_K
                # the last wave costs 1/S of a tile (and no CTA more): the point of the split
                assert max(sum(k1 - k0 for _, k0, k1, _ in items) for items in runs.values()) <= F // grid * k_tiles + -(-k_tiles // S)


@pytest.mark.parametrize("shape,bn,splits", [((3000, 3000, 3000), 256, 5), ((1024, 1024, 1024), 128, 2),
                                             ((128, 128, 65536), 128, 16), ((4096, 4096, 4096), 256, 1),
                                             ((512, 512, 512), 128, 2)])
def test_tail_split_of_known_shapes(shape, bn, splits):
    """3000^3 on 128x256 tiles: 288 = 2 waves of 132 + 24 tiles, cut 5 ways (120 CTAs busy)."""
    name = "wgmma_tailsplit" if bn == 256 else "wgmma_tailsplit128"
    spec = BY_NAME[name]
    M, N, K = shape
    n_tiles, k_tiles = -(-M // 128) * -(-N // bn), -(-K // 64)
    grid = spec.launch(M, N, K).grid[0]
    assert plan("TAIL", n_tiles, k_tiles, grid, 128, bn, workspace_floats(spec), 4096)[1] == splits


def test_a_wrong_tail_split_is_caught():
    """The cover check has teeth: splits numbered without the whole tiles' offset miss the tail."""
    def bad(w, F, S, k_tiles):
        t, k0, k1, u = item_of(w, F, S, k_tiles)
        return (t - F if u >= 0 else t), k0, k1, u
    F, S, n_items = plan("TAIL", 288, 47, 132, 128, 256, 1 << 23, 4096)
    check_cover(288, 47, run_plan(288, 47, 132, F, S, n_items))
    with pytest.raises(AssertionError):
        check_cover(288, 47, run_plan(288, 47, 132, F, S, n_items, item=bad))


def pingpong_waits(n_local: int, k_tiles: int, stages: int):
    """wgfp16::pingpong_consumer: per warpgroup c, the (ring position, stage, parity) of each of its
    full-barrier waits, the stage and round computed once per tile from its first position and
    then advanced as the body does; and the order barriers' bar.arrive / bar.sync counts."""
    waits, arrives, syncs = {0: [], 1: []}, {0: 0, 1: 0}, {0: 0, 1: 0}
    for c in (0, 1):
        for i in range(c, n_local, 2):
            nxt = i + 1 < n_local
            syncs[c] += i > 0
            pos = i * k_tiles
            s, rnd = pos % stages, pos // stages
            for kt in range(k_tiles):
                waits[c].append((pos + kt, s, rnd & 1))
                arrives[1 - c] += kt == k_tiles - 1 and nxt
                s += 1
                if s == stages:
                    s, rnd = 0, rnd + 1
    return waits, arrives, syncs


@settings(max_examples=300, deadline=None)
@given(M=st.integers(1, 20000), N=st.integers(1, 20000), K=st.integers(1, 20000), sms=st.integers(1, 200), data=st.data())
def test_pingpong_ring_positions_and_order_barriers(M, N, K, sms, data):
    """Each ring position a CTA loads is waited on once, by the warpgroup whose tile it holds, at
    the stage and phase the producer's sequential ring gives it; every bar.arrive of one
    warpgroup meets a bar.sync of the other (a missing one hangs, an extra one is left over)."""
    spec = BY_NAME["wgmma_pingpong"]
    n_tiles, k_tiles = -(-M // 128) * -(-N // 128), -(-K // 64)
    grid = min(spec.launch(M, N, K).grid[0], sms)
    block = data.draw(st.integers(0, grid - 1))
    n_local = len(range(block, n_tiles, grid))
    stages = source_define(spec, "STAGES")
    waits, arrives, syncs = pingpong_waits(n_local, k_tiles, stages)
    every = sorted(w for c in (0, 1) for w in waits[c])
    assert [w[0] for w in every] == list(range(n_local * k_tiles))
    assert all(s == q % stages and parity == q // stages % 2 for q, s, parity in every)
    assert all(q // k_tiles % 2 == c for c in (0, 1) for q, _, _ in waits[c])
    assert arrives == syncs


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


def test_best_fp16_sends_every_shape_of_its_sweep_within_its_tolerance_of_the_fastest():
    """best-fp16's rules come from a sweep of the FP16 rungs over the default suite on an H100:
    at every shape they choose a kernel within the tolerance it was derived with of the fastest
    measured there, and the shapes TMA cannot take (odd leading dimensions) reach the rules of the
    contract-free staging rungs, behind the last rule of the TMA rungs (which takes any aligned
    shape), not a size rule an aligned shape could meet first."""
    from profiler.analyze.dispatch import predicted, share_of_best
    from profiler.runs.rundir import REPO_ROOT, RunDir

    run = RunDir(REPO_ROOT / BEST.derived_from)
    share = share_of_best(run.read_table("bench"), BY_NAME, "fp16")
    chosen = predicted(share, BEST.rules, BY_NAME, run.meta()["environment"]["sm_count"]).set_index(["M", "N", "K"])
    assert len(chosen) == len(load_suite("default")) and (chosen["share_of_best"] >= 1 - BEST.tolerance).all(), chosen.to_string()
    last_bound = max(i for i, r in enumerate(BEST.rules, start=1) if r.when == 1 and BY_NAME[r.kernel].contract)
    for shape in ((4095, 4095, 4095), (2500, 2500, 2500), (1023, 1023, 1023)):
        assert chosen.at[shape, "rule"] > last_bound and not BY_NAME[chosen.at[shape, "kernel"]].contract, chosen.loc[[shape]]


def test_rung_sources_include_the_shared_body():
    assert "wgfp16::gemm<BN, STAGES, GROUP, wgfp16::SPLIT>" in BY_NAME["wgmma_splitk128"].source.read_text()
    for name in TAIL_RUNGS:
        assert "wgfp16::gemm<BN, STAGES, GROUP, wgfp16::TAIL" in BY_NAME[name].source.read_text()
    assert "wgfp16::gemm<BN, STAGES, GROUP, wgfp16::PINGPONG>" in BY_NAME["wgmma_pingpong"].source.read_text()
    for name in RUNGS:
        text = BY_NAME[name].source.read_text()
        body = "wgfp16::gemm<BN, STAGES, GROUP, wgfp16::WHOLE, wgfp16::TMA_FEED, TMA_BUFS>" if name in TMASTORES else "wgfp16::gemm<BN, STAGES, GROUP>"
        assert '#include "wgmma_fp16.cuh"' in text and body in text
        assert "wgmma.mma_async" not in text  # the instruction lives in the header only
    for name in ("wgmma_staged", "wgmma_staged128"):  # the copy and the barrier first, then TMA from the copies
        text = BY_NAME[name].source.read_text()
        assert "staged::stage<STAGING_PITCH_BYTES / 2>(M, N, K, A, B, As, Bs, &g_barrier);\n    wgfp16::gemm<BN, STAGES, GROUP, wgfp16::WHOLE, wgfp16::STAGED_FEED>" in text
    for spec in (s for s in BY_NAME.values() if s.staging):  # the copies' pitch, as the launcher pads them
        assert f"#define STAGING_PITCH_BYTES {spec.staging_pitch_bytes} " in spec.source.read_text(), spec.name
    text = BY_NAME["wgmma_stagedstore"].source.read_text()  # the same, then the TMA-store body over the copies
    assert ("staged::stage<STAGING_PITCH_BYTES / 2>(M, N, K, A, B, As, Bs, &g_barrier);\n    wgfp16::gemm<BN, STAGES, GROUP, "
            "wgfp16::WHOLE, wgfp16::TMA_FEED, TMA_BUFS>") in text
    text = BY_NAME["wgmma_stagedsplit128"].source.read_text()  # the same, then split K over the copies
    assert "staged::stage<STAGING_PITCH_BYTES / 2>(M, N, K, A, B, As, Bs, &g_barrier);\n    wgfp16::gemm<BN, STAGES, GROUP, wgfp16::SPLIT, wgfp16::STAGED_FEED>" in text
    assert (KERNELS_DIR / "wgmma_fp16.cuh").read_text().count('#include "hopper.cuh"') == 1


def swizzle128(offset: int) -> int:
    """Where TMA's 128B swizzle puts byte `offset` of a 1024-byte-aligned box: 16-byte chunk bits
    [4:6] XOR the row-in-atom bits [7:9]."""
    return offset ^ ((offset >> 7) & 7) << 4


def fill_stage(bn: int):
    """wgfp16::fill_stage, line for line: {shared offset: (operand, row, col)} of the 128 producer
    threads' element stores (A: row m, col k; B: row k, col n)."""
    bk, bm, a_box, b_box = 64, 128, 128 * 64 * 2, 64 * 64 * 2
    stores = []
    for tid in range(128):
        k = tid % bk
        for i in range(bm // 2):
            r = tid // bk + 2 * i
            stores.append((r * 128 + ((k // 8 ^ r % 8) << 4) + (k % 8) * 2, ("A", r, k)))
        for j in range(bn // 128):
            n = tid + 128 * j
            box, nn = n // 64, n % 64
            col = a_box + box * b_box + (nn % 8) * 2
            for i in range(bk):
                stores.append((col + i * 128 + ((nn // 8 ^ i % 8) << 4), ("B", i, n)))
    return stores


@pytest.mark.parametrize("bn", [128, 256])
def test_unaligned_fill_writes_each_element_where_tma_would(bn):
    """The element-loading producer (ANY) fills every 2-byte slot of a stage once, each element at
    the address TMA's 128B swizzle gives it: A as one 64(k) x 128(m) box, B as bn/64 boxes of
    64(n) x 64(k), so the consumers' wgmma descriptors read the same layout either way."""
    stores = fill_stage(bn)
    stage = 128 * 64 * 2 + bn // 64 * 64 * 64 * 2
    assert sorted(at for at, _ in stores) == list(range(0, stage, 2))
    a_box = 128 * 64 * 2
    for at, (operand, row, col) in stores:
        if operand == "A":  # TMA box [64, 128]: rows of 64 k, one per m
            assert at == swizzle128(row * 128 + col * 2)
        else:               # TMA box [64, 64] per 64 columns of n: rows of 64 n, one per k
            assert at == a_box + col // 64 * 8192 + swizzle128(row * 128 + col % 64 * 2)
    source = (KERNELS_DIR / "wgmma_fp16.cuh").read_text()
    assert "r * 128 + ((k / 8 ^ r % 8) << 4) + (k % 8) * 2" in source
    assert "col + i * 128 + ((nn / 8 ^ i % 8) << 4)" in source and "sa + A_BOX + box * B_BOX + (nn % 8) * 2" in source


# ---- wgmma_tmastore: the epilogue through staging chunks and TMA stores (TMASTORE) -------------

TMASTORE = BY_NAME["wgmma_tmastore"]
HEADER = (KERNELS_DIR / "wgmma_fp16.cuh").read_text()
C_COLS = int(re.search(r"constexpr int C_COLS = (\d+);", HEADER)[1])


def staged_pair(r: int, p: int) -> int:
    """wgfp16::staged_pair: byte offset of the float pair (row r, columns 2p, 2p + 1) of a chunk."""
    return r * 128 + (((p >> 1) ^ (r & 7)) << 4) + (p & 1) * 8


def chunk_writes(bn: int) -> list[tuple[int, int, int, tuple[int, int]]]:
    """store_tile_tma's shared-memory writes, line for line: (chunk j, warp, offset, (row, column)
    of the warpgroup's 64 x bn results) per float pair, the column taken from the accumulator
    layout (d[4g + {0,1}]: row lane / 4 of the warp's 16, columns 8g + 2 (lane % 4) + {0,1};
    d[4g + {2,3}]: 8 rows further)."""
    writes = []
    for tid in range(128):
        warp, lane = tid // 32, tid % 32
        r = warp * 16 + lane // 4
        for j in range(bn // C_COLS):
            for jl in range(C_COLS // 8):
                q = 4 * (C_COLS // 8 * j + jl)
                p = 4 * jl + lane % 4
                g = q // 4                  # the accumulator's column group of d[q]
                for row, dq in ((r, q), (r + 8, q + 2)):
                    writes.append((j, warp, staged_pair(row, p), (row, 8 * g + 2 * (lane % 4)), jl, lane, dq))
    return writes


@pytest.mark.parametrize("name", TMASTORES)
def test_tmastore_manifest_declares_c_as_the_staging_chunk(name):
    """C's tensor map is FP32 with the chunk's box (C_COLS columns of one 128-byte swizzled row,
    the 64 rows of a consumer warpgroup), after A's and B's; shared memory is the ring, the
    staging buffers and the barriers, and fits an H100's 227 KB."""
    spec = BY_NAME[name]
    assert [tm.operand for tm in spec.tensor_maps] == ["A", "B", "C"]
    c_map = spec.tensor_maps[2]
    assert c_map.box == (C_COLS, 64) and c_map.swizzle == 128 == C_COLS * 4
    stages, bn, nbuf = (source_define(spec, k) for k in ("STAGES", "BN", "TMA_BUFS"))
    staging = 2 * nbuf * 64 * C_COLS * 4
    bars = -(-(2 * stages + 2 * nbuf) * 8 // 128) * 128
    assert spec.launch(4096, 4096, 4096).smem_bytes == stages * (128 * 64 * 2 + bn // 64 * 8192) + staging + 1024 + bars
    assert spec.launch(4096, 4096, 4096).smem_bytes <= 227 * 1024
    assert spec.predecessor in ("wgmma_persist", "wgmma_tmastore") and spec.spill_free and spec.arch == "sm_90a"


def test_staging_chunk_is_laid_out_as_tma_swizzles_c():
    """Every float of a 64 x C_COLS chunk is written once, at the address TMA's 128B swizzle gives
    C's element (row, column) when it stores the box, and each chunk j holds columns
    C_COLS j .. C_COLS (j + 1) - 1 of the warpgroup's results: the tile leaves C intact."""
    bn = source_define(TMASTORE, "BN")
    writes = chunk_writes(bn)
    for j in range(bn // C_COLS):
        mine = [(at, rc) for jj, _, at, rc, *_ in writes if jj == j]
        assert sorted(at for at, _ in mine) == list(range(0, 64 * C_COLS * 4, 8))
        for at, (row, col) in mine:
            assert C_COLS * j <= col < C_COLS * (j + 1)
            assert at == swizzle128(row * 128 + (col - C_COLS * j) * 4)
    assert sorted(rc for *_, rc, _, _, _ in writes) == [(r, c) for r in range(64) for c in range(0, bn, 2)]
    assert "r * 128 + (((p >> 1) ^ (r & 7)) << 4) + (p & 1) * 8" in HEADER


def wavefronts(addresses: list[int], width: int = 8) -> int:
    """Shared-memory wavefronts of one warp-wide access of `width` bytes a lane: the most distinct
    4-byte words any of the 32 banks is asked for (one word per bank per wavefront)."""
    words: dict[int, set[int]] = {}
    for a in addresses:
        for w in range(a // 4, (a + width) // 4):
            words.setdefault(w % 32, set()).add(w)
    return max(len(v) for v in words.values())


@pytest.mark.parametrize("swizzled", [True, False])
def test_staging_writes_are_conflict_free(swizzled):
    """Each st.shared.v2 of a warp (one jl, one of the two rows) moves 256 bytes in 2 wavefronts,
    the minimum; the unswizzled layout (the model's teeth) takes 8."""
    writes = chunk_writes(source_define(TMASTORE, "BN"))
    accesses: dict[tuple, list[int]] = {}
    for j, warp, at, (row, col), jl, lane, dq in writes:
        plain = row * 128 + (col - C_COLS * j) * 4
        accesses.setdefault((j, warp, jl, dq % 4), []).append(at if swizzled else plain)
    counts = {wavefronts(a) for a in accesses.values()}
    assert all(len(a) == 32 for a in accesses.values())
    assert counts == ({2} if swizzled else {8})


def epilogue_protocol(tiles: int, chunks: int, nbuf: int, with_c: bool, read_window: int | None = None,
                      lag: int | None = None) -> list[str]:
    """store_tile_tma and issue_c_loads, line for line, over a CTA's tiles: the elected thread's
    bulk groups (each store a group) and the nbuf buffers' load barriers. Returns the violations:
    a buffer written while a store of it may still read it, a load issued into a buffer a store
    still reads, a barrier wait whose parity is not the phase that holds this chunk's C.
    read_window (NB - 1) and lag (D) are the body's unless given."""
    read_window = nbuf - 1 if read_window is None else read_window
    lag = (1 if nbuf > 2 else 0) if lag is None else lag
    pending: list[int] = []                 # buffers of the stores not yet known to have read them
    loads: dict[int, list[tuple]] = {b: [] for b in range(nbuf)}  # per buffer: chunks loaded, in phase order
    waits = dict.fromkeys(range(nbuf), 0)
    bad = []

    def wait_read(n):
        del pending[:max(len(pending) - n, 0)]

    def load(b, chunk):
        if b in pending:
            bad.append(f"tile {t}: chunk {chunk} loaded into buffer {b} while its store may read it")
        loads[b].append((t, chunk))

    for t in range(tiles):
        if with_c:                          # issue_c_loads during the main loop
            wait_read(0)
            for b in range(nbuf):
                load(b, b)
        for j in range(chunks):
            b = j % nbuf
            if with_c:
                phase, parity = waits[b], j // nbuf & 1
                waits[b] += 1
                if parity != phase % 2 or phase >= len(loads[b]) or loads[b][phase] != (t, j):
                    bad.append(f"tile {t} chunk {j}: wait parity {parity}, phase {phase}")
            else:
                wait_read(read_window)
            if b in pending:
                bad.append(f"tile {t} chunk {j}: buffer {b} written while its store may read it")
            pending.append(b)               # the store of chunk j
            if with_c and j >= lag and j - lag + nbuf < chunks:
                wait_read(lag)
                load((j - lag) % nbuf, j - lag + nbuf)
    return bad


@pytest.mark.parametrize("name", TMASTORES)
@pytest.mark.parametrize("with_c", [False, True])
@pytest.mark.parametrize("tiles", [1, 2, 7])
def test_tmastore_protocol_never_overwrites_a_buffer_in_use(name, with_c, tiles):
    """Across tiles (the persistent loop) each staging buffer is rewritten only after the store
    that last used it has read it, every C load lands in a free buffer and arrives before its
    chunk is read, and each barrier wait's parity is the phase holding that chunk (the phases per
    buffer per tile are even). The model's teeth: waiting for one store fewer, a load of a chunk
    after its wait, an odd phase count per tile."""
    spec = BY_NAME[name]
    chunks, nbuf = source_define(spec, "BN") // C_COLS, source_define(spec, "TMA_BUFS")
    assert epilogue_protocol(tiles, chunks, nbuf, with_c) == []
    assert epilogue_protocol(tiles, chunks, nbuf, with_c=False, read_window=nbuf) != []
    if nbuf > 2:
        assert epilogue_protocol(tiles, chunks, nbuf, with_c=True, lag=0) == []  # correct, only waits longer
    assert epilogue_protocol(tiles, chunks, nbuf, with_c=True, lag=nbuf) != []  # a load issued after its chunk's wait
    assert epilogue_protocol(tiles + 1, 6, 2, with_c=True) != []  # odd phases per tile: the next tile's parity breaks
    assert "bulk_wait_read<NB - 1>();" in HEADER and "mbar_wait(cbar + 8u * b, j / NB & 1);" in HEADER
    assert "constexpr int D = NB > 2 ? 1 : 0;" in HEADER
