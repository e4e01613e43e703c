"""On the GPU: the FP16 tier's ragged and persistent rungs (wgmma_ragged, wgmma_persist,
wgmma_persist128, wgmma_splitk128, wgmma_tailsplit, wgmma_tailsplit128, wgmma_pingpong,
wgmma_tmastore, wgmma_tmastore_deep), the element-loading wgmma_unaligned128, the staging
wgmma_staged, wgmma_staged128, wgmma_stagedsplit128 and wgmma_stagedstore, the small-M skinny,
skinny_any, wgmma_swap64 (and its build 160 rows tall), wgmma_decode and wgmma_decode128 (each also built without its K split), the fallbacks wmma_ragged, wmma_tiny and wmma_stream and the
dispatcher best-fp16 pass on whole-tile and ragged shapes: M of one row and of a partial tile, N and K multiples of 8 that end mid-tile, K below one
k tile and ringing round the stages many times, more tiles than CTAs (each CTA of a persistent
grid runs several, the ring continuing from tile to tile), and for the any-shape rungs odd leading
dimensions. Verified by the bench (beta = 0 on NaN-poisoned C, then beta != 0). Runs on the
device machine (`make gpu-tests GPU_TESTS=tests/gpu/test_fp16.py`); skipped elsewhere."""

import pytest

from profiler.catalogue.dispatchers import load_dispatchers
from profiler.catalogue.manifest import load_manifest
from profiler.measure.bench import bench
from profiler.measure.build import build_all
from profiler.measure.jobs import BenchWork

from helpers.gpu_runs import QUICK, run

pytestmark = pytest.mark.gpu

BY_NAME = {s.name: s for s in load_manifest()}
TMA_RUNGS = [BY_NAME[n] for n in ("wgmma_ragged", "wgmma_persist", "wgmma_persist128", "wgmma_splitk128",
                                   "wgmma_tailsplit", "wgmma_tailsplit128", "wgmma_pingpong", "wgmma_tmastore",
                                   "wgmma_tmastore_deep")]
ALIGNED = [(128, 256, 64), (256, 512, 128), (1024, 1024, 1024), (2304, 512, 1024), (4096, 4096, 4096)]
# N, K multiples of 8 (TMA's 16-byte rows), everything else ragged.
RAGGED = [(1, 8, 8), (129, 136, 72), (1000, 1000, 1000), (3000, 3000, 3000), (4095, 4096, 4096),
          (777, 264, 8), (130, 2056, 4104), (32768, 64, 1024), (128, 16384, 520), (200, 40, 16384)]
# Few tiles, long K (split-K: S = 2 .. 32, K ending mid-tile, unequal splits).
SPLIT = [(1024, 1024, 8192), (128, 128, 65536), (256, 256, 32768), (200, 136, 20008), (1, 8, 4104), (512, 512, 16384)]
# The last wave split along K (tailsplit: 3000^3 = 2 waves + 24 tiles cut 5 ways; tailsplit128:
# 1024^3 = 64 tiles cut 2 ways, one tile cut 16 ways, a tail of 1 tile after a full wave).
TAIL = [(3000, 3000, 3000), (1024, 1024, 1024), (128, 128, 65536), (512, 512, 512), (2049, 16384, 1000),
        (16896 + 1, 128, 2048), (1000, 1000, 1000)]
# Any shape at all.
ODD = [(1, 1, 1), (3, 5, 7), (1023, 1023, 1023), (2500, 2500, 2500), (129, 257, 67), (65, 4095, 9)]


