"""kernels/streamk.cuh's stream-K schedules (the streamk rungs' plan, tailsk128x256x8's tail
plan and grid), run on the CPU by a host driver (tests/kernels/streamk_cover.cu, compiled once by
nvcc) exactly as the kernels' blocks walk them: for random M, N, K, tile shapes and grid sizes,
every k tile of every tile of C is multiplied exactly once; a tile split over blocks is summed from consecutive blocks whose workspace slots
never collide and fit; the blocks' shares differ by at most one k tile; and the manifest's grid
expressions for the streamk rungs never push a plan past its kernel's workspace."""

from __future__ import annotations

import subprocess
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers.c_source import macros, with_headers
from profiler.catalogue.manifest import load_manifest

pytestmark = pytest.mark.nvcc

DRIVER = Path(__file__).parent.parent / "kernels" / "streamk_cover.cu"  # tests/kernels/
BK = 8
TILES = [(128, 256), (128, 128), (64, 64), (64, 32)]
STREAMK = [s for s in load_manifest() if s.name.startswith(("streamk", "tailsk"))]


@pytest.fixture(scope="module")
def driver(tmp_path_factory) -> Path:
    exe = tmp_path_factory.mktemp("streamk") / "streamk_cover"
    subprocess.run(["nvcc", "-O1", "-o", str(exe), str(DRIVER)], check=True, capture_output=True)
    return exe


def schedule(exe: Path, M, N, K, BM, BN, G, slots=1 << 40, counters=1 << 40, tail=False) -> dict:
    """The plan and every block's units, as the driver prints them (tail: tailsk128x256x8's grid,
    each unit under its block's column)."""
    out = subprocess.run([str(exe)], input=f"{M} {N} {K} {BM} {BN} {G} {slots} {counters} {int(tail)}\n",
                         capture_output=True, text=True, check=True).stdout.split("\n")
    dp, tiles, iters, sk_ctas = map(int, out[0].split()[1:])
    units = [tuple(map(int, line.split())) for line in out[1:] if line and line != "end"]
    return {"dp": dp, "tiles": tiles, "iters": iters, "sk_ctas": sk_ctas, "units": units}


