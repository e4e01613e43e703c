"""The hand-kept dispatch rules that send shapes to one kernel instead of a dispatcher's own
choice, each chosen like a model and scored on shapes it was not chosen on.

A family is one rule with thresholds: the kernel where it holds (and the kernel ran the shape),
the fallback's row elsewhere. Each seed cuts the fitting run's shapes in two (`split_shapes`, as
`gemmprof dispatch --hold-out`); the thresholds that score best on one half (geometric mean % of
cuBLAS) are scored on the other half and on the validation run, which no choice saw. Then they
are chosen on every shape of the fitting run, scored on the validation run, and printed as the
manifest's rule. Each run must time the kernel and the fallback in one bench, every row paired
with cuBLAS; where the bench's time limit cut the fallback's rows, those of the kernel it chooses
stand in, where the run timed it.

The families, the regions they bound and why, are in `rule_families.py`; the runs each was
fitted and scored on, in tests/project/test_benchmarks.py.

    python benchmarks/threshold_rules.py FAMILY FIT_RUN[,FIT_RUN...] VALIDATION_RUN[,VALIDATION_RUN...]
    python benchmarks/threshold_rules.py wgmma_swap160-rows small-rows/small-rows small-rows/small-rows-unseen-validation
"""

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from profiler.analyze.dispatch import split_shapes  # noqa: E402
from profiler.analyze.suite import geomean  # noqa: E402
from profiler.runs.rundir import RunDir  # noqa: E402
from rule_families import FAMILIES, SMS, WITHOUT_RULE, Family  # noqa: E402


def family_rule(family: Family):
    """(the manifest's `family.fallback` dispatcher, the index of the family's rule in its order,
    the manifest's kernels by name)."""
    from profiler.catalogue.dispatchers import load_dispatchers
    from profiler.catalogue.manifest import load_manifest

    d = next(d for d in load_dispatchers() if d.name == family.fallback)
    own = [i for i, r in enumerate(d.ordered) if r.kernel == family.kernel][family.rule]
    return d, own, {s.name: s for s in load_manifest()}


def chooser(family: Family, keeps: Callable[[int, int], bool]) -> Callable[[int, int, int], str | None]:
    """(M, N, K) -> the kernel the manifest's `family.fallback` chooses with only the rules whose
    index in its order `keeps(index, own)` keeps, `own` the index of the family's rule (`rule`:
    which of `family.kernel`'s)."""
    d, own, kernels = family_rule(family)
    ordered = d.ordered
    d = replace(d, ahead=tuple(r for r in d.ahead if keeps(ordered.index(r), own)),
                rules=tuple(r for r in d.rules if keeps(ordered.index(r), own)))
    def choose(M: int, N: int, K: int) -> str | None:  # None: no rule left takes the shape
        spec = d.choose(M, N, K, kernels, SMS)
        return spec.name if spec is not None else None
    return choose


def chooser_without(family: Family) -> Callable[[int, int, int], str | None]:
    """The kernel the fallback falls through to past the family's rule: those after it. The rules
    before it take their shapes with it or without it, and some are newer than the fitting runs
    (wgmma_decode64x128's, ahead of wgmma_decode_fullk's, takes shapes those runs timed no kernel of)."""
    return chooser(family, lambda index, own: index > own)


def taken_ahead(family: Family) -> Callable[[int, int, int], bool]:
    """(M, N, K) -> whether a rule of `family.fallback` ahead of the family's takes the shape."""
    d, own, kernels = family_rule(family)

    def taken(M: int, N: int, K: int) -> bool:
        picked = d.pick(M, N, K, kernels, SMS)
        return picked is not None and picked[1] < own
    return taken


def chooser_but_own(family: Family, timed: set[str]) -> Callable[[int, int, int], str | None]:
    """The kernel the fallback chooses without the family's rule, and without the rules after it
    whose kernel the run timed nowhere: rules newer than the run, which it cannot speak for."""
    ordered = family_rule(family)[0].ordered
    return chooser(family, lambda index, own: index < own or index > own and ordered[index].kernel in timed)