@pytest.mark.parametrize("spec", TMA_RUNGS, ids=lambda s: s.name)
def test_tma_rung_passes_aligned_and_ragged_shapes(spec):
    records = run(spec, ALIGNED + RAGGED)
    bad = [(r["M"], r["N"], r["K"], r["status"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == len(ALIGNED + RAGGED)


@pytest.mark.parametrize("spec", TMA_RUNGS, ids=lambda s: s.name)
def test_tma_rung_skips_rows_tma_cannot_describe(spec):
    assert [r["status"] for r in run(spec, [(128, 255, 64), (128, 256, 63)])] == ["SKIP", "SKIP"]


def test_persistent_rung_repeats():
    """The same shapes twice in one process: the mbarrier ring starts afresh every launch."""
    shapes = [(3000, 3000, 3000), (3000, 3000, 3000), (1000, 1000, 1000), (1000, 1000, 1000)]
    for spec in TMA_RUNGS[1:]:
        assert [r["status"] for r in run(spec, shapes)] == ["PASS"] * 4


def test_split_k_passes_many_splits_and_repeats():
    """Split-K really splits here, and each shape twice still passes: the last split of every
    tile left its arrival counter at zero."""
    spec = BY_NAME["wgmma_splitk128"]
    assert spec.launch(128, 128, 65536).grid[0] == 32 and spec.launch(1024, 1024, 8192).grid[0] == 128
    records = run(spec, [s for s in SPLIT for _ in range(2)])
    bad = [(r["M"], r["N"], r["K"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == 2 * len(SPLIT)


@pytest.mark.parametrize("name", ["wmma_ragged", "wmma_tiny", "wmma_tinysplit", "wmma_stream", "rowdot"])
def test_any_shape_rung_passes_every_kind_of_shape(name):
    records = run(BY_NAME[name], ODD + RAGGED[:4] + ALIGNED[:3] + [(33, 31, 1)])
    bad = [(r["M"], r["N"], r["K"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad


def test_tiny_split_rung_splits_k_over_few_tiles_and_repeats():
    """wmma_tinysplit: chunks of 96 to 320 columns, the last one short (5x3x130: 96 and 34), splits
    past the end of K (33x31x2049: 16 of 160, the last three empty), every tile's counter back at
    zero (each shape twice)."""
    spec = BY_NAME["wmma_tinysplit"]
    assert spec.launch(193, 38, 1256).grid == (2, 7, 10) and spec.launch(1023, 1023, 1023).grid[2] == 1
    shapes = [(193, 38, 1256), (29, 132, 682), (62, 477, 812), (817, 70, 972), (1, 1, 5000), (33, 31, 2049),
              (5, 3, 130)]
    records = run(spec, [s for s in shapes for _ in range(2)])
    bad = [(r["M"], r["N"], r["K"], r["status"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == 2 * len(shapes)


def test_rowdot_splits_k_over_few_row_blocks_and_repeats():
    """rowdot: K split 8 ways over few row blocks (1865x1x38686: 59 blocks), splits past the end of
    K (200x1x32769: 64 of 544 columns, the last three empty), every column group width (1, 2, 3-4),
    two groups (1000x5x3001, 4099x8x777) and three (300x11x2501), rows of any pitch, every block's
    counter back at zero (each shape twice)."""
    spec = BY_NAME["rowdot"]
    assert spec.launch(1865, 1, 38686).grid == (1, 59, 8) and spec.launch(200, 1, 32769).grid == (1, 7, 64)
    assert spec.launch(23326, 1, 19157).grid[2] == 1
    shapes = [(1865, 1, 38686), (200, 1, 32769), (33, 3, 513), (257, 2, 4097), (1000, 5, 3001), (4099, 8, 777),
              (300, 11, 2501), (1, 1, 5000), (70, 7, 1)]
    records = run(spec, [s for s in shapes for _ in range(2)])
    bad = [(r["M"], r["N"], r["K"], r["status"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == 2 * len(shapes)


def test_best_fp16_runs_what_its_rules_choose():
    best = next(d for d in load_dispatchers() if d.name == "best-fp16")
    needed = list({r.kernel: BY_NAME[r.kernel] for r in best.ordered}.values())
    cubins = {b.spec.name: str(b.cubin) for b in build_all(needed, "sm_90a")}
    # derived rules, then each `ahead` rule: decode (wgmma_decode at M 1-64 where its clusters fill
    # 116-132 SMs, wgmma_decode128 likewise at M 65-128 and K <= 8192, wgmma_decode64x128 and
    # wgmma_decode128x128 at M 33-64 and 65-128 where their 128-column clusters do (N of about
    # 8192), wgmma_decode_fullk at M 33-64 where its 64-column tiles fill 116-132 SMs and K <= 8192
    # (none left: the 128-column clusters take them first), wgmma_decode80 and
    # wgmma_decode128x80 at M 17-64 and 65-128 where their 80-column clusters do, wgmma_swap64 at
    # M 33-128 with a long B, skinny below and beside them; wgmma_decode128_fullk at M 129-256 where its
    # 128x64 tiles fill 116-132 SMs and K <= 8192; wgmma_swap160 at M 129-160, and 257-320 with
    # K > 8192, where its tiles fit one wave), small products past 128 rows (wgmma_swap160 for N <= 1024
    # and K >= 2048 with a quarter of the SMs' tiles or fewer, split; wgmma_decode_fullk for K <= 3072
    # where its 64x64 tiles fit one wave, wgmma_decode128_fullk where its 128x64 tiles do and K <=
    # 1536: 1024^3), small products of 16-128 rows and N <= 2048 (wgmma_swap160 from 25 rows and K >=
    # 8192, wgmma_swap64 from K 1024, wgmma_decode_fullk from 33 rows and K <= 768), odd with a long K and 65-2048 rows in at most SMS tiles of 160x128 (wgmma_stagedswap160),
    # odd with at most 4 columns, K >= 256 and M > 256 (rowdot: 1865x1x38686),
    # odd with few 32x32 tiles and a K whose splits are at most 768 deep (wmma_tinysplit), K odd
    # with N <= 24, K >= 512 and M > 256 (wmma_tinysplit: 23053x7x2924), odd with 25-64 rows, N <=
    # 256 and K >= 8192 (wgmma_stagedswap160),
    # odd with few tiles and a long K (skinny_any;
    # wgmma_stagedsplit128 from 8 tiles of 128x128 and M >= 129), rows off the sectors with tiles for every SM
    # (wgmma_stagedstore: 3000^3), odd with a short K and a large C (wmma_stream), odd and large
    # (wgmma_staged), odd otherwise (wgmma_staged128),
    # aligned with 128x256 tiles for at most half the SMs and a long K (wgmma_splitk128), LLM steps
    # of 129-512 rows with more than 4 SMS tiles of 64x64 (wgmma_tmastore: 256x11008x4096)
    shapes = [(1024, 1024, 1024), (4096, 4096, 4096), (3000, 3000, 3000), (32768, 64, 1024), (1024, 1024, 8192),
              (16, 4096, 4096), (2, 4096, 4096), (25, 236, 61350), (4095, 4095, 4095), (1023, 1023, 1023), (19, 85, 81),
              (212, 4171, 8439), (500, 4096, 14336), (128, 4096, 14336), (64, 4096, 4096), (96, 4096, 4096),
              (48, 8192, 8192), (32, 5120, 5120), (100, 5120, 5120), (275, 21393, 34), (100, 8192, 28672),
              (128, 4096, 4096), (240, 4096, 4096), (250, 4096, 11008), (143, 4096, 14336), (152, 13824, 5120),
              (294, 4096, 14336), (512, 512, 512), (256, 256, 32768), (432, 344, 16112), (1136, 720, 864),
              (37, 11008, 4096), (134, 1578, 17152), (4000, 100, 10001), (30, 168, 24720), (39, 248, 2616),
              (84, 320, 576), (193, 38, 1256), (61, 1996, 10394), (23053, 7, 2924), (256, 11008, 4096),
              (1865, 1, 38686)]
    records = []
    bench(BenchWork([], shapes, include_cublas=False, dispatchers=[best], kernels=BY_NAME), cubins, QUICK, records.append)
    assert sorted((r["M"], r["N"], r["dispatched_to"]) for r in records) == sorted(
        (M, N, best.choose(M, N, K, BY_NAME).name) for M, N, K in shapes)
    assert all(r["kernel"] == "best-fp16" and r["status"] == "PASS" for r in records), records


@pytest.mark.parametrize("name", ["wgmma_tailsplit", "wgmma_tailsplit128", "wgmma_unaligned128"])
def test_tail_split_passes_and_repeats(name):
    """The last wave is really split here, and each shape twice still passes: every tail tile's
    last split left its arrival counter at zero."""
    spec = BY_NAME[name]
    records = run(spec, [s for s in TAIL for _ in range(2)])
    bad = [(r["M"], r["N"], r["K"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == 2 * len(TAIL)


def test_unaligned_rung_passes_every_kind_of_shape():
    """Odd N and K (rows off TMA's 16-byte grid), ragged and aligned shapes, on the wgmma path."""
    shapes = ODD + RAGGED + ALIGNED[:4] + [(4095, 4095, 4095)]
    records = run(BY_NAME["wgmma_unaligned128"], shapes)
    bad = [(r["M"], r["N"], r["K"], r["status"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == len(shapes)


@pytest.mark.parametrize("name", ["wgmma_tmastore", "wgmma_tmastore_deep"])
def test_tma_store_epilogue_clips_ragged_edges_and_reuses_its_buffers(name):
    """The TMA-store rungs' stores are clipped by C's tensor map: M of one row and of a partial
    warpgroup, N ending inside a 32-column chunk and inside the first chunk of a tile, tiles
    whose second warpgroup lies wholly below M; many tiles per CTA (the staging buffers and
    their load barriers go round tile after tile), each shape twice. beta != 0 comes from the
    bench's verification (C loaded by TMA into the staging buffers)."""
    shapes = [(1, 264, 64), (65, 8, 64), (100, 296, 200), (4097, 4104, 512), (8192, 8192, 256), (33000, 256, 64)]
    records = run(BY_NAME[name], [s for s in shapes for _ in range(2)])
    bad = [(r["M"], r["N"], r["K"], r["status"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == 2 * len(shapes)


@pytest.mark.parametrize("name", ["wgmma_staged", "wgmma_staged128", "wgmma_stagedsplit128"])
def test_staged_rung_passes_every_kind_of_shape_and_repeats(name):
    """Odd N and K, K % 8 == 4 (rows 8-byte aligned only), only A staged (N % 8 == 0), only B
    staged (K % 8 == 0), nothing staged (aligned: no copy, no grid barrier), one row and one
    column, a matrix whose last element ends a 4-byte word's low half (the copy's element path).
    Each shape twice and shapes alternating, so the grid barrier's generation goes round and the
    staging buffers are replaced as the shape changes."""
    shapes = ODD + [(4095, 4095, 4095), (1000, 1004, 1004), (512, 1024, 1001), (512, 1001, 1024),
                    (1024, 1024, 1024), (1, 9, 9), (9, 1, 9), (3, 3, 1)] + ALIGNED[:3] + RAGGED[:4]
    records = run(BY_NAME[name], [s for s in shapes for _ in range(2)])
    bad = [(r["M"], r["N"], r["K"], r["status"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == 2 * len(shapes)


def test_staged_store_copies_rows_off_sectors_and_repeats():
    """wgmma_stagedstore copies A, B, both or neither by the 32-byte rule (K or N a multiple of 8
    but not of 16, K odd, whole sectors), then stores C by TMA: ragged M, N ending mid-chunk, one
    row, many tiles a CTA. Each shape twice and shapes alternating (the barrier's generation, the
    buffers replaced as the shape changes)."""
    shapes = [(1000, 1000, 1000), (129, 136, 72), (512, 1024, 1000), (512, 1000, 1024), (512, 1024, 1001),
              (1024, 1024, 1024), (1, 8, 8), (65, 264, 40), (100, 296, 200), (4097, 4104, 520), (3000, 3000, 3000)]
    records = run(BY_NAME["wgmma_stagedstore"], [s for s in shapes for _ in range(2)])
    bad = [(r["M"], r["N"], r["K"], r["status"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == 2 * len(shapes)


def test_swapped_decode_rung_passes_every_split_and_repeats():
    """wgmma_swap64 (B's columns as wgmma's rows, A's rows as its N): M of 1, 7, 16, 33 and 64 rows
    (one row tile, the rest TMA's zeros), M above 64 (several row tiles), N ending inside a
    warpgroup's 64 columns, K of one k tile and K ending mid-tile, splits from 1 to 8 (slices of
    the sum empty where S exceeds the float4s holding rows of M), each shape twice (every tile's
    arrival and departure counters back at zero)."""
    spec = BY_NAME["wgmma_swap64"]
    assert spec.launch(64, 4096, 4096).grid == (1, 32, 8) and spec.launch(7, 8, 8).grid == (1, 1, 1)
    shapes = [(1, 4096, 4096), (16, 4096, 4096), (64, 4096, 4096), (33, 1000, 1000), (64, 11008, 4096),
              (100, 512, 8192), (256, 1024, 1024), (7, 8, 8), (1, 8, 4104), (129, 136, 72), (65, 264, 40)]
    records = run(spec, [s for s in shapes for _ in range(2)])
    bad = [(r["M"], r["N"], r["K"], r["status"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == 2 * len(shapes)


def test_tall_swapped_build_passes_every_row_count_and_split():
    """wgmma_swap160 (wgmma_swap64 built 160 rows tall): M of one row, of rows ending inside an
    8-row group and at the tile's end (the float4s past M neither stored as partials nor summed),
    M above the tile (two row tiles), N ending inside a warpgroup's 64 columns, K of one k tile and
    K ending mid-tile, splits from 1 to 16, each shape twice (every tile's counters back at zero)."""
    spec, rows = BY_NAME["wgmma_swap160"], 160
    assert spec.launch(rows, 4096, 4096).grid == (1, 32, 4)
    shapes = [(1, 4096, 4096), (rows - 3, 4096, 14336), (rows, 4096, 4096), (rows + 5, 1000, 1000), (133, 1024, 65536),
              (rows - 17, 5120, 5120), (7, 8, 8), (1, 8, 4104), (129, 136, 72), (200, 264, 40)]
    records = run(spec, [s for s in shapes for _ in range(2)])
    bad = [(r["M"], r["N"], r["K"], r["status"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == 2 * len(shapes)


def test_staged_swapped_build_passes_rows_off_tmas_grid():
    """wgmma_stagedswap160 (wgmma_swap160 over copies): N odd, N and K of 2 or 4 mod 8 (B, A or both
    copied), aligned (nothing copied, the barrier skipped), one row and rows past one tile, K of one
    k tile and splits up to 44, each shape twice (the copy's barrier and every tile's counters
    back at zero)."""
    spec = BY_NAME["wgmma_stagedswap160"]
    assert spec.launch(134, 1578, 17152).grid == (1, 13, 10) and spec.launch(3, 5, 7).cooperative
    shapes = [(134, 1578, 17152), (151, 1036, 52212), (470, 106, 40866), (193, 38, 1256), (3, 5, 7), (1, 1, 1),
              (160, 4096, 4104), (161, 999, 3001), (129, 257, 67), (65, 4095, 9)]
    records = run(spec, [s for s in shapes for _ in range(2)])
    bad = [(r["M"], r["N"], r["K"], r["status"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == 2 * len(shapes)


def test_cooperative_grid_past_what_the_gpu_holds_is_a_skip():
    """wgmma_stagedswap160 waits for its whole grid (the copy), one CTA an SM: past one tile of
    160x128 an SM it cannot start, a SKIP that says why (not a failed launch), and the shapes after
    it still run."""
    records = run(BY_NAME["wgmma_stagedswap160"], [(60682, 24, 44), (2612, 3878, 23), (470, 106, 40866)])
    assert [r["status"] for r in records] == ["SKIP", "SKIP", "PASS"], records
    assert "holds at once" in records[0]["reason"]


def test_cluster_decode_rung_passes_every_row_tile_and_k_range():
    """wgmma_decode (64 x 64 tiles, K split over a 2-CTA cluster, the halves summed through
    distributed shared memory): M of 1, 7, 33 and 64 rows (TMA's zeros past M), M above 64 (row
    tiles), N ending inside a tile, K of one k tile (the second CTA of each cluster has none) and
    ending mid-tile, k ranges of an odd count of tiles (the two consumer warpgroups unequal), a
    ring gone round many times; each shape twice."""
    spec = BY_NAME["wgmma_decode"]
    assert spec.launch(64, 4096, 4096).grid == (64, 1, 2) and spec.launch(129, 8, 8).grid == (1, 3, 2)
    shapes = [(1, 4096, 4096), (7, 8, 8), (33, 1000, 1000), (64, 4096, 4096), (64, 4104, 4168), (100, 512, 8192),
              (129, 136, 72), (65, 264, 40), (1, 8, 4104), (16, 4096, 28672), (256, 1024, 1024)]
    records = run(spec, [s for s in shapes for _ in range(2)])
    bad = [(r["M"], r["N"], r["K"], r["status"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == 2 * len(shapes)


def test_two_half_decode_rung_passes_every_half_and_k_range():
    """wgmma_decode128 (128 x 64 tiles as two 64-row halves, four consumer warpgroups, K split over
    a 2-CTA cluster): M inside the first half (the second half's boxes not loaded), M ending inside the
    second half by either of its 32-row boxes (past 96 rows A comes as one 64-row box a half), M
    of several row tiles whose last is partial, N ending inside a tile, K of one k tile and ending
    mid-tile, odd counts of k tiles (a half's two consumers unequal), a ring gone round many
    times; each shape twice."""
    spec = BY_NAME["wgmma_decode128"]
    assert spec.launch(128, 4096, 4096).grid == (64, 1, 2) and spec.launch(129, 8, 8).grid == (1, 2, 2)
    shapes = [(1, 8, 8), (7, 8, 8), (33, 1000, 1000), (65, 4096, 4096), (100, 512, 8192), (128, 4104, 4168),
              (129, 136, 72), (257, 264, 40), (96, 8, 4104), (80, 4096, 14336), (256, 1024, 1024)]
    records = run(spec, [s for s in shapes for _ in range(2)])
    bad = [(r["M"], r["N"], r["K"], r["status"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == 2 * len(shapes)


def test_decode_rung_built_without_the_split_passes_every_tile_and_k_length():
    """wgmma_decode built with KSPLIT = 1 (clusters of one CTA, each tile over the whole K, the
    consumers' accumulators still summed through the ring): M inside one tile and over several,
    N ending inside a tile, K of one k tile and ending mid-tile, a ring gone round many times;
    each shape twice."""
    spec = BY_NAME["wgmma_decode_fullk"]
    assert spec.launch(64, 8192, 8192).grid == (128, 1, 1)
    shapes = [(1, 8, 8), (7, 8, 8), (33, 1000, 1000), (64, 8192, 8192), (100, 512, 8192), (128, 8200, 4168),
              (129, 136, 72), (257, 264, 40), (96, 8, 4104), (40, 8192, 28672)]
    records = run(spec, [s for s in shapes for _ in range(2)])
    bad = [(r["M"], r["N"], r["K"], r["status"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == 2 * len(shapes)


def test_two_half_decode_rung_built_without_the_split_passes_every_row_tile():
    """wgmma_decode128_fullk (128 x 64 tiles over the whole K, two 64-row halves): M of one row, of
    a second row tile barely begun and of several, N ending inside a tile, K of one k tile and
    ending mid-tile, a ring gone round many times; each shape twice."""
    spec = BY_NAME["wgmma_decode128_fullk"]
    assert spec.launch(240, 4096, 4096).grid == (64, 2, 1)
    shapes = [(1, 8, 8), (129, 4096, 4096), (240, 4096, 4096), (256, 4104, 4168), (300, 520, 72), (200, 8, 8200)]
    records = run(spec, [s for s in shapes for _ in range(2)])
    bad = [(r["M"], r["N"], r["K"], r["status"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == 2 * len(shapes)


def test_decode_rungs_at_80_columns_pass_every_box_and_half():
    """wgmma_decode80 and wgmma_decode128x80 (80 columns a CTA: B's 64-column box and a 16-column
    one of its own map, 32B-swizzled): N ending inside either box, N a multiple of 80 and of 64
    only, M in one half and across both, several row tiles, K of one k tile and ending mid-tile,
    a ring gone round many times; each shape twice."""
    rungs = [BY_NAME["wgmma_decode80"], BY_NAME["wgmma_decode128x80"]]
    assert rungs[0].launch(32, 5120, 5120).grid == (64, 1, 2) and rungs[1].launch(128, 5120, 5120).grid == (64, 1, 2)
    shapes = [(1, 8, 8), (7, 72, 8), (33, 1000, 1000), (64, 5120, 5120), (100, 5000, 5016), (128, 5128, 4168),
              (129, 136, 72), (257, 264, 40), (96, 80, 4104), (37, 5120, 13824), (16, 4096, 4096)]
    for spec in rungs:
        records = run(spec, [s for s in shapes for _ in range(2)])
        bad = [(r["M"], r["N"], r["K"], r["status"], r.get("reason")) for r in records if r["status"] != "PASS"]
        assert not bad and len(records) == 2 * len(shapes), spec.name


@pytest.mark.parametrize("name", ["wgmma_decode64x128", "wgmma_decode128x128"])
def test_decode_rungs_at_128_columns_pass_every_box_and_half(name):
    """wgmma_decode64x128 and wgmma_decode128x128 (128 columns a CTA: two of B's 64-column boxes a
    stage; at 128 rows C read after the k loop): N ending inside each box, N a multiple of 128 and
    of 64 only, M in one half and across both, several row tiles, K of one k tile (the cluster's
    other CTA has none) and ending mid-tile, a ring gone round many times; each shape twice."""
    spec, wide = BY_NAME[name], 8192
    assert spec.launch(64, wide, wide).grid == (64, 1, 2)
    shapes = [(1, 8, 8), (7, 72, 8), (33, 1000, 1000), (64, wide, wide), (100, wide - 192, wide + 8),
              (128, wide + 8, 4168), (129, 136, 72), (257, 264, 40), (96, 184, 4104), (37, wide, 28672),
              (16, 4096, 4096), (50, 4136, 200)]
    records = run(spec, [s for s in shapes for _ in range(2)])
    bad = [(r["M"], r["N"], r["K"], r["status"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == 2 * len(shapes)


def test_staged_split_k_splits_odd_shapes_and_repeats():
    """wgmma_stagedsplit128 really splits here (S = 2 .. 16, K ending mid-tile, the copy of A, of
    B, of both), and each shape twice still passes: the grid barrier and every tile's arrival
    counter start afresh each launch."""
    spec = BY_NAME["wgmma_stagedsplit128"]
    assert spec.launch(89, 1373, 2499).grid[0] == 11 * 9 and spec.launch(42, 168, 30289).grid[0] == 2 * 16
    shapes = [(89, 1373, 2499), (42, 168, 30289), (193, 38, 1256), (212, 4171, 8439), (128, 128, 65535),
              (300, 301, 4096), (300, 304, 4097), (1, 9, 20007)] + SPLIT[:3]
    records = run(spec, [s for s in shapes for _ in range(2)])
    bad = [(r["M"], r["N"], r["K"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == 2 * len(shapes)


def test_skinny_passes_every_tile_height_split_and_repeats():
    """skinny's three tile heights (M 1-16, 17-32, 33-64, and M above 64: several row tiles),
    N ending mid-tile, K below one k tile, K split many ways and unequally (the last arriver's
    sum, the workspace's counters reset for the next launch), grids too large to split; each shape
    twice and shapes alternating, so a split launch follows an unsplit one. Splits wide enough
    that the last arriver reads the partials back in several batches (16 rows: 33 splits in 13s)
    or sums 16 of them by rows at 24 and 48 rows."""
    shapes = [(1, 8, 8), (1, 4096, 4096), (7, 136, 4104), (16, 4096, 14336), (17, 264, 1000), (32, 11008, 4096),
              (33, 4104, 2056), (64, 4096, 4096), (65, 1000, 65536), (128, 4096, 14336), (200, 40, 16384),
              (256, 28672, 520), (1000, 1000, 1000), (3, 5000, 8), (16, 1024, 16384), (24, 2048, 8192),
              (48, 1024, 8192)]
    records = run(BY_NAME["skinny"], [s for s in shapes for _ in range(2)])
    bad = [(r["M"], r["N"], r["K"], r["status"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == 2 * len(shapes)


def test_skinny_any_passes_odd_shapes_at_every_tile_height_and_split():
    """skinny_any on the shapes skinny cannot take: odd N and K (rows that start mid-word), N and K
    below one chunk, M at each tile height, K split many ways (the sample suite's 25x236x61350 and
    27x17x14214), more row tiles than a split grid holds; its aligned shapes too (the same loads,
    whatever the pitch), and partials read back in several batches (9x1001x7001: 27 splits in 6s)
    or by rows (20x1000x9001: 35 splits). Each shape twice and alternating, for the workspace's counters."""
    shapes = ODD + [(19, 85, 81), (25, 236, 61350), (27, 17, 14214), (33, 3, 4097), (64, 4095, 4095), (65, 129, 9),
                    (343, 35, 20), (4393, 25, 113), (1, 8, 8), (16, 4096, 4096), (200, 40, 16384), (9, 1001, 7001),
                    (20, 1000, 9001)]
    records = run(BY_NAME["skinny_any"], [s for s in shapes for _ in range(2)])
    bad = [(r["M"], r["N"], r["K"], r["status"], r.get("reason")) for r in records if r["status"] != "PASS"]
    assert not bad and len(records) == 2 * len(shapes)
