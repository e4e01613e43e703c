"""The rules `best-fp16` sends odd shapes by (N or K not a multiple of 8: rows TMA cannot address),
chosen like a model and scored on shapes they were not chosen on.

Three kernels take such shapes: wgmma_staged, wgmma_staged128 and skinny_any. The rules are one
family of three: skinny_any where the 128x128 tiles are few and K is long (its split of K fills
the SMs), wgmma_staged from a volume up (its 128x256 tiles), wgmma_staged128 for the rest. Each
seed cuts the sweep's odd shapes in two (`split_shapes`, as `gemmprof dispatch --hold-out`); the
three thresholds that score best on one half are scored on the other, beside the rules
`gemmprof dispatch` derives from the same half. Then the thresholds are chosen on every odd shape.

    python benchmarks/odd_shape_rules.py benchmarks/results/2026-11-27-h200/odd-shapes/sweep
"""

import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from profiler.analyze.dispatch import derive_rules, score, split_shapes  # noqa: E402
from profiler.catalogue.dispatchers import DispatchRule  # noqa: E402
from profiler.catalogue.manifest import load_manifest  # noqa: E402
from profiler.runs.rundir import RunDir  # noqa: E402

ODD = "N % 8 or K % 8"
FEW_TILES = ("SMS // 4", "SMS // 2", "SMS")
LONG_K = (256, 512, 1024, 2048, 4096)
VOLUME = tuple(2 ** e for e in range(28, 37))


def family(few: str, long_k: int, volume: int) -> tuple[DispatchRule, ...]:
    return (DispatchRule("skinny_any", f"cdiv(M, 128) * cdiv(N, 128) <= {few} and K >= {long_k}"),
            DispatchRule("wgmma_staged", f"M * N * K >= {volume}"),
            DispatchRule("wgmma_staged128", 1))


def fit(bench, kernels, sms):
    """The family's member with the highest geometric mean % of cuBLAS on `bench`."""
    grid = [family(*p) for p in itertools.product(FEW_TILES, LONG_K, VOLUME)]
    return max(grid, key=lambda rules: score(rules, bench, kernels, "fp16", sms).geomean_pct)


def main(run_dir: Path) -> None:
    run = RunDir(run_dir)
    sms = int(run.meta()["environment"]["sm_count"])
    kernels = {s.name: s for s in load_manifest()}
    bench = run.read_table("bench")
    odd = bench[(bench["N"] % 8 != 0) | (bench["K"] % 8 != 0)]
    print(f"{odd[['M', 'N', 'K']].drop_duplicates().shape[0]} odd shapes in {run_dir}")
    print("seed  derivation  validation (n)  fastest  gemmprof dispatch's rules")
    for seed in range(3):
        derive, validate = split_shapes(odd, 0.5, seed)
        rules = fit(derive, kernels, sms)
        ours, on_derive = score(rules, validate, kernels, "fp16", sms), score(rules, derive, kernels, "fp16", sms)
        learner = score(derive_rules(derive, kernels, "fp16", sms), validate, kernels, "fp16", sms)
        n = len(ours.rows)
        print(f"{seed:>4}  {on_derive.geomean_pct:10.1f}  {ours.geomean_pct:7.1f} ({n:>2})  {ours.best_geomean_pct:7.1f}"
              f"  {learner.geomean_pct:.1f}   [{rules[0].when}; {rules[1].when}]")
    rules = fit(odd, kernels, sms)
    print(f"on every odd shape: {score(rules, odd, kernels, 'fp16', sms).geomean_pct:.1f}%; as `ahead` rules:")
    for rule in rules:
        when = ODD if rule.when == 1 else f"({ODD}) and {rule.when}"
        print(f'    {{when = "{when}", kernel = "{rule.kernel}"}},')


if __name__ == "__main__":
    main(Path(sys.argv[1]))
