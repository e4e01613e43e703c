"""The index, rounding and split math of kernels/tf32x3_ra.cuh (tf32x3ra, tf32x3raw, tf32x3bits, tf32x3sk)
without a GPU.

The body computes C^T = B^T A^T with B^T as wgmma's register operand. Its thread-to-column map
(`n0`), its B fragment addresses under TMA's 128-byte swizzle and its epilogue stores are read out
of the header's own source lines and evaluated here for every consumer thread, against the
fragment layouts of wgmma m64nNk8 .tf32 (PTX ISA; CUTLASS's ALayout_64x8 / CLayout_64xN):
    A operand: register 2q + e of warp w, lane 4g + t holds row 16w + g + 8e, column t + 4q
    D:         d[4j + 2e + v] holds row 16w + g + 8e, column 8j + 2t + v
A wrong map passes ptxas and fails only on the device; these checks fail here first."""

import math
import re
import struct
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from profiler.catalogue.kernel_paths import KERNELS_DIR

HEADER = (KERNELS_DIR / "tf32x3_ra.cuh").read_text()


def expression(pattern: str) -> str:
    """The C expression the source assigns by `pattern` (a regex with one group), as Python."""
    m = re.search(pattern, HEADER)
    assert m, f"tf32x3_ra.cuh no longer matches {pattern!r}"
    return m[1].replace("(size_t)", "").replace("/", "//")


def constants() -> dict[str, int]:
    values: dict[str, int] = {}
    for line in re.findall(r"^constexpr int ([^;]+);", HEADER, flags=re.M):
        for item in line.split(","):
            name, expr = (s.strip() for s in item.split("="))
            values[name] = eval(expr, {}, dict(values))  # noqa: S307 - integer arithmetic over earlier constants
    return values


K = constants()
N0 = expression(r"const int n0 = ([^;]+);")
B_OFF = expression(r"const int bOff = ([^;]+);")
CHUNK = expression(r"const int chunk = ([^;]+);")
ROW_ADDR = expression(r"const unsigned char\* p = col \+ ([^;]+);")
STEP_ADDR = expression(r"reinterpret_cast<const float2\*>\(p \+ ([^)]+\)[^)]*)\);")
OUT_ROW = expression(r"float\* const out = C \+ \(size_t\)\(([^)]+)\) \* N \+ bn \+ n0;")
STORED = re.search(r"make_float2\(alpha \* acc\[([^\]]+)\], alpha \* acc\[([^\]]+)\]\)", HEADER)
THREADS = [(c, w, g, t) for c, w, g, t in product(range(2), range(4), range(8), range(4))]


def n0(c, w, g, t):
    return eval(N0, {}, {"c": c, "w": w, "g": g, "t": t})  # noqa: S307


def unswizzle(offset: int) -> tuple[int, int]:
    """(k, n) of the float at byte `offset` of a stage's B: four 32(n) x 32(k) boxes after A, each
    row k 128 bytes with 16-byte chunk c stored at chunk c ^ (k % 8) (TMA's 128-byte swizzle)."""
    box, within = divmod(offset - K["A_BYTES"], K["B_BOX"])
    k, byte = divmod(within, 128)
    chunk, word = divmod(byte, 16)
    return k, 32 * box + 4 * (chunk ^ (k % 8)) + word // 4


def test_constants_are_the_layout_the_tensor_maps_load():
    assert (K["BM"], K["BN"], K["BK"]) == (128, 128, 32)
    assert K["B_BOX"] == 32 * 32 * 4 and K["A_BYTES"] + 4 * K["B_BOX"] == K["STAGE_BYTES"]


def test_each_consumer_warpgroup_owns_64_columns_two_per_thread():
    for c in range(2):
        cols = [n0(c_, w, g, t) + e for c_, w, g, t in THREADS if c_ == c for e in range(2)]
        # a column per (w, g, e): the four lanes of one g (t = 0..3) share it, holding other k
        assert sorted(cols) == sorted(list(range(64 * c, 64 * c + 64)) * 4)
    assert all(n0(*th) % 2 == 0 for th in THREADS)  # an 8-byte aligned pair


def b_offset(c, w, g, t, h, ss, q):
    n = n0(c, w, g, t)
    env = {"n0": n, "A_BYTES": K["A_BYTES"], "B_BOX": K["B_BOX"]}
    chunk = eval(CHUNK, {}, env)  # noqa: S307
    row = t + 4 * q
    return (eval(B_OFF, {}, env) + eval(ROW_ADDR, {}, {"row": row, "chunk": chunk})  # noqa: S307
            + eval(STEP_ADDR, {}, {"h": h, "ss": ss}))  # noqa: S307