def per_shape(run_dir: Path, family: Family) -> pd.DataFrame:
    """Shapes x {kernel, its fallback}: % of cuBLAS of the rows that PASSed (NaN: not run); the
    fallback's as it was before the family's rule (`before_rule`). Where the bench's time limit
    cut the fallback's rows, the row of the kernel it chooses without the family's rule stands for
    it, where the run timed that kernel (a dispatcher's row is its kernel's, paired alike); a shape
    whose fallback row stays missing is left out."""
    bench = RunDir(run_dir).read_table("bench")
    bench = bench[bench["status"] == "PASS"]
    table = bench.pivot_table(index=["M", "N", "K"], columns="kernel", values="pct_of_cublas").reset_index()
    if family.fallback not in table:  # the limit cut the run before any of the fallback's rows
        table[family.fallback] = float("nan")
    if table[family.fallback].isna().any():
        choose = chooser_but_own(family, set(bench["kernel"]))
        for i in table.index[table[family.fallback].isna()]:
            kernel = choose(*(int(table.loc[i, d]) for d in "MNK"))
            if kernel in table:
                table.loc[i, family.fallback] = table.loc[i, kernel]
    if family.before_rule != WITHOUT_RULE:
        kernels = [family.kernel, family.fallback] + ([family.before_rule] if family.before_rule else [])
        kept = [k for k in kernels if k in table]
        table = table[["M", "N", "K"] + kept].dropna(subset=kept, how="all").reset_index(drop=True)
    if family.before_rule and "dispatched_to" in bench:
        took = bench[(bench["kernel"] == family.fallback) & (bench["dispatched_to"] == family.kernel)]
        ruled = table.set_index(["M", "N", "K"]).index.isin(took.set_index(["M", "N", "K"]).index)
        if family.kernel not in table:  # the kernel timed only as the fallback's choice
            table[family.kernel] = float("nan")
        ran = ruled & table[family.kernel].isna()
        table.loc[ran, family.kernel] = table.loc[ran, family.fallback]  # that row is the kernel's
        if family.before_rule == WITHOUT_RULE:
            before = chooser_without(family)
            for i in table.index[ruled]:
                table.loc[i, family.fallback] = table.loc[i, before(*(int(table.loc[i, d]) for d in "MNK"))]
        else:
            table.loc[ruled, family.fallback] = table.loc[ruled, family.before_rule]
    table = table[table[family.fallback].notna()].reset_index(drop=True)
    if family.ahead_first:
        taken = taken_ahead(family)
        table["taken ahead"] = [taken(*(int(v) for v in row)) for row in table[["M", "N", "K"]].itertuples(index=False)]
    return table


def chosen(family: Family, table: pd.DataFrame, p: tuple[int, ...]) -> pd.Series:
    """Per shape, % of cuBLAS under the rule: the kernel's where it holds and the kernel ran, else the fallback's."""
    takes = family.holds(table, *p) & table[family.kernel].notna()
    if family.ahead_first:
        takes &= ~table["taken ahead"]
    return table[family.kernel].where(takes, table[family.fallback])


def score(family: Family, table: pd.DataFrame, p: tuple[int, ...]) -> float:
    return geomean(chosen(family, table, p))


def fit(family: Family, table: pd.DataFrame) -> tuple[int, ...]:
    return max(family.grid, key=lambda p: (round(score(family, table, p), 6), family.preference(*p)))


def main(name: str, fit_dir: str, validation_dir: str) -> None:
    family = FAMILIES[name]
    kernel = family.kernel
    fallback = family.fallback
    fitted = pd.concat([per_shape(Path(run), family) for run in fit_dir.split(",")], ignore_index=True)
    unseen = pd.concat([per_shape(Path(run), family) for run in validation_dir.split(",")], ignore_index=True)
    print(f"{len(fitted)} {family.fitted_on} shapes, {len(unseen)} unseen; `{fallback}` alone: "
          f"{geomean(fitted[fallback]):.1f}% / {geomean(unseen[fallback]):.1f}%")
    print("seed  rule (thresholds)        derivation half  validation half (n, best alone)  unseen")
    for seed in range(3):
        derive, validate = split_shapes(fitted, 0.5, seed)
        p = fit(family, derive)
        print(f"{seed:>4}  {str(p):<24} {score(family, derive, p):15.1f}  {score(family, validate, p):7.1f} "
              f"({len(validate)}, {geomean(validate[fallback]):.1f})       {score(family, unseen, p):.1f}")
    p = fit(family, fitted)
    if score(family, fitted, p) <= geomean(fitted[fallback]):
        print(f"on every {family.fitted_on} shape no member beats `{fallback}` alone: no rule")
        return
    print(f"on every {family.fitted_on} shape: {family.fitted_on} {score(family, fitted, p):.1f}% "
          f"(min {chosen(family, fitted, p).min():.1f}), unseen {score(family, unseen, p):.1f}% "
          f"(min {chosen(family, unseen, p).min():.1f}); the rule, ahead of `{fallback}`'s:")
    print(f'    {{when = "{family.when(*p)}", kernel = "{kernel}"}},')


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in FAMILIES:
        sys.exit(f"usage: python benchmarks/threshold_rules.py {{{','.join(FAMILIES)}}} FIT_RUN[,FIT_RUN...] "
                 "VALIDATION_RUN[,VALIDATION_RUN...]")
    main(*sys.argv[1:])
