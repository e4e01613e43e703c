"""The `ahead` rule that sends tall products with few columns to tall32, chosen like a model and
scored on shapes it was not chosen on.

The rule is one family, `N <= n and M >= m and K >= k`: tall32 where it holds, `best`'s own
choice elsewhere. The default suite stays the regression set of the rules derived from it: a
member of the family that takes one of its shapes is not a candidate (32768x64x1024 is one:
tall32's 128x64 tiles ran it at 78% of cuBLAS against `best`'s 94%, H200,
2026-11-28-h200/tall32-variants). Each seed cuts the sample suite's shapes in two (`split_shapes`, as `gemmprof
dispatch --hold-out`); the (n, m, k) that scores best on one half (geometric mean % of cuBLAS) is
scored on the other half and on the unseen suite, which no choice saw. Then the thresholds are
chosen on every sample shape, and scored on the unseen suite. Both runs must time `tall32` and
`best` in one bench, each row paired with cuBLAS.

    python benchmarks/tall_rules.py SAMPLE_RUN UNSEEN_RUN
"""

import itertools
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from profiler.analyze.dispatch import split_shapes  # noqa: E402
from profiler.analyze.suite import geomean  # noqa: E402
from profiler.catalogue.suites import load_suite  # noqa: E402
from profiler.runs.rundir import RunDir  # noqa: E402

MAX_N = (16, 24, 32, 40, 48, 64)
MIN_M = (256, 512, 1024, 2048, 4096, 8192)
MIN_K = (1, 64, 128, 256, 512, 1024)


def per_shape(run_dir: Path) -> pd.DataFrame:
    """Shapes x {tall32, best}: % of cuBLAS."""
    bench = RunDir(run_dir).read_table("bench")
    return bench.pivot_table(index=["M", "N", "K"], columns="kernel", values="pct_of_cublas").reset_index()


def chosen(table: pd.DataFrame, n: int, m: int, k: int) -> pd.Series:
    """Per shape, % of cuBLAS with the rule ahead of `best`: tall32's where it holds, else best's."""
    takes = (table["N"] <= n) & (table["M"] >= m) & (table["K"] >= k)
    return table["tall32"].where(takes, table["best"])


def score(table: pd.DataFrame, n: int, m: int, k: int) -> float:
    """Geometric mean % of cuBLAS with the rule ahead of `best`."""
    return geomean(chosen(table, n, m, k))


def leaves_default_suite(n: int, m: int, k: int) -> bool:
    return not any(N <= n and M >= m and K >= k for M, N, K in load_suite("default"))


def fit(table: pd.DataFrame) -> tuple[int, int, int]:
    family = [p for p in itertools.product(MAX_N, MIN_M, MIN_K) if leaves_default_suite(*p)]
    return max(family, key=lambda p: (score(table, *p), -p[0], p[1], p[2]))


def main(sample_dir: Path, unseen_dir: Path) -> None:
    sample, unseen = per_shape(sample_dir), per_shape(unseen_dir)
    print(f"{len(sample)} sample shapes, {len(unseen)} unseen; `best` alone: {geomean(sample['best']):.1f}% / {geomean(unseen['best']):.1f}%")
    print("seed  rule (N <=, M >=, K >=)  derivation half  validation half (n, best alone)  unseen")
    for seed in range(3):
        derive, validate = split_shapes(sample, 0.5, seed)
        p = fit(derive)
        print(f"{seed:>4}  {str(p):<24} {score(derive, *p):15.1f}  {score(validate, *p):7.1f} ({len(validate)}, "
              f"{geomean(validate['best']):.1f})       {score(unseen, *p):.1f}")
    p = fit(sample)
    print(f"on every sample shape: sample {score(sample, *p):.1f}% (min {chosen(sample, *p).min():.1f}), "
          f"unseen {score(unseen, *p):.1f}% (min {chosen(unseen, *p).min():.1f}); as an `ahead` rule of best:")
    when = f"N <= {p[0]} and M >= {p[1]}" + (f" and K >= {p[2]}" if p[2] > 1 else "")
    print(f'    {{when = "{when}", kernel = "tall32"}},')


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
