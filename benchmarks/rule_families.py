"""The families of hand-kept dispatch rules that `threshold_rules.py` fits: for each, the region
its thresholds bound (`holds`, and `when`, the manifest's words for it), the candidates
(`thresholds`), the dispatcher it stands in front of (`fallback`), and, in the comment above it,
what it was fitted and scored on and why its kernel pays there. Each is a rule of
kernels/ladder.toml, which a test holds to the script's choice over the committed runs.

- `tall32`, `splitk64x64x8`, the three for one narrow side, the two for small products, the one
  for decode steps of 17-32 rows and the two for products of 129-512 rows are `ahead` rules of
  `best` (FP32);
- the rest but the last two are `ahead` rules of `best-fp16`, in the manifest's order of their
  kernels' families where one kernel has several (`rule`);
- `tf32x3bits` and `tf32x3sk` are rules of `best-tc`.
"""

import itertools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from profiler.catalogue.suites import load_suite  # noqa: E402

SKINNY_M = 16  # `best`'s first `ahead` rule sends M <= 16 to skinny32: the rules chosen here start above it
DECODE_M = 64  # and its decode rule M <= 64 with a wide N to splitk64x64x8
TALL_N = 40  # and tall32 takes N <= 40
SKINNY_ROWS = 64  # skinny_any's tallest tile: M <= 64 fits one tile of its rows
WITHOUT_RULE = "without its rule"  # Family.before_rule: the fallback dispatcher's choice without the family's rules
SMS = 132  # the SM count of the H100 and H200 the fitting runs came from (the manifest's rules read the GPU's)


@dataclass(frozen=True)
class Family:
    kernel: str
    fitted_on: str  # the suite of the fitting run, as the output names it
    thresholds: list[tuple[int, ...]]  # every candidate's, before `spares_default`
    holds: Callable[..., pd.Series]  # (table, *thresholds) -> where the rule holds
    when: Callable[..., str]  # the manifest's condition
    preference: Callable[..., tuple]  # among equal scores, the larger wins
    spares_default: bool = True  # no candidate may take a default-suite shape (the regression set)
    fallback: str = "best"  # the dispatcher whose rows stand where the rule does not hold
    # the kernel the fallback ran before it had this family's rule: where a fitting run's fallback
    # row ran the family's kernel (the rule is in the manifest already), this kernel's row stands
    # for the fallback, so that a rule is fitted again against the dispatcher without it; or
    # WITHOUT_RULE: per shape, the kernel the manifest's dispatcher chooses once the family's rule
    # is taken out (the run must time each such kernel)
    before_rule: str | None = None
    # the fallback's rules ahead of the family's take their shapes first (the family's rule holds
    # only where none of them does); the families fitted before those rules existed leave it off
    ahead_first: bool = False
    name: str = ""  # the family's name where the kernel has a family already (`kernel` otherwise)
    rule: int = -1  # which of the kernel's rules in the dispatcher's order is the family's

    @property
    def key(self) -> str:
        return self.name or self.kernel

    @property
    def grid(self) -> list[tuple[int, ...]]:
        if not self.spares_default:
            return self.thresholds
        default = pd.DataFrame(load_suite("default"), columns=["M", "N", "K"])
        return [p for p in self.thresholds if not self.holds(default, *p).any()]


