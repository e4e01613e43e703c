"""tall32's geometry without a GPU (kernels/56_tall32.cu): its constants are read out of the source
and held to the manifest's launch (row tiles as tall as the tile width makes them, the shared
memory the stages need, splits whose partials fit the workspace on any GPU up to 170 SMs) and to
the layout its header promises (a warp's 4-byte copies of A land in 32 distinct banks; its reads
of A and B are broadcasts or one wavefront). A wrong geometry passes ptxas and fails only on the
device; these checks fail here first."""

import re

import pytest

from profiler.catalogue.kernel_paths import KERNELS_DIR
from profiler.catalogue.manifest import select_kernels

SOURCE = (KERNELS_DIR / "56_tall32.cu").read_text()


def define(name: str) -> int:
    m = re.search(rf"^#define {name} \(?([0-9]+)(LL << ([0-9]+)\))?", SOURCE, re.M)
    assert m, f"56_tall32.cu no longer defines {name}"
    return int(m[1]) << int(m[3]) if m[3] else int(m[1])


NT, TM, KC, STAGES = define("NT"), define("TM"), define("KC"), define("STAGES")
SMEM, WS, MAX_TILES = define("SMEM_BYTES"), define("WS_FLOATS"), define("MAX_TILES")
SPEC = select_kernels(["tall32"])[0]


def tile(bn: int) -> dict[str, int]:
    """Tile<BN>'s constants, as the source computes them."""
    cg = bn // 4
    bm = NT // cg * TM
    pa = bm + 2
    return {"CG": cg, "BM": bm, "PA": pa, "STAGE": KC * pa + KC * bn}


def test_the_source_computes_the_tile_as_this_test_does():
    flat = "".join(SOURCE.split())
    for line in ("CG=BN/4;", "BM=NT/CG*TM;", "PA=BM+2;", "A_STAGE=KC*PA,STAGE=A_STAGE+KC*BN;"):
        assert line in flat, line
    assert "if(N<=32)tall32::body<32>" in flat and "tall32::body<64>" in flat


@pytest.mark.parametrize("n,bn", [(1, 32), (30, 32), (32, 32), (33, 64), (64, 64), (100, 64), (1000, 64)])
def test_the_manifest_grid_is_the_kernel_s_tiles(n, bn):
    for m, k in [(1, 1), (5584, 36785), (60682, 44), (257, 4099)]:
        launch = SPEC.launch(m, n, k)
        bm = tile(bn)["BM"]
        assert launch.grid[:2] == (-(-m // bm), -(-n // bn))
        assert launch.block == (NT, 1, 1)


def test_shared_memory_holds_the_stages_of_both_widths():
    assert SMEM == max(STAGES * tile(bn)["STAGE"] * 4 for bn in (32, 64))
    assert SPEC.launch(5584, 30, 36785).smem_bytes == SMEM <= 227 * 1024


@pytest.mark.parametrize("sms", [1, 16, 78, 114, 132, 144, 170])
def test_split_grids_fit_the_workspace_and_the_counters(sms):
    """Every split's partial tile has its slot and every split tile its counter: otherwise the
    kernel runs unsplit (split 0 takes all of K), correct but slow."""
    for m, n, k in [(5584, 30, 36785), (300, 16, 65536), (1, 1, 1 << 20), (12217, 64, 24971), (40000, 33, 4096)]:
        x, y, z = SPEC.launch(m, n, k, sms=sms).grid
        bn = 32 if n <= 32 else 64
        if z > 1:
            assert x * y * z * tile(bn)["BM"] * bn <= WS and x * y <= MAX_TILES
            assert z <= k // 256 and x * y * z <= 2 * sms


@pytest.mark.parametrize("bn", [32, 64])
def test_a_warp_s_copies_of_a_land_in_32_banks(bn):
    """Copy j of thread tid: row tid / KC + j NT / KC, k tid % KC, stored transposed at k PA + row."""
    pa = tile(bn)["PA"]
    for warp in range(NT // 32):
        for j in range(tile(bn)["BM"] * KC // NT):
            banks = {((tid % KC) * pa + tid // KC + j * (NT // KC)) % 32 for tid in range(32 * warp, 32 * warp + 32)}
            assert len(banks) == 32


@pytest.mark.parametrize("bn", [32, 64])
def test_a_warp_reads_a_as_broadcasts_and_b_as_one_contiguous_row(bn):
    """Thread tid computes rows TM (tid / CG) .. + TM - 1 and columns 4 (tid % CG) .. + 3: a warp's
    float2 reads of A hit as many distinct addresses as it has row groups (broadcasts), its float4
    reads of B the whole k row once, contiguous (free of conflicts: one wavefront a 128 bytes)."""
    cg = tile(bn)["CG"]
    for warp in range(NT // 32):
        lanes = range(32 * warp, 32 * warp + 32)
        assert len({TM * (tid // cg) for tid in lanes}) == 32 // cg
        assert sorted({4 * (tid % cg) for tid in lanes}) == list(range(0, bn, 4))