def test_fragment_loads_read_the_elements_of_the_wgmma_register_layout():
    """Register 2q + e of k8 step s = 2h + ss is (row 16w + g + 8e, column t + 4q) of that step:
    B[8s + t + 4q][column of that row], the column being n0 + e."""
    for (c, w, g, t), h, ss, q, e in product(THREADS, range(2), range(2), range(2), range(2)):
        k, n = unswizzle(b_offset(c, w, g, t, h, ss, q) + 4 * e)
        assert (k, n) == (8 * (2 * h + ss) + t + 4 * q, n0(c, w, g, t) + e)


def test_every_b_element_of_the_tile_is_loaded_by_exactly_one_thread_and_register():
    seen = {}
    for (c, w, g, t), h, ss, q, e in product(THREADS, range(2), range(2), range(2), range(2)):
        seen.setdefault(unswizzle(b_offset(c, w, g, t, h, ss, q) + 4 * e), []).append((c, w, g, t))
    assert len(seen) == 32 * 128 and all(len(v) == 1 for v in seen.values())


@pytest.mark.parametrize("half", [0, 1])
def test_fragment_loads_are_free_of_bank_conflicts(half):
    """An 8-byte load is served per half-warp (16 lanes x 8 bytes = 128 bytes): the 16 addresses
    must fall on 16 distinct 8-byte bank pairs."""
    for c, w, h, ss, q in product(range(2), range(4), range(2), range(2), range(2)):
        lanes = [(g, t) for g, t in product(range(8), range(4)) if (4 * g + t) // 16 == half]
        pairs = {b_offset(c, w, g, t, h, ss, q) % 128 // 8 for g, t in lanes}
        assert len(pairs) == 16, (c, w, h, ss, q)


def test_epilogue_writes_each_element_of_the_tile_once_from_the_accumulator_holding_it():
    assert STORED, "epilogue store no longer matches"
    written = {}
    for (c, w, g, t), j, v in product(THREADS, range(16), range(2)):
        m = eval(OUT_ROW, {}, {"bm": 0, "j": j, "t": t, "v": v})  # noqa: S307
        for e, reg_expr in enumerate(STORED.groups()):
            reg = eval(reg_expr, {}, {"j": j, "v": v})  # noqa: S307
            # d[reg] is row 16w + g + 8e' of C^T (column n0 + e'), column 8j + 2t + v' (row of C)
            j_, rest = divmod(reg, 4)
            e_, v_ = divmod(rest, 2)
            assert (8 * j_ + 2 * t + v_, n0(c, w, g, t) + e_) == (m, n0(c, w, g, t) + e)
            key = (m, n0(c, w, g, t) + e)
            assert key not in written, key
            written[key] = (c, w, g, t)
    assert len(written) == 128 * 128


@pytest.mark.parametrize("name", ["tf32x3ra", "tf32x3raw", "tf32x3bits", "tf32x3sk"])
def test_manifest_boxes_and_launch_agree_with_the_header(name):
    """A: one 128-byte swizzle row of k per m row (K-major, as wgmma's smem operand reads it); B: four
    32(n) x 32(k) boxes per stage in the same swizzle (what the fragment addresses above decode)."""
    from profiler.catalogue.manifest import select_kernels

    (spec,) = select_kernels([name])
    a_map, b_map = spec.tensor_maps
    assert (a_map.operand, a_map.box, a_map.swizzle) == ("A", (K["BK"], K["BM"]), 128)
    assert (b_map.operand, b_map.box, b_map.swizzle) == ("B", (32, K["BK"]), 128)
    assert K["B_BOX"] == b_map.box[0] * b_map.box[1] * 4 and K["A_BYTES"] == a_map.box[0] * a_map.box[1] * 4
    assert "tma_load_2d(sa + A_BYTES + i * B_BOX, tmB, bn + 32 * i, (kt0 + kt) * BK, L.full(s))" in HEADER
    # Any M; N and K whole 16-byte rows of floats, which TMA needs (tensor maps over A and B as they are)
    assert spec.contract == {"N": 16 // 4, "K": 16 // 4}
    launch = spec.launch(8192, 4096, 1024)
    assert launch.grid[0] == 8192 // K["BM"] * 4096 // K["BN"] and launch.block == (384, 1, 1)
    assert launch.smem_bytes <= 227 * 1024
    assert spec.launch(1000, 260, 36).grid[0] == 8 * 3  # tiles past the edges, counted up
    assert launch.grid[1:] == (1, 1) and spec.launch(1000, 260, 36).grid[1:] == (1, 1)  # a split needs 8 k tiles


def test_ragged_edges_are_read_as_zeros_and_stored_within_the_matrix():
    """Tiles counted up (TMA reads past M, N and K as zeros, so the K loop runs over whole k tiles
    of a K that ends mid-tile), and the epilogue stores only rows below M and column pairs below N
    (N even and n0 even: a pair is all in or all out)."""
    counts = "".join(HEADER.split())
    assert "constinttilesM=(M+BM-1)/BM,tilesN=(N+BN-1)/BN;" in counts
    assert "intkt0=0,kTiles=(K+BK-1)/BK,splits=1;" in counts
    assert "if(bn+n0>=N)return;" in counts and "if(bm+8*j+2*t+v>=M)continue;" in counts
    assert all(n0(*thread) % 2 == 0 for thread in THREADS)


def rna_tf32(x: float) -> float:
    """x rounded to nearest onto TF32's 10-bit mantissa, ties away from zero (cvt.rna.tf32.f32),
    in exact arithmetic."""
    from fractions import Fraction

    if x == 0:
        return x
    m, e = math.frexp(abs(x))  # |x| = m 2^e, 0.5 <= m < 1: the TF32 grid there is 2^(e - 11)
    q = Fraction(abs(x)) / Fraction(2) ** (e - 11)
    n = math.floor(q + Fraction(1, 2))
    return math.copysign(float(n * Fraction(2) ** (e - 11)), x)


def header_rounding():
    """INT_ROUND's rounding as the header writes it: (bits + half) & mask."""
    half = int(re.search(r"rna_unmasked\(float x\) \{ return __float_as_uint\(x\) \+ (0x[0-9A-Fa-f]+)u; \}", HEADER)[1], 16)
    mask = int(re.search(r"tf32_bits\(uint32_t b\) \{ return b & (0x[0-9A-Fa-f]+)u; \}", HEADER)[1], 16)
    return half, mask


@settings(max_examples=3000, deadline=None)
@given(st.floats(width=32, allow_nan=False, allow_infinity=False, allow_subnormal=False,
                 min_value=-(2.0 ** 127), max_value=2.0 ** 127))
def test_integer_rounding_is_cvt_rna(x):
    """tf32x3bits' split rounds by adding half a TF32 ulp to the bits and masking (the tensor core's
    truncation does the mask for small_a): that is cvt.rna's round to nearest, ties away, also where
    the mantissa carries into the exponent."""
    half, mask = header_rounding()
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    rounded = struct.unpack("<f", struct.pack("<I", ((bits + half) & mask) & 0xFFFFFFFF))[0]
    assert rounded == rna_tf32(x)


@pytest.mark.parametrize("x", [1.0 + 2.0 ** -11, -(1.0 + 2.0 ** -11), 2.0 - 2.0 ** -23, 1.0 + 3 * 2.0 ** -12])
def test_integer_rounding_ties_and_carries(x):
    """Ties go away from zero, a mantissa of all ones carries into the exponent."""
    half, mask = header_rounding()
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    assert struct.unpack("<f", struct.pack("<I", (bits + half) & mask))[0] == rna_tf32(x)


def header_split(k: int, splits: int, y: int) -> tuple[int, int]:
    """Split y's k tiles [kt0, kt0 + kTiles) as the header's SPLIT_K branch computes them."""
    body = "".join(HEADER.split())
    assert "constintall=kTiles,per=(all+splits-1)/splits;kt0=min(all,(int)blockIdx.y*per);kTiles=min(all,kt0+per)-kt0;" in body
    every = -(-k // K["BK"])
    per = -(-every // splits)
    kt0 = min(every, y * per)
    return kt0, min(every, kt0 + per) - kt0


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 70000), st.integers(1, 70000), st.integers(1, 70000), st.sampled_from([78, 108, 114, 132, 144]))
def test_split_k_covers_every_k_tile_once_in_split_order(m, n, k, sms):
    """tf32x3sk's grid (the manifest's) and the header's split bounds: the splits of a tile take
    consecutive runs of k tiles, in split order, every one exactly once (the last splits may get
    none); a split grid fits the workspace, and every split but the last runs at least 8 k tiles."""
    from profiler.catalogue.manifest import select_kernels

    (spec,) = select_kernels(["tf32x3sk"])
    tiles, splits, _ = spec.launch(m, n, k, sms).grid
    assert tiles == -(-m // K["BM"]) * -(-n // K["BN"])
    if splits == 1:
        return
    assert tiles * splits <= K["MAX_SPLIT_CTAS"]
    every, covered = -(-k // K["BK"]), []
    for y in range(splits):
        kt0, count = header_split(k, splits, y)
        assert kt0 == len(covered) and (count >= 8 or kt0 + count == every)
        covered += range(kt0, kt0 + count)
    assert covered == list(range(every))
