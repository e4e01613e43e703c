"""`gemmprof accuracy`: score the diagnosis against what is known to be true
(`profiler.workflows.accuracy`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def accuracy(
    truth: Annotated[list[Path] | None, typer.Argument(help="Truth tables (TOML: [case.NAME] with run, range, causes, must, must_not).")] = None,
    probes: Annotated[list[Path], typer.Option("--probes", help="A run of the planted probes: each is graded against the cause its manifest plants. Repeatable.")] = [],
) -> None:
    """Grade every verdict of the launches a truth table describes as right, partly or wrong.

    Right: the verdict leads with a cause the table accepts and uses the words it must (none it
    must not). Partly: an accepted cause ranked beside the lead, or a missing word. Wrong: the rest.
    Prints one line a case and the counts.

    Examples: `gemmprof accuracy tests/data/foreign-h200/truth.toml --probes tests/data/probes-h100`;
    `gemmprof accuracy --probes RUN` grades the probes of a run alone.
    """
    from ..render.console import grades_table
    from ..render.terminal import make_console
    from ..workflows.accuracy import AccuracyOptions
    from ..workflows.accuracy import accuracy as grade
    from ..workflows.options import record_of

    result = grade(record_of(AccuracyOptions, locals()))
    console = make_console()
    console.print(grades_table(result.grades))
    counts, total = result.counts, len(result.grades)
    console.print(f"{total} verdicts: {counts['right']} right ({100 * counts['right'] / max(total, 1):.0f}%), "
                  f"{counts['partly']} partly, {counts['wrong']} wrong")