def _tiles(table: pd.DataFrame, rows: int = 128, columns: int = 128) -> pd.Series:
    return ((table["M"] + rows - 1) // rows) * ((table["N"] + columns - 1) // columns)


def _rows(t: pd.DataFrame, lo: int, hi: int, n: int, k: int) -> pd.Series:
    """Products of lo < M <= hi rows against N >= n and K >= k (1: no bound)."""
    return (t["M"] > lo) & (t["M"] <= hi) & (t["N"] >= n) & (t["K"] >= k)


def _rows_when(lo: int, hi: int, n: int, k: int) -> str:
    """`_rows` in the manifest's words, leaving out the bounds of 1."""
    return " and ".join([f"M > {lo} and M <= {hi}"] + [f"{d} >= {v}" for d, v in (("N", n), ("K", k)) if v > 1])


def _narrow_n(t: pd.DataFrame, n: int, k: int) -> pd.Series:
    return (t["N"] > TALL_N) & (t["N"] <= n) & (t["M"] > t["N"]) & (t["K"] >= k)


def _tiny_splits(t: pd.DataFrame) -> pd.Series:
    """wmma_tinysplit's splits of K a tile (TINY_SPLITS)."""
    by_sms = (2 * SMS) // _tiles(t, 32, 32)
    return ((t["K"] + 127) // 128).clip(upper=by_sms).clip(upper=16).clip(lower=1)


def _skinny(t: pd.DataFrame) -> pd.Series:
    """The shapes best-fp16's first rule sends to skinny (M <= 64 or M <= 256 and cdiv(M, 64) *
    cdiv(N, 128) <= SMS): the rules after it never see them."""
    return (t["M"] <= SKINNY_ROWS) | ((t["M"] <= 256) & (_tiles(t, 64, 128) <= SMS))


def _odd(t: pd.DataFrame) -> pd.Series:
    """Rows TMA cannot address: N or K not a multiple of 8."""
    return (t["N"] % 8 != 0) | (t["K"] % 8 != 0)


NARROW_N = f"N > {TALL_N} and N <= {{n}} and M > N and K >= {{k}}"
TILES_256x64 = "cdiv(M, 256) * cdiv(N, 64)"
TILES_128 = "cdiv(M, 128) * cdiv(N, 128)"
TILES_128x256 = "cdiv(M, 128) * cdiv(N, 256)"
TILES_64x128 = "cdiv(M, 64) * cdiv(N, 128)"
CLUSTER_CTAS = "2 * cdiv(M, 64) * cdiv(N, 64)"  # wgmma_decode's grid
CLUSTER_CTAS_128 = "2 * cdiv(M, 128) * cdiv(N, 64)"  # wgmma_decode128's
TILES_64x64 = "cdiv(M, 64) * cdiv(N, 64)"  # wgmma_decode_fullk's grid
TILES_128x64 = "cdiv(M, 128) * cdiv(N, 64)"  # wgmma_decode128_fullk's
CLUSTER_CTAS_80 = "2 * cdiv(M, 64) * cdiv(N, 80)"  # wgmma_decode80's
CLUSTER_CTAS_128x80 = "2 * cdiv(M, 128) * cdiv(N, 80)"  # wgmma_decode128x80's
CLUSTER_CTAS_64x128 = "2 * cdiv(M, 64) * cdiv(N, 128)"  # wgmma_decode64x128's
CLUSTER_CTAS_128x128 = "2 * cdiv(M, 128) * cdiv(N, 128)"  # wgmma_decode128x128's
TILES_160x128 = "cdiv(M, 160) * cdiv(N, 128)"  # wgmma_swap160's tiles (its grid splits K over them)
TILES_32x32 = "cdiv(M, 32) * cdiv(N, 32)"  # wmma_tinysplit's tiles
SMALL_PRODUCT = 1 << 31  # the FP32 small-products sweep timed M * N * K below it
TINY_SPLITS = f"max(1, min(cdiv(K, 128), 2 * SMS // ({TILES_32x32}), 16))"  # and its splits of K, its grid's z
SMALL_M = 128  # the small-product rules start above the decode rules' rows; the fitting draw's least M is 136
PREFILL_FROM, PREFILL_M = 128, 512  # the prefill rules' rows (the prefill-llm draws'): the runs timed no others
SMALL_ROWS_N = 2048  # the small-rows draws' widest N: their rules claim no wider
SMALL_ROWS_M = 16  # and their least M: a rule that ties at any lower bound starts there
ONE_WAVE = 116  # the wide decode rules' least cluster CTAs: the fitting runs hold only steps where they fill one wave


FAMILIES = {f.key: f for f in (
    # `tall32` (an `ahead` rule of `best`), fitted on the sample suite: `N <= n and M >= m and K >=
    # k`. No member may take a shape of the default suite, the regression set of the rules derived
    # from it (32768x64x1024 would be one: tall32's 128x64 tiles ran it at 78% of cuBLAS against
    # `best`'s 94%, H200, 2026-11-28-h200/runs-b.tar.xz, tall32-variants/).
    Family("tall32", "sample",
           list(itertools.product((16, 24, 32, 40, 48, 64), (256, 512, 1024, 2048, 4096, 8192), (1, 64, 128, 256, 512, 1024))),
           lambda t, n, m, k: (t["N"] <= n) & (t["M"] >= m) & (t["K"] >= k),
           lambda n, m, k: f"N <= {n} and M >= {m}" + (f" and K >= {k}" if k > 1 else ""),
           lambda n, m, k: (-n, m, k)),
    # `splitk64x64x8` (an `ahead` rule of `best`), fitted on the sample suite: `M > 16 and M <= m and
    # N >= n and K >= k` (skinny32 takes M <= 16), decode-sized products that `best`'s derived rules send to stream-K's 128x256 tiles
    # (mostly empty rows at M <= 64); again no member may take a default-suite shape.
    Family("splitk64x64x8", "sample",
           list(itertools.product((24, 32, 48, 64, 96, 128), (1, 2048, 4096), (1, 2048, 4096))),
           lambda t, m, n, k: _rows(t, SKINNY_M, m, n, k),
           lambda m, n, k: _rows_when(SKINNY_M, m, n, k),
           lambda m, n, k: (-m, n, k)),
    # Three rules for one narrow side (41-512) and a long K, fitted on the sample suite's such shapes
    # (`bench --sizes` of them, the kernels beside `best`) and scored on the unseen suite's. They
    # cover disjoint shapes, so each is fitted alone. Where `best`'s tiles (128 rows or columns at
    # least) leave much of the narrow side empty:
    # - `splitk64x64x8rs` for M the narrow side: `M > 64 and M <= m and M % 128 != 0 and N >= M and
    #   N <= n and K >= k` (M <= 64 is the decode rule's);
    # - `splitk256x64x8rs` for N the narrow side, where its 256x64 tiles are few enough to be split
    #   and its split (at most K // 512) fills the GPU: `N > 40 and N <= n and M > N and K >= k and N
    #   % 128 != 0 and M >= m and cdiv(M, 256) * cdiv(N, 64) <= SMS and ... * min(64, K // 512) >= SMS`
    #   (tall32 takes N <= 40);
    # - `streamk64x32x8` for N the narrow side where those tiles are too many to be split: `N > 40
    #   and N <= n and M > N and K >= k and cdiv(M, 256) * cdiv(N, 64) > SMS`.
    # Among thresholds that score alike, the smallest region wins.
    Family("splitk64x64x8rs", "sample",
           list(itertools.product((128, 192, 256, 384, 512), (1024, 2048, 3072, 4096, 8192), (2048, 4096, 8192))),
           lambda t, m, n, k: ((t["M"] > DECODE_M) & (t["M"] <= m) & (t["M"] % 128 != 0) & (t["N"] >= t["M"])
                               & (t["N"] <= n) & (t["K"] >= k)),
           lambda m, n, k: f"M > {DECODE_M} and M <= {m} and M % 128 != 0 and N >= M and N <= {n} and K >= {k}",
           lambda m, n, k: (-m, -n, k), rule=0),
    Family("splitk256x64x8rs", "sample",
           list(itertools.product((64, 96, 128, 200, 256, 300), (256, 400, 512, 1024), (2048, 4096, 8192))),
           lambda t, n, m, k: (_narrow_n(t, n, k) & (t["N"] % 128 != 0) & (t["M"] >= m) & (_tiles(t, 256, 64) <= SMS)
                               & (_tiles(t, 256, 64) * (t["K"] // 512).clip(upper=64) >= SMS)),
           lambda n, m, k: (NARROW_N.format(n=n, k=k) + f" and N % 128 != 0 and M >= {m} and {TILES_256x64} <= SMS"
                            f" and {TILES_256x64} * min(64, K // 512) >= SMS"),
           lambda n, m, k: (-n, m, k)),
    Family("streamk64x32x8", "sample",
           list(itertools.product((128, 200, 256, 300, 384, 512), (2048, 4096, 8192))),
           lambda t, n, k: _narrow_n(t, n, k) & (_tiles(t, 256, 64) > SMS),
           lambda n, k: NARROW_N.format(n=n, k=k) + f" and {TILES_256x64} > SMS",
           lambda n, k: (-n, k)),
    # `splitk64x64x8rs` again for few 64x64 tiles and a long K (its second `ahead` rule of `best`,
    # the last), fitted on the sample suite's products under 2^31 multiply-adds (every strict kernel a
    # rule names, timed beside best) and scored on the unseen suite's: `K >= k and cdiv(M, 64) *
    # cdiv(N, 64) <= n and M * N * K < 2^31`. There best's derived rules choose splitk64x64x8t4 or
    # splitk64x64x8, which split K at most 64 ways: a block still walks K / 64 (18x771x15797: 59% of
    # cuBLAS on t4) where splitk64x64x8rs splits up to 256 ways over 792 blocks (88%). The runs timed
    # no larger product, so the rule claims none; the default suite's one shape it takes
    # (128x128x65536) is splitk64x64x8rs's already.
    Family("splitk64x64x8rs", "sample",
           list(itertools.product((2048, 3072, 4096, 6144, 8192, 12288, 16384), (2, 4, 8, 12, 16, 24, 32, 48, 64))),
           lambda t, k, n: (t["K"] >= k) & (_tiles(t, 64, 64) <= n) & (t["M"] * t["N"] * t["K"] < SMALL_PRODUCT),
           lambda k, n: f"K >= {k} and {TILES_64x64} <= {n} and M * N * K < {SMALL_PRODUCT}",
           lambda k, n: (k, -n), spares_default=False, ahead_first=True, name="splitk64x64x8rs-longk", rule=1),
    # `splitk32x32x8t4` (the last `ahead` rule of `best`), fitted on the sample suite's products under
    # 2^31 multiply-adds, scored on the unseen suite's: `M * N * K < q and cdiv(M, 64) * cdiv(N, 64)
    # <= n`. There best's derived rules choose splitk64x64x8t4, whose 64x64 tiles of eight warps
    # (four blocks an SM) are few and unevenly spread over the SMs (1362x925x247: 330 blocks, SMs
    # busy 70% of the launch); 32x32 tiles of two warps, sixteen blocks an SM, give four times the
    # blocks. Where the 64x64 tiles are many, each element loaded used 32 times instead of 64
    # costs more than the spread gains: the default suite, timed with the first fit (M N K < 2^29,
    # any number of tiles), lost at 64 tiles and more (512^3 97 -> 94, 768^3 101 -> 88,
    # 2048x2048x64 113 -> 107; 256^3, 16 tiles, gained 118 -> 122), so the grid stops at 48 tiles.
    Family("splitk32x32x8t4", "sample",
           list(itertools.product((1 << 26, 1 << 27, 1 << 28, 452984832, 1 << 29, 1 << 30, SMALL_PRODUCT),
                                  (8, 16, 24, 32, 40, 48))),
           lambda t, q, n: (t["M"] * t["N"] * t["K"] < q) & (_tiles(t, 64, 64) <= n),
           lambda q, n: f"M * N * K < {q} and {TILES_64x64} <= {n}",
           lambda q, n: (-q, -n), spares_default=False, ahead_first=True),
    # `splitk32x64x8t8` (an `ahead` rule of `best`, after skinny32's), fitted on the decode and
    # decode-llm suites' steps with the sample suite's products under 2^31 multiply-adds, scored on
    # their unseen draws: `M > 16 and M <= m and N >= n and K >= k`. There best's decode rule runs
    # splitk64x64x8, whose 64-row tiles leave half their rows or more empty at 17-32 rows, where the
    # 32x64 tiles of 8x4 results a thread fill them (32x11008x4096: 139% of cuBLAS against 89); past
    # 32 rows two of its tiles stack and the 64-row ones win again (33x13824x5120: 70 against 87).
    Family("splitk32x64x8t8", "decode",
           list(itertools.product((24, 32, 40, 48), (1, 512, 1024, 2048, 4096), (1, 512, 1024, 2048, 4096))),
           lambda t, m, n, k: _rows(t, SKINNY_M, m, n, k),
           lambda m, n, k: _rows_when(SKINNY_M, m, n, k),
           lambda m, n, k: (-m, n, k)),
    # Two rules for products of 129-512 rows against a wide N and a long K (LLM prefill steps and
    # projections), the last `ahead` rules of `best`, fitted on prefill-llm's steps with the sample
    # suite's such products and scored on prefill-llm-unseen's with the unseen suite's. There the
    # derived rule `min(M, N) > 128 and M * N * K >= 2^32` sends them to splitk128x256x8rs, whose
    # 128x256 tiles are too few to fill the SMs and too tall for the rows (464x5120x5120: 67% of
    # cuBLAS). Up to about 200 rows splitk64x64x8's 64x64 tiles waste fewer rows (183x4096x4096:
    # 100 against 75); above, streamk128x256x8 shares the leftover tiles over every SM (104-114).
    # - `splitk64x64x8`: `M > 128 and M <= m and N >= n and K >= k`;
    # - `streamk128x256x8`: `M > 128 and M <= 512 and N >= n and K >= k` (the runs timed no more
    #   rows), after splitk64x64x8's. It may take the default suite's 512x4096x4096 (109.6% on
    #   splitk128x256x8rs): every candidate that spares it leaves out the steps of 4096-5120 columns.
    Family("splitk64x64x8", "prefill-llm",
           list(itertools.product((144, 160, 176, 192, 208, 224, 256), (1, 1024, 2048, 4096), (1, 2048, 4096, 8192))),
           lambda t, m, n, k: _rows(t, PREFILL_FROM, m, n, k),
           lambda m, n, k: _rows_when(PREFILL_FROM, m, n, k),
           lambda m, n, k: (-m, n, k), ahead_first=True, name="splitk64x64x8-prefill", rule=1),
    Family("streamk128x256x8", "prefill-llm",
           list(itertools.product((1, 1024, 2048, 4096, 8192), (1, 1024, 2048, 4096))),
           lambda t, n, k: _rows(t, PREFILL_FROM, PREFILL_M, n, k),
           lambda n, k: _rows_when(PREFILL_FROM, PREFILL_M, n, k),
           lambda n, k: (n, k), spares_default=False, ahead_first=True, name="streamk128x256x8-prefill", rule=0),
    # `wmma_tiny` (an `ahead` rule of `best-fp16`, before its rules for N or K not a multiple of 8),
    # fitted on the sample suite's such shapes: `(N % 8 or K % 8) and K <= k and M * N * K <= p`.
    # Products of a few microseconds, where 32x32 tiles spread over many SMs beat `best-fp16`'s
    # 128-row tiles; nothing splits K there, hence the bound on K.
    Family("wmma_tiny", "sample",
           list(itertools.product((32, 64, 128, 256, 512, 1024, 2048, 4096, 8192), [1 << e for e in range(20, 31)])),
           lambda t, k, p: _odd(t) & (t["K"] <= k) & (t["M"] * t["N"] * t["K"] <= p),
           lambda k, p: f"(N % 8 or K % 8) and K <= {k} and M * N * K <= {p}",
           lambda k, p: (-k, -p), fallback="best-fp16"),
    # `wmma_tinysplit` (an `ahead` rule of `best-fp16`, before wmma_tiny's), fitted on the small-odd
    # suite (products of M 16-2048 with N or K not a multiple of 8, at most 2^31 multiply-adds) and
    # scored on small-odd-unseen: `(N % 8 or K % 8) and K >= lo and cdiv(K, S) <= d and cdiv(M, 32)
    # * cdiv(N, 32) <= h SMS / 2`, S its grid's splits. Where 32x32 tiles are too few for the SMs, K split
    # over up to 16 CTAs a tile beat skinny_any's and wmma_tiny's unsplit tiles (19x395x1568: 115%
    # against 71), until each split is thousands deep again (its 16 splits at 88x42x52971, its 2 at
    # 1910x60x5743: 65 and 68 against wgmma_stagedswap160's 94 and 85); under a K of a few hundred the
    # partials' round trip costs more than it spreads. A bound on K in place of the splits' depth
    # scored 96.2 on the fitting seeds' held-out halves (their mean) against 98.5.
    Family("wmma_tinysplit", "small-odd",
           list(itertools.product((256, 384, 512, 768), (128, 192, 256, 384, 512, 768, 1024, 1536), (1, 2, 4))),
           lambda t, lo, d, h: (_odd(t) & (t["K"] >= lo) & (-(-t["K"] // _tiny_splits(t)) <= d)
                                & (_tiles(t, 32, 32) <= h * SMS // 2)),
           lambda lo, d, h: (f"(N % 8 or K % 8) and K >= {lo} and cdiv(K, {TINY_SPLITS}) <= {d} and {TILES_32x32} <= "
                             + {1: "SMS // 2", 2: "SMS", 4: "2 * SMS"}[h]),
           lambda lo, d, h: (lo, -d, -h), spares_default=False, fallback="best-fp16", ahead_first=True, rule=0),
    # `wmma_tinysplit` again where one 32-column tile holds all of N (its second `ahead` rule of
    # `best-fp16`, after its first, before wmma_tiny's), fitted on narrow-odd (tall products of N
    # 1-64 with N or K not a multiple of 8) with small-odd and small-odd-low, scored on their unseen
    # draws: `(N % 8 or K % 8) and N <= n and K >= k and M > m`, or `K % 8 and ...` (`a_odd`).
    # There the staging rungs copy all of a tall A for a C one tile wide (23053x7x2924: 74% on
    # wgmma_staged128 against 104), and skinny_any's and wgmma_stagedswap160's tiles of 64 or 160
    # columns leave most of theirs empty; where K is a multiple of 8 TMA reads A in place and
    # wgmma_staged128 copies only B (13450x29x1392: 146 against 102). Fitted without small-odd-low
    # and without a bound on M, it took N <= 24, and 27x17x14214 from wgmma_stagedswap160's rule
    # below 65 rows; with small-odd-low (that rule's rows), N <= 16; the bound on M (the narrow
    # draws' rows start at 256) keeps both; behind rowdot's rule, K >= 512.
    Family("wmma_tinysplit", "narrow-odd",
           list(itertools.product((8, 16, 24, 32, 40, 48, 64), (256, 384, 512, 768, 1024, 1536, 2048), (False, True),
                                  (0, SKINNY_ROWS, 128, 256))),
           lambda t, n, k, a_odd, m: (((t["K"] % 8 != 0) if a_odd else _odd(t)) & (t["N"] <= n) & (t["K"] >= k)
                                      & (t["M"] > m)),
           lambda n, k, a_odd, m: (f"{'K % 8' if a_odd else '(N % 8 or K % 8)'} and N <= {n} and K >= {k}"
                                   + (f" and M > {m}" if m else "")),
           lambda n, k, a_odd, m: (-n, k, a_odd, m), fallback="best-fp16", ahead_first=True, name="wmma_tinysplit-narrow",
           rule=1),
    # `rowdot` (an `ahead` rule of `best-fp16`, before wmma_tinysplit's), fitted on narrow-odd and
    # scored on narrow-odd-unseen: `(N % 8 or K % 8) and N <= n and K >= k and M > m`. A C of a few
    # columns is a GEMV: A's one pass is the cost, and rowdot streams it at any row pitch where the
    # 32-column tiles of wmma_tinysplit multiply zeros in all but N of them (1865x1x38686: 41% of
    # cuBLAS on it). The draws hold no such product below 256 rows, hence the bound on M.
    Family("rowdot", "narrow-odd",
           list(itertools.product((1, 2, 3, 4, 6, 8), (16, 256, 512, 1024, 2048, 4096, 8192), (0, 256))),
           lambda t, n, k, m: _odd(t) & (t["N"] <= n) & (t["K"] >= k) & (t["M"] > m),
           lambda n, k, m: (f"(N % 8 or K % 8) and N <= {n}" + (f" and K >= {k}" if k > 16 else "")
                            + (f" and M > {m}" if m else "")),
           lambda n, k, m: (-n, k, m), fallback="best-fp16", ahead_first=True, rule=0),
    # `wmma_stream` (an `ahead` rule of `best-fp16`, before wmma_tiny's), fitted on the sample suite's
    # shapes with N or K not a multiple of 8 and K <= 1024 with the sectors suite's (N a multiple of 8,
    # K odd), scored on unseen's with sectors-unseen's: `(N % 8 or K % 8) and K <= k and M * N >= q
    # and N >= n`, or `N % 8 and ...`. Where K is short, the cost is C's traffic: 64x128 tiles
    # streaming C through shared memory beat the staging rungs and wmma_tiny's 32x32 tiles where C is
    # large, but where N is a multiple of 8 wgmma_stagedstore's copy of A and TMA stores ran 2.3-2.6x
    # as fast (2507x7320x353); a narrow N leaves most of the 128 columns empty. Fitted on the sample
    # alone (it holds one shape with N a multiple of 8, 1035x336x210, where wmma_stream beat wmma_tiny),
    # the rule took K odd at any N, and lost those sectors shapes.
    Family("wmma_stream", "sample",
           list(itertools.product((32, 64, 96, 128, 192, 256, 384, 512, 1024), [1 << e for e in range(14, 27)],
                                  (1, 32, 64, 128), (False, True))),
           lambda t, k, q, n, odd_n: ((t["N"] % 8 != 0) if odd_n else _odd(t)) & (t["K"] <= k) & (t["M"] * t["N"] >= q)
                                     & (t["N"] >= n),
           lambda k, q, n, odd_n: (f"{'N % 8' if odd_n else '(N % 8 or K % 8)'} and K <= {k} and M * N >= {q}"
                                   + (f" and N >= {n}" if n > 1 else "")),
           lambda k, q, n, odd_n: (-k, q, n, odd_n), fallback="best-fp16", before_rule=WITHOUT_RULE),
    # `wgmma_stagedsplit128` (an `ahead` rule of `best-fp16`, after wmma_tiny's, before skinny_any's),
    # fitted on the sample suite's shapes with N or K not a multiple of 8, at most SMS tiles of 128x128
    # and K >= 512: `(N % 8 or K % 8) and M >= m and cdiv(M, 128) * cdiv(N, 128) >= t and ... <= SMS
    # and K >= k`. K split over the copies pays where the tiles are enough to spread the splits over
    # the SMs (few tiles: few CTAs, one of which sums up to 16 partials) and K long enough for the
    # copy and the partials; M above skinny_any's tallest tile (64) at least, and at most SMS tiles,
    # past which it splits nothing (wgmma_staged128's grid). The first version of this family also
    # chose the upper bound on the tiles and M's threshold: its choices on three seeds' halves lost to
    # `best-fp16` alone on two of them.
    Family("wgmma_stagedsplit128", "sample",
           list(itertools.product((1, 4, 8, 12, 16, 24, 32), (1024, 2048, 4096, 8192, 16384), (SKINNY_ROWS + 1, 129))),
           lambda t, lo, k, m: _odd(t) & (_tiles(t) >= lo) & (_tiles(t) <= SMS) & (t["K"] >= k) & (t["M"] >= m),
           lambda lo, k, m: f"(N % 8 or K % 8) and M >= {m} and {TILES_128} >= {lo} and {TILES_128} <= SMS and K >= {k}",
           lambda lo, k, m: (lo, k, m), fallback="best-fp16"),
    # `wgmma_splitk128` (the last `ahead` rule of `best-fp16`), fitted on the default suite (`sample`
    # holds no aligned shape there that `skinny` does not take): `M >= m and cdiv(M, 128) * cdiv(N,
    # 256) <= SMS // d and K >= k`, shapes outside skinny's rule. Where the derived rules' 128x256 tiles
    # leave half the SMs idle, 128x128 tiles with K split fill them.
    Family("wgmma_splitk128", "default",
           list(itertools.product((1, 2, 3, 4), (1024, 2048, 4096, 8192), (SKINNY_ROWS + 1, 129, 257))),
           lambda t, d, k, m: (~_skinny(t) & (t["M"] >= m) & (_tiles(t, 128, 256) <= SMS // d) & (t["K"] >= k)),
           lambda d, k, m: f"M >= {m} and {TILES_128x256} <= SMS{f' // {d}' if d > 1 else ''} and K >= {k}",
           lambda d, k, m: (d, k, m), spares_default=False, fallback="best-fp16"),
    # `wgmma_stagedstore` (an `ahead` rule of `best-fp16`, after the few-tile rules for N or K not a
    # multiple of 8), fitted on the sectors suite (FP16 rows that TMA reads in place or that it copies
    # for K odd, not whole 32-byte sectors, N a multiple of 8) and scored on sectors-unseen:
    # `N % 8 == 0 and (N % 16 or K % 16) and M >= m and M * N * K >= p and cdiv(M, 128) * cdiv(N,
    # 256) >= SMS // d`. Copying such operands to whole lines costs a read and a write of each; it
    # pays where the product is long enough to repay them and the 128x256 tiles fill the GPU.
    Family("wgmma_stagedstore", "sectors",
           list(itertools.product((257, 1024, 2048), [1 << e for e in range(31, 38)], (0, 4, 2, 1))),
           lambda t, m, p, d: ((t["N"] % 8 == 0) & ((t["N"] % 16 != 0) | (t["K"] % 16 != 0)) & (t["M"] >= m)
                               & (t["M"] * t["N"] * t["K"] >= p) & (_tiles(t, 128, 256) >= (SMS // d if d else 0))),
           lambda m, p, d: (f"N % 8 == 0 and (N % 16 or K % 16) and M >= {m} and M * N * K >= {p}"
                            + (f" and {TILES_128x256} >= SMS{f' // {d}' if d > 1 else ''}" if d else "")),
           lambda m, p, d: (m, p, SMS // d if d else 0), spares_default=False, fallback="best-fp16"),
    # `wgmma_swap64` (an `ahead` rule of `best-fp16`, after the decode rules', before skinny's),
    # fitted on decode-llm-rows (M 33-128) and scored on decode-llm-mid-unseen (M 33-64), runs that
    # time skinny beside it: `M > lo and M <= hi and cdiv(M, 64) * cdiv(N, 128) <= SMS and N * K >=
    # p`, where the decode rules ahead take none of the shape (`ahead_first`). The swapped operands
    # pay where M fills much of wgmma's 64-wide N, the row tiles are few enough for K to be split over
    # the SMs, and B is long enough to stream at rate (33-48x11008x4096: 92-94% against skinny's 80);
    # below, skinny's tiles as tall as M. First fitted on the sample suite's decode shapes, before the
    # decode rules, whose runs timed no skinny: from 49 rows there.
    Family("wgmma_swap64", "decode-llm-rows",
           list(itertools.product((16, 32, 48, 64), (64, 128, 256),
                                  sorted({1 << e for e in range(22, 30)} | {3 << e for e in range(21, 28)}))),
           lambda t, lo, hi, p: ((t["M"] > lo) & (t["M"] <= hi) & (_tiles(t, 64, 128) <= SMS)
                                 & (t["N"] * t["K"] >= p)),
           lambda lo, hi, p: f"M > {lo} and M <= {hi} and {TILES_64x128} <= SMS and N * K >= {p}",
           lambda lo, hi, p: (lo, -hi, p), fallback="best-fp16", before_rule=WITHOUT_RULE, ahead_first=True, rule=0),
    # `wgmma_decode` (the first `ahead` rule of `best-fp16`, before wgmma_swap64's), fitted on the
    # decode-llm suite (LLM decode steps drawn for it: M 1-128 against 7B-70B weights) with the steps
    # of M <= 64 of decode-llm-rows (drawn as decode-llm, M 33-128; the fitting runs are joined by a
    # comma) and scored on decode-llm-unseen with decode-llm-mid-unseen (drawn as they are, other
    # seeds, M 1-128 and 33-64): `M > lo and M <= hi and CTAS <= SMS and CTAS >= c`, CTAS = 2 *
    # cdiv(M, 64) * cdiv(N, 64) (its grid: one CTA an SM, K split in two only). Where the fitting
    # runs' `best-fp16` already took the rule, the row of what it chooses without the rule stands for
    # it (WITHOUT_RULE: those runs time skinny and wgmma_swap64 too).
    # It pays where its clusters fill most of one wave; elsewhere skinny's splits, as many as the SMs
    # take, stream B faster. On decode steps of any N and K (the decode and decode-unseen suites) few
    # shapes fall where it pays, and no seed's choice beat `best-fp16` on its held-out half.
    Family("wgmma_decode", "decode-llm",
           list(itertools.product((0, 4, 8, 16, 24, 32), (32, 48, 64, 128), (1, 33, 66, 99, 116))),
           lambda t, lo, hi, c: ((t["M"] > lo) & (t["M"] <= hi) & (2 * _tiles(t, 64, 64) <= SMS)
                                 & (2 * _tiles(t, 64, 64) >= c)),
           lambda lo, hi, c: (f"M > {lo} and M <= {hi} and {CLUSTER_CTAS} <= SMS"
                              + (f" and {CLUSTER_CTAS} >= {c}" if c > 1 else "")),
           lambda lo, hi, c: (lo, -hi, c), spares_default=False, fallback="best-fp16", before_rule=WITHOUT_RULE),
    # `wgmma_decode128` (`wgmma_decode` built with two 64-row halves a tile; an `ahead` rule of
    # `best-fp16` after wgmma_decode's), fitted on decode-llm-rows with decode-llm-tail (M 113-128,
    # where the first draw held no shape it can take) and scored on decode-llm-rows-unseen with
    # decode-llm-tail-unseen (other seeds): `M > 64 and M <= hi and CTAS <= SMS and CTAS >= c and K <=
    # k`, CTAS = 2 * cdiv(M, 128) * cdiv(N, 64). Past 64 rows it reads B once where wgmma_decode's
    # second row of tiles makes two waves; at a long K wgmma_swap64's splits keep pace.
    Family("wgmma_decode128", "decode-llm-rows",
           list(itertools.product((80, 96, 112, 128), (1, 66, 99, 116), (4096, 8192, 16384, 32768))),
           lambda t, hi, c, k: ((t["M"] > DECODE_M) & (t["M"] <= hi) & (2 * _tiles(t, 128, 64) <= SMS)
                                & (2 * _tiles(t, 128, 64) >= c) & (t["K"] <= k)),
           lambda hi, c, k: (f"M > {DECODE_M} and M <= {hi} and {CLUSTER_CTAS_128} <= SMS"
                             + (f" and {CLUSTER_CTAS_128} >= {c}" if c > 1 else "") + f" and K <= {k}"),
           lambda hi, c, k: (-hi, c, k), spares_default=False, fallback="best-fp16"),
    # `wgmma_decode_fullk` (`wgmma_decode` built without its K split; an `ahead` rule of `best-fp16`
    # after wgmma_decode128's), fitted and scored as wgmma_decode: `M > lo and M <= 64 and TILES <=
    # SMS and TILES >= c and K <= k`, TILES = cdiv(M, 64) * cdiv(N, 64). Where N of about 8192 makes
    # a tile for nearly every SM, the cluster's split only makes two waves.
    Family("wgmma_decode_fullk", "decode-llm",
           list(itertools.product((0, 4, 8, 16, 24, 32, 40), (1, 99, 116), (8192, 16384, 32768))),
           lambda t, lo, c, k: ((t["M"] > lo) & (t["M"] <= DECODE_M) & (_tiles(t, 64, 64) <= SMS)
                                & (_tiles(t, 64, 64) >= c) & (t["K"] <= k)),
           lambda lo, c, k: (f"M > {lo} and M <= {DECODE_M} and {TILES_64x64} <= SMS"
                             + (f" and {TILES_64x64} >= {c}" if c > 1 else "") + f" and K <= {k}"),
           lambda lo, c, k: (lo, c, -k), spares_default=False, fallback="best-fp16", before_rule=WITHOUT_RULE, rule=0),
    # `wgmma_decode80` and `wgmma_decode128x80` (`wgmma_decode` and `wgmma_decode128` built at 80
    # columns a CTA; `ahead` rules of `best-fp16` after wgmma_decode_fullk's): `M > lo and M <= 64 and
    # CTAS <= SMS and CTAS >= c and K <= k`, CTAS = 2 * cdiv(M, 64) * cdiv(N, 80), fitted and scored
    # as wgmma_decode; and `M > 64 and M <= hi and ...`, CTAS = 2 * cdiv(M, 128) * cdiv(N, 80),
    # fitted on decode-llm with decode-llm-rows and scored on the three unseen LLM draws
    # (decode-llm-unseen, decode-llm-mid-unseen, decode-llm-rows-unseen). Where N of about 5120
    # makes 80 tiles of 64 columns (two waves with the cluster's split), 64 of 80 fill one.
    Family("wgmma_decode80", "decode-llm",
           list(itertools.product((0, 4, 8, 16, 24, 32, 40), (1, 99, 116), (8192, 16384, 32768))),
           lambda t, lo, c, k: ((t["M"] > lo) & (t["M"] <= DECODE_M) & (2 * _tiles(t, 64, 80) <= SMS)
                                & (2 * _tiles(t, 64, 80) >= c) & (t["K"] <= k)),
           lambda lo, c, k: (f"M > {lo} and M <= {DECODE_M} and {CLUSTER_CTAS_80} <= SMS"
                             + (f" and {CLUSTER_CTAS_80} >= {c}" if c > 1 else "") + f" and K <= {k}"),
           lambda lo, c, k: (lo, c, -k), spares_default=False, fallback="best-fp16", before_rule=WITHOUT_RULE),
    Family("wgmma_decode128x80", "decode-llm",
           list(itertools.product((80, 96, 112, 128), (1, 66, 99, 116), (8192, 16384, 32768))),
           lambda t, hi, c, k: ((t["M"] > DECODE_M) & (t["M"] <= hi) & (2 * _tiles(t, 128, 80) <= SMS)
                                & (2 * _tiles(t, 128, 80) >= c) & (t["K"] <= k)),
           lambda hi, c, k: (f"M > {DECODE_M} and M <= {hi} and {CLUSTER_CTAS_128x80} <= SMS"
                             + (f" and {CLUSTER_CTAS_128x80} >= {c}" if c > 1 else "") + f" and K <= {k}"),
           lambda hi, c, k: (-hi, c, -k), spares_default=False, fallback="best-fp16"),
    # `wgmma_decode64x128` and `wgmma_decode128x128` (`wgmma_decode` and `wgmma_decode128` built at 128
    # columns a CTA; `ahead` rules of `best-fp16` after wgmma_decode128's): `M > lo and M <= 64 and
    # CTAS <= SMS and CTAS >= 116 and K <= k`, CTAS = 2 * cdiv(M, 64) * cdiv(N, 128), and `M > 64 and
    # M <= hi and ...`, CTAS = 2 * cdiv(M, 128) * cdiv(N, 128). Where N of about 8192 makes 64 tiles
    # of 128 columns, the cluster's split fills one wave with half the TMA boxes a byte. Fitted on the
    # N = 8192 steps of decode-llm and decode-llm-rows (and on decode-llm-top, M 97-128) and scored on
    # those of the unseen LLM draws (and on decode-llm-top-unseen): those runs time only the steps
    # where the clusters fill one wave, so the least CTAS is not chosen (116, as for the rules above).
    Family("wgmma_decode64x128", "decode-llm",
           list(itertools.product((0, 4, 8, 16, 24, 32, 40), (8192, 16384, 32768))),
           lambda t, lo, k: ((t["M"] > lo) & (t["M"] <= DECODE_M) & (2 * _tiles(t, 64, 128) <= SMS)
                             & (2 * _tiles(t, 64, 128) >= ONE_WAVE) & (t["K"] <= k)),
           lambda lo, k: (f"M > {lo} and M <= {DECODE_M} and {CLUSTER_CTAS_64x128} <= SMS and {CLUSTER_CTAS_64x128} >= "
                          f"{ONE_WAVE} and K <= {k}"),
           lambda lo, k: (lo, -k), spares_default=False, fallback="best-fp16", before_rule=WITHOUT_RULE),
    Family("wgmma_decode128x128", "decode-llm-rows",
           list(itertools.product((80, 96, 112, 128), (8192, 16384, 32768))),
           lambda t, hi, k: ((t["M"] > DECODE_M) & (t["M"] <= hi) & (2 * _tiles(t, 128, 128) <= SMS)
                             & (2 * _tiles(t, 128, 128) >= ONE_WAVE) & (t["K"] <= k)),
           lambda hi, k: (f"M > {DECODE_M} and M <= {hi} and {CLUSTER_CTAS_128x128} <= SMS and {CLUSTER_CTAS_128x128} >= "
                          f"{ONE_WAVE} and K <= {k}"),
           lambda hi, k: (-hi, -k), spares_default=False, fallback="best-fp16", before_rule=WITHOUT_RULE),
    # `wgmma_stagedswap160` (an `ahead` rule of `best-fp16`, after the few-tile rules for N or K not a
    # multiple of 8, before wgmma_stagedsplit128's), fitted on the sample suite's shapes with N or K not
    # a multiple of 8, K >= 1024 and at most SMS tiles of 160x128, with four of the sectors suites'
    # shapes the first rule took (three lost to the kernels before it, found in its timing run: so
    # they joined the fitting set), and scored on the unseen suite's such shapes: `(N % 8 or K % 8)
    # and M > m and M <= mh and K >= k and cdiv(M, 160) * cdiv(N, 128) <= SMS // d`. The copies
    # and m64n160 tiles with K split over the SMs pay where M is more than a decode step's and the
    # tiles are few; from 2048 rows, or past half the SMs' tiles, the 128-row copies stream as fast.
    # Fitted before wmma_tinysplit's rule for tall products of N <= 24, which takes three of its
    # fitting shapes (4784x20x3069, 12217x16x24971, 20498x19x1661), so the rules ahead of it are left
    # off: without those three, its thresholds' and those with no bound on M and a quarter of the
    # SMs' tiles part by 0.04 points (105.69 against 105.73; 112.1 against 110.1 on unseen).
    Family("wgmma_stagedswap160", "sample",
           list(itertools.product((32, 64, 96, 128), (1024, 2048, 4096, 65536), (1024, 2048, 3072, 4096, 6144, 8192),
                                  (1, 2, 4))),
           lambda t, m, mh, k, d: (_odd(t) & (t["M"] > m) & (t["M"] <= mh) & (t["K"] >= k)
                                   & (_tiles(t, 160, 128) <= SMS // d)),
           lambda m, mh, k, d: (f"(N % 8 or K % 8) and M > {m}" + (f" and M <= {mh}" if mh < 65536 else "")
                                + f" and K >= {k} and {TILES_160x128} <= SMS" + (f" // {d}" if d > 1 else "")),
           lambda m, mh, k, d: (m, -mh, k, d), spares_default=False, fallback="best-fp16", before_rule=WITHOUT_RULE),
    # `wgmma_stagedswap160` below its rule's 65 rows, where N is narrow and K long, fitted on
    # small-odd-low (odd products of M 16-64), scored on small-odd-low-unseen (an `ahead` rule of
    # `best-fp16` before wgmma_stagedswap160's first, after wmma_tinysplit's, which takes the splits
    # of at most 768 columns of K). There `skinny_any`'s tiles as tall as M split K over few CTAs
    # (43x90x31872: 45% against 70); at M <= 24 and N of about 20 its copies cost more than they
    # save (20x23x63174: 62 against 71).
    Family("wgmma_stagedswap160", "small-odd-low",
           list(itertools.product((0, 16, 24, 32), (64, 128, 256, 512, 1024, 2048), (2048, 4096, 8192, 16384))),
           lambda t, lo, n, k: _odd(t) & (t["M"] > lo) & (t["M"] <= SKINNY_ROWS) & (t["N"] <= n) & (t["K"] >= k),
           lambda lo, n, k: f"(N % 8 or K % 8) and M > {lo} and M <= {SKINNY_ROWS} and N <= {n} and K >= {k}",
           lambda lo, n, k: (lo, -n, k), spares_default=False, fallback="best-fp16", ahead_first=True,
           name="wgmma_stagedswap160-low", rule=0),
    # `wgmma_tmastore` for LLM steps of 129-m rows whose 64x64 tiles number more than d SMS (an
    # `ahead` rule of `best-fp16`, its last), fitted on prefill-llm, scored on prefill-llm-unseen:
    # `M > 128 and M <= m and cdiv(M, 64) * cdiv(N, 64) > d * SMS`. The derived rules, chosen on the
    # default suite's squares and projections, send such steps to wgmma_tmastore_deep, whose deeper
    # ring ran them 1-5 points slower (380x11008x4096: 103.8 against 108.3; why is not measured).
    Family("wgmma_tmastore", "prefill-llm",
           list(itertools.product((256, 384, 512, 768), (2, 3, 4))),
           lambda t, m, d: (t["M"] > SMALL_M) & (t["M"] <= m) & (_tiles(t, 64, 64) > d * SMS),
           lambda m, d: f"M > {SMALL_M} and M <= {m} and {TILES_64x64} > {d} * SMS",
           lambda m, d: (-m, d), fallback="best-fp16", ahead_first=True, name="wgmma_tmastore-prefill", rule=0),
    # Three rules for small aligned products past 128 rows (`ahead` rules of `best-fp16`, before
    # skinny's, in this order), each fitted alone on the small-products suite (M, N 129-2048, K
    # 129-65536, at most 2^33 multiply-adds) and scored on small-products-unseen (another seed), where
    # `best-fp16`'s large tiles leave most SMs idle:
    # - `wgmma_swap160-long`: `M > 128 and N <= n and K >= k and cdiv(M, 160) * cdiv(N, 128) <= SMS //
    #   d`. A small C over a long K: few tiles, each split over many SMs and its partials summed by
    #   every split (m64n160 reads B once for 160 rows of A).
    # - `wgmma_decode_fullk-short`: `M > 128 and K <= k and cdiv(M, 64) * cdiv(N, 64) <= SMS and ... >=
    #   c`. A short K: 64x64 tiles over the whole K, as many CTAs as the tiles, none split.
    # - `wgmma_decode128_fullk-short`: `M > 128 and K <= k and cdiv(M, 64) * cdiv(N, 64) > SMS and
    #   cdiv(M, 128) * cdiv(N, 64) <= SMS // d`, where the 64x64 tiles would make two waves and 128x64
    #   tiles make one.
    # Their regions meet only where K is 2048-3072 (the first rule, ahead, takes those).
    Family("wgmma_swap160", "small-products",
           list(itertools.product((1024, 2048), (1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384), (1, 2, 4, 8))),
           lambda t, n, k, d: ((t["M"] > SMALL_M) & (t["N"] <= n) & (t["K"] >= k) & (_tiles(t, 160, 128) <= SMS // d)),
           lambda n, k, d: f"M > {SMALL_M} and N <= {n} and K >= {k} and {TILES_160x128} <= SMS{f' // {d}' if d > 1 else ''}",
           lambda n, k, d: (-n, k, d), spares_default=False, fallback="best-fp16", name="wgmma_swap160-long"),
    Family("wgmma_decode_fullk", "small-products",
           list(itertools.product((256, 384, 512, 768, 1024, 1536, 2048, 3072), (1, 8, 16, 32, 64))),
           lambda t, k, c: ((t["M"] > SMALL_M) & (t["K"] <= k) & (_tiles(t, 64, 64) <= SMS) & (_tiles(t, 64, 64) >= c)),
           lambda k, c: (f"M > {SMALL_M} and K <= {k} and {TILES_64x64} <= SMS"
                         + (f" and {TILES_64x64} >= {c}" if c > 1 else "")),
           lambda k, c: (-k, c), spares_default=False, fallback="best-fp16", name="wgmma_decode_fullk-short", rule=1),
    Family("wgmma_decode128_fullk", "small-products",
           list(itertools.product((256, 384, 512, 768, 1024, 1536, 2048, 3072), (1, 2))),
           lambda t, k, d: ((t["M"] > SMALL_M) & (t["K"] <= k) & (_tiles(t, 64, 64) > SMS)
                            & (_tiles(t, 128, 64) <= SMS // d)),
           lambda k, d: (f"M > {SMALL_M} and K <= {k} and {TILES_64x64} > SMS and {TILES_128x64} <= SMS"
                         + (f" // {d}" if d > 1 else "")),
           lambda k, d: (-k, d), spares_default=False, fallback="best-fp16", name="wgmma_decode128_fullk-short", rule=1),
    # Three rules for small aligned products of 16-128 rows (`ahead` rules of `best-fp16`, after the
    # small-product rules, before skinny's, in this order), fitted one after another on the small-rows
    # suite (M 16-128, N 129-2048, K 129-65536) and scored on small-rows-unseen, each with the ones
    # before it in the manifest (`ahead_first`); skinny's tiles as tall as M split a long K over few
    # CTAs of a narrow N, and a short K not at all:
    # - `wgmma_swap160-rows`: `M > m and M <= 128 and N <= 2048 and K >= k`. A long K: m64n160
    #   tiles over the swapped operands, K split over the SMs (30x168x24720: 82% against skinny's 33);
    # - `wgmma_swap64-rows`: `M > lo and M <= 128 and N <= 2048 and K >= k`. Shorter K or fewer rows:
    #   m64n64 tiles, so more of them (39x248x2616: 100 against 76);
    # - `wgmma_decode_fullk-rows`: `M > lo and M <= 128 and N <= 2048 and K <= k`. A short K: 64x64
    #   tiles over the whole K, as many CTAs as the tiles (84x320x576: 75 against 56).
    # No rule claims a wider N than the draws hold.
    Family("wgmma_swap160", "small-rows",
           list(itertools.product((16, 24, 32, 40, 48, 64, 96), (4096, 8192, 12288, 16384, 24576))),
           lambda t, m, k: (t["M"] > m) & (t["M"] <= SMALL_M) & (t["N"] <= SMALL_ROWS_N) & (t["K"] >= k),
           lambda m, k: f"M > {m} and M <= {SMALL_M} and N <= {SMALL_ROWS_N} and K >= {k}",
           lambda m, k: (m, k), spares_default=False, fallback="best-fp16", ahead_first=True,
           name="wgmma_swap160-rows", rule=1),
    Family("wgmma_swap64", "small-rows",
           list(itertools.product((0, SMALL_ROWS_M - 1, 16, 24, 32), (1024, 1536, 2048, 3072, 4096, 6144))),
           lambda t, lo, k: (t["M"] > lo) & (t["M"] <= SMALL_M) & (t["N"] <= SMALL_ROWS_N) & (t["K"] >= k),
           lambda lo, k: f"M > {lo} and M <= {SMALL_M} and N <= {SMALL_ROWS_N} and K >= {k}",
           lambda lo, k: (lo, k), spares_default=False, fallback="best-fp16", ahead_first=True,
           name="wgmma_swap64-rows", rule=1),
    Family("wgmma_decode_fullk", "small-rows",
           list(itertools.product((0, 16, 24, 32, 40, 48), (256, 384, 512, 768, 1024, 1536, 2048))),
           lambda t, lo, k: (t["M"] > lo) & (t["M"] <= SMALL_M) & (t["N"] <= SMALL_ROWS_N) & (t["K"] <= k),
           lambda lo, k: f"M > {lo} and M <= {SMALL_M} and N <= {SMALL_ROWS_N} and K <= {k}",
           lambda lo, k: (lo, -k), spares_default=False, fallback="best-fp16", ahead_first=True,
           name="wgmma_decode_fullk-rows", rule=2),
    # `tf32x3bits` (the first rule of `best-tc`, before `best`), fitted on the default suite:
    # `cdiv(M, 128) * cdiv(N, 128) >= t and K >= k`. 3xTF32 does three tensor-core products per FP32
    # product: it pays where its 128x128 tiles fill the GPU and K is long enough to hide their start.
    Family("tf32x3bits", "default",
           list(itertools.product((16, 32, 48, 64, 96, 128, 192, 256), (64, 128, 256, 512, 1024, 2048))),
           lambda t, tiles, k: (_tiles(t) >= tiles) & (t["K"] >= k),
           lambda tiles, k: f"cdiv(M, 128) * cdiv(N, 128) >= {tiles} and K >= {k}",
           lambda tiles, k: (tiles, k), spares_default=False),  # fitted on the default suite itself
    # `tf32x3sk` (a rule of `best-tc` ahead of tf32x3bits', the fallback `best-tc` as it was), fitted
    # on the default suite: `lo <= cdiv(M, 128) * cdiv(N, 128) <= hi and K >= k`. Split K pays where
    # few tiles leave SMs idle and K is long; one tile split 132 ways waits on its slowest split.
    Family("tf32x3sk", "default",
           list(itertools.product((1, 2, 4, 8, 16), (16, 32, 48, 64, 66), (512, 1024, 2048, 4096, 8192, 16384))),
           lambda t, lo, hi, k: (_tiles(t) >= lo) & (_tiles(t) <= hi) & (t["K"] >= k),
           lambda lo, hi, k: f"cdiv(M, 128) * cdiv(N, 128) >= {lo} and cdiv(M, 128) * cdiv(N, 128) <= {hi} and K >= {k}",
           lambda lo, hi, k: (lo, -hi, k), spares_default=False, fallback="best-tc"),
)}
