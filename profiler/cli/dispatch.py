"""`gemmprof dispatch`: derive a dispatcher (rules over M, N, K and SMS) from a bench sweep, for the
manifest (`profiler.workflows.dispatch`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..workflows.dispatch import DispatchOptions
from ._options import ManifestOption


def dispatch(
    run_dir: Annotated[Path, typer.Argument(help="A run directory with a bench sweep (several sizes).")],
    name: Annotated[str, typer.Option(help="Name of the dispatcher.")] = DispatchOptions.name,
    tier: Annotated[str, typer.Option(help="Which kernels it chooses among: fp32 or fp16.")] = DispatchOptions.tier,
    write: Annotated[bool, typer.Option("--write", help="Replace (or add) the entry in kernels/ladder.toml instead of only printing it.")] = False,
    tolerance: Annotated[str, typer.Option(metavar="NUMBER|auto", help="A rule may send a sweep shape only to a kernel at least this close to the fastest there (0.03 = 3%); auto: the one whose rules score best on halves of the sweep they were not derived from. Recorded in the entry when not the default.")] = str(DispatchOptions.tolerance),
    objective: Annotated[str, typer.Option(metavar="tolerance|geomean", help="How a rule is chosen: tolerance, the rule claiming the most shapes whose kernel is within --tolerance of the fastest at each (fits a suite of hand-picked shapes closely); geomean, the rule raising the sweep's geometric mean most (generalises better from shapes drawn at random: check with --hold-out).")] = DispatchOptions.objective,
    max_rules: Annotated[int, typer.Option(min=1, help="At most this many rules, the last taking any shape: fewer read more easily, too few send some shapes to a slower kernel (the table shows which).")] = DispatchOptions.max_rules,
    validate: Annotated[Path | None, typer.Option("--validate", help="A second sweep (bench run) of shapes the rules never saw: prints their geometric mean and minimum % of cuBLAS there.")] = None,
    hold_out: Annotated[float, typer.Option("--hold-out", help="Derive from the rest of the sweep and validate on this share of its shapes (0.5: half), split by shape; not with --write.")] = DispatchOptions.hold_out,
    seed: Annotated[int, typer.Option(help="Which shapes --hold-out keeps apart.")] = DispatchOptions.seed,
    manifest: ManifestOption = None,
) -> None:
    """Derive dispatch rules from a sweep (a suite run: `gemmprof bench --suite default`): an ordered list
    of readable conditions over M, N, K and the GPU's SM count (SMS), the last one taking any shape.

    Prints the fastest kernel per shape, what the rules choose there (rule and share of the
    fastest), and a `[[dispatch]]` entry for kernels/ladder.toml (`--write` puts it there); then
    `gemmprof bench -k best` times the dispatcher like any kernel. SMS is the run's GPU's.
    With --validate RUN2 or --hold-out 0.5, the rules are scored like a model: geometric mean and
    minimum % of cuBLAS on the shapes they came from and on shapes they never saw.

    Examples:

        gemmprof dispatch reports/sweep --tier fp16

        gemmprof dispatch reports/sweep --hold-out 0.5 --seed 1

        gemmprof dispatch reports/sweep --tolerance auto --hold-out 0.5

        gemmprof dispatch reports/sample --objective geomean --hold-out 0.5

        gemmprof dispatch reports/derive --validate reports/validate

    Kernels are ranked by their share of the cuBLAS run paired with each row (GFLOP/s where a row
    has none): rows are timed minutes apart, and the GPU's speed drifts between them.
    """
    from ..errors import GemmprofError
    from ..render.console import dispatch_table, scored_table, tolerance_table
    from ..render.terminal import make_console
    from ..workflows.dispatch import dispatch as derive
    from ..workflows.dispatch import write_entry
    from ..workflows.options import record_of

    if write and hold_out:
        raise GemmprofError("--write takes rules derived from the whole sweep: drop --hold-out to write them")
    result = derive(record_of(DispatchOptions, locals()))
    console = make_console()
    console.print(dispatch_table(result.winners, result.chosen, f"fastest {tier} kernel per shape ({result.gpu}, {result.sms} SMs)"))
    console.print(result.entry, markup=False, highlight=False, soft_wrap=True)  # TOML to paste: lines kept whole
    if result.uncovered:
        console.print(f"note: no {tier} kernel without a contract: shapes outside {result.uncovered} "
                      f"get no kernel from this dispatcher", markup=False, highlight=False)
    if result.tolerance_pick is not None:
        console.print(tolerance_table(result.tolerance_pick))
    if result.validation is not None:
        console.print(scored_table(result.fit, result.validation, result.validated_on))
    if write:
        path = write_entry(name, tier, result.entry)
        console.print(f"wrote the [[dispatch]] entry {name!r} into {path}", markup=False)

