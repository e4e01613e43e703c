"""The rule of `best-tc` (the fp32-tc tier's dispatcher): where the 3xTF32 rung `tf32x3bits` runs,
and where `best` (strict FP32) answers instead, chosen like a model and scored on shapes it was
not chosen on.

The rule is one family, `cdiv(M, 128) * cdiv(N, 128) >= t and K >= k`: tf32x3bits where it holds
(and its contract takes the shape), `best`'s choice elsewhere. 3xTF32 does three tensor-core
products per FP32 product: it pays where its 128x128 tiles fill the GPU and K is long enough to
hide their start. Each seed cuts the default suite's shapes in two (`split_shapes`, as `gemmprof
dispatch --hold-out`); the (t, k) that scores best on one half (geometric mean % of strict cuBLAS)
is scored on the other half and on the unseen suite, which no choice saw. Then (t, k) is chosen on
every default-suite shape, and scored on the unseen suite. Each run must time `tf32x3bits` and
`best`, each row paired with cuBLAS in the same run.

    python benchmarks/tc_rules.py DEFAULT_RUN [UNSEEN_RUN]
"""

import itertools
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from profiler.analyze.dispatch import split_shapes  # noqa: E402
from profiler.analyze.suite import geomean  # noqa: E402
from profiler.runs.rundir import RunDir  # noqa: E402

MIN_TILES = (16, 32, 48, 64, 96, 128, 192, 256)
MIN_K = (64, 128, 256, 512, 1024, 2048)
TC, FP32 = "tf32x3bits", "best"


def per_shape(run_dir: Path) -> pd.DataFrame:
    """Shapes x {tf32x3bits, best}: % of strict cuBLAS (NaN where tf32x3bits did not run)."""
    bench = RunDir(run_dir).read_table("bench")
    bench = bench[bench["kernel"].isin([TC, FP32]) & (bench["status"] == "PASS")]
    return bench.pivot_table(index=["M", "N", "K"], columns="kernel", values="pct_of_cublas").reset_index()


def chosen(table: pd.DataFrame, t: int, k: int) -> pd.Series:
    """Per shape, % of cuBLAS under the rule: tf32x3bits's where it holds and it ran, else best's."""
    tiles = ((table["M"] + 127) // 128) * ((table["N"] + 127) // 128)
    takes = (tiles >= t) & (table["K"] >= k) & table[TC].notna()
    return table[TC].where(takes, table[FP32])


def score(table: pd.DataFrame, t: int, k: int) -> float:
    return geomean(chosen(table, t, k))


def fit(table: pd.DataFrame) -> tuple[int, int]:
    """The best (t, k); among equals, the one that sends fewest shapes to tensor cores."""
    return max(itertools.product(MIN_TILES, MIN_K), key=lambda p: (round(score(table, *p), 6), p[0], p[1]))


def main(default_run: str, unseen_run: str | None = None) -> None:
    default = per_shape(Path(default_run))
    unseen = per_shape(Path(unseen_run)) if unseen_run else None
    print(f"default suite: {len(default)} shapes; tf32x3bits alone {geomean(default[TC].dropna()):.1f}% "
          f"(where it runs), best alone {geomean(default[FP32]):.1f}%")
    for seed in range(3):
        derive, held = split_shapes(default, 0.5, seed)
        t, k = fit(derive)
        line = (f"seed {seed}: t={t} k={k} chosen on {len(derive)} shapes; held-out half ({len(held)}) "
                f"{score(held, t, k):.1f}% (best alone {geomean(held[FP32]):.1f}%)")
        if unseen is not None:
            line += f"; unseen {score(unseen, t, k):.1f}%"
        print(line)
    t, k = fit(default)
    chosen_all = chosen(default, t, k)
    print(f"chosen on every default shape: cdiv(M, 128) * cdiv(N, 128) >= {t} and K >= {k}: "
          f"{geomean(chosen_all):.1f}% geomean, min {chosen_all.min():.1f}%")
    if unseen is not None:
        on_unseen = chosen(unseen, t, k)
        print(f"unseen suite ({len(unseen)} shapes): {geomean(on_unseen):.1f}% geomean, min {on_unseen.min():.1f}% "
              f"(best alone {geomean(unseen[FP32]):.1f}%)")


if __name__ == "__main__":
    main(*sys.argv[1:])