def check(plan: dict, M, N, K, BM, BN, G, slots=1 << 40, counters=1 << 40) -> None:
    """Everything the kernels rely on, from the driver's output alone."""
    T, iters, dp = plan["tiles"], plan["iters"], plan["dp"]
    assert T == -(-M // BM) * -(-N // BN) and iters == -(-K // BK)
    assert 0 <= dp <= T and (dp == T or dp % G == 0)
    by_tile = defaultdict(list)
    work = defaultdict(int)  # k tiles per block
    for c, tile, k0, k1, kind, slot, counter, arrivals in plan["units"]:
        assert 0 <= c < G and 0 <= tile < T and 0 <= k0 < k1 <= iters
        by_tile[tile].append((k0, k1, c, kind, slot, counter, arrivals))
        work[c] += k1 - k0
        if tile < dp:  # data-parallel: whole tiles, tile c + G * j of block c
            assert (k0, k1, kind) == (0, iters, 0) and tile % G == c
    assert set(by_tile) == set(range(T)), "a tile of C is never computed"
    used_slots = set()
    for tile, parts in by_tile.items():
        parts.sort()
        # the segments of a tile partition [0, iters): every k tile exactly once
        assert parts[0][0] == 0 and parts[-1][1] == iters
        assert all(a[1] == b[0] for a, b in zip(parts, parts[1:])), (tile, parts)
        if len(parts) == 1:
            assert parts[0][3] == 0  # whole in one block: stored directly, no fix-up
            continue
        blocks = [p[2] for p in parts]
        assert blocks == list(range(blocks[0], blocks[0] + len(blocks))), "contributors must be consecutive blocks"
        for k0, k1, c, kind, slot, counter, arrivals in parts:
            assert kind == 1 and arrivals == len(parts) and counter == tile - dp
            assert slot == c + counter and slot not in used_slots and 0 <= slot < slots and counter < counters
            used_slots.add(slot)
    if dp < T and plan["sk_ctas"]:  # balance: every busy block's share within one k tile of every other's
        shares = [work[c] for c in range(G)]
        busy = shares if dp else shares[: plan["sk_ctas"]]  # with no whole tiles, blocks past sk_ctas idle
        assert all(w == 0 for w in shares[len(busy):])
        assert min(busy) >= 1 and max(busy) - min(busy) <= 1, shares


shape = st.integers(1, 3000)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(M=shape, N=shape, K=st.integers(1, 5000), tile=st.sampled_from(TILES), G=st.integers(1, 1200))
def test_tail_schedule_covers_every_k_tile_once_and_shares_only_the_last_wave(driver, M, N, K, tile, G):
    """tailsk128x256x8's grid: whole waves whole (one block a tile), the T % G tiles left shared
    evenly by the stream-K row, every k tile once."""
    BM, BN = tile
    plan = schedule(driver, M, N, K, BM, BN, G, tail=True)
    check(plan, M, N, K, BM, BN, G)
    assert plan["dp"] == plan["tiles"] - plan["tiles"] % G
    # the stream-K row is the grid's last (the driver prints rows in order): it runs after the whole waves
    shared = [u[1] >= plan["dp"] for u in plan["units"]]
    assert shared == sorted(shared)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(M=st.integers(1, 2000), N=st.integers(1, 2000), K=st.integers(1, 3000), tile=st.sampled_from(TILES),
       G=st.integers(1, 600), slots=st.integers(1, 2000), counters=st.integers(1, 1500))
def test_a_tail_that_does_not_fit_the_workspace_runs_its_tiles_whole(driver, M, N, K, tile, G, slots, counters):
    BM, BN = tile
    plan = schedule(driver, M, N, K, BM, BN, G, slots, counters, tail=True)
    check(plan, M, N, K, BM, BN, G, slots, counters)
    if plan["dp"] < plan["tiles"] and not plan["sk_ctas"]:
        assert all(u[4] == 0 for u in plan["units"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(M=shape, N=shape, K=st.integers(1, 5000), tile=st.sampled_from(TILES), G=st.integers(1, 1200))
def test_every_k_tile_of_every_tile_is_covered_once(driver, M, N, K, tile, G):
    BM, BN = tile
    check(schedule(driver, M, N, K, BM, BN, G), M, N, K, BM, BN, G)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(M=st.integers(1, 2000), N=st.integers(1, 2000), K=st.integers(1, 3000), tile=st.sampled_from(TILES),
       G=st.integers(1, 600), slots=st.integers(1, 2000), counters=st.integers(1, 1500))
def test_a_plan_that_does_not_fit_the_workspace_runs_whole_tiles(driver, M, N, K, tile, G, slots, counters):
    """Small workspaces: the plan either fits (checked like any other) or is all data-parallel."""
    BM, BN = tile
    plan = schedule(driver, M, N, K, BM, BN, G, slots, counters)
    check(plan, M, N, K, BM, BN, G, slots, counters)
    if plan["dp"] == plan["tiles"]:
        assert all(u[4] == 0 for u in plan["units"])


def test_known_plans(driver):
    """By hand: 1536^3 in 64x64 tiles is 576 tiles on 528 blocks: no whole wave stays
    data-parallel (576 // 528 - 1 = 0), all 576 * 192 k tiles are shared, 209 or 210 each. 2500^3
    in 128x128 tiles is 400 tiles on 264 blocks: the same. 4096^2 x 512 in 64x64 tiles is 4096
    tiles = 7.76 waves of 528: 6 waves (3168 tiles) whole, 928 tiles shared."""
    p = schedule(driver, 1536, 1536, 1536, 64, 64, 528)
    assert (p["dp"], p["tiles"], p["iters"], p["sk_ctas"]) == (0, 576, 192, 528)
    shares = defaultdict(int)
    for u in p["units"]:
        shares[u[0]] += u[3] - u[2]
    assert sorted(set(shares.values())) == [209, 210] and sum(shares.values()) == 576 * 192
    p = schedule(driver, 2500, 2500, 2500, 128, 128, 264)
    assert (p["dp"], p["tiles"]) == (0, 400)
    p = schedule(driver, 4096, 4096, 512, 64, 64, 528)
    assert (p["dp"], p["tiles"]) == (6 * 528, 4096)
    p = schedule(driver, 4096, 4096, 4096, 128, 128, 256)  # 1024 tiles = 4 whole waves: no stream-K
    assert p["dp"] == 1024 and all(u[4] == 0 for u in p["units"])
    p = schedule(driver, 3072, 3072, 3072, 128, 256, 132)  # 288 tiles = 2.2 waves: 1 whole, 156 tiles shared
    assert (p["dp"], p["tiles"], p["iters"], p["sk_ctas"]) == (132, 288, 384, 132)
    p = schedule(driver, 1, 1, 8, 64, 32, 50)  # one k tile, 50 blocks: one block does it, alone
    assert p["sk_ctas"] == 1 and [u[:5] for u in p["units"]] == [(0, 0, 0, 1, 0)]
    # tailsk128x256x8: 4096^3 is 512 tiles, 3 whole waves and 116 tiles shared by 132 blocks, 0.88
    # of a tile (449 or 450 k tiles of 512) each; 5000^3 is 800 tiles, 6 whole waves and 8 tiles shared
    # (37 or 38 k tiles each); 2 * 132 tiles: no stream-K row.
    p = schedule(driver, 4096, 4096, 4096, 128, 256, 132, tail=True)
    assert (p["dp"], p["tiles"], p["iters"], p["sk_ctas"]) == (396, 512, 512, 132)
    shared = defaultdict(int)
    for u in p["units"]:
        shared[u[0]] += (u[3] - u[2]) * (u[1] >= 396)
    assert sorted(set(shared.values())) == [449, 450]
    p = schedule(driver, 5000, 5000, 5000, 128, 256, 132, tail=True)
    assert (p["dp"], p["tiles"], p["sk_ctas"]) == (792, 800, 132)
    p = schedule(driver, 3072, 2816, 64, 128, 256, 132, tail=True)
    assert p["dp"] == 264 and all(u[4] == 0 for u in p["units"])


def _defines(spec) -> dict[str, int]:
    """The rung's tile, block and workspace sizes (BM, BN, NTHREADS, WS_FLOATS, MAX_TILES), from its
    source and the headers it includes."""
    return macros(with_headers(spec))


@pytest.mark.parametrize("spec", STREAMK, ids=lambda s: s.name)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(M=st.integers(1, 9000), N=st.integers(1, 9000), K=st.integers(1, 70000))
def test_manifest_grid_fits_the_kernels_workspace(driver, spec, M, N, K):
    """At any shape, the rung's grid gives a plan inside its workspace (no silent fall-back to
    whole tiles), and the block count is a positive number no larger than the cap."""
    d = _defines(spec)
    BM, BN = d["BM"], d["BN"]
    G = spec.launch(M, N, K).grid[0]
    assert 1 <= G and spec.launch(M, N, K).block[0] == d["NTHREADS"]
    tail = spec.name.startswith("tailsk")
    fitted = schedule(driver, M, N, K, BM, BN, G, d["WS_FLOATS"] // (BM * BN), d["MAX_TILES"], tail)
    free = schedule(driver, M, N, K, BM, BN, G, tail=tail)
    assert fitted["dp"] == free["dp"]
    check(fitted, M, N, K, BM, BN, G, d["WS_FLOATS"] // (BM * BN), d["MAX_TILES"])
    assert fitted["sk_ctas"] == free["sk_ctas"]
