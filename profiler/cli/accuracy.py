"""`gemmprof accuracy`: score the diagnosis against what is known to be true."""

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
    from rich.table import Table

    from ..analyze.accuracy import tally
    from ..errors import GemmprofError
    from ..paths import check_in_path
    from ..render.console import make_console
    from ..run import open_run, score_verdicts

    truth = truth or []
    if not truth and not probes:
        raise GemmprofError("nothing to grade", "pass truth tables, --probes RUN, or both")
    for path in truth:  # every path checked before any diagnosis
        check_in_path(path, "file")
    for path in probes:  # a run of the probes: a folder holding their reports
        open_run(check_in_path(path, "folder", "--probes"))
    grades = score_verdicts(truth, probes)
    console = make_console()
    table = Table(show_edge=False, pad_edge=False)
    for column in ("case", "grade", "lead cause", "expected", "why"):
        table.add_column(column, overflow="fold")
    for g in grades:
        style = {"right": "green", "partly": "yellow", "wrong": "red"}[g.grade]
        table.add_row(g.name, f"[{style}]{g.grade}[/]", g.lead or "-", ", ".join(g.expected), g.why)
    console.print(table)
    counts = tally(grades)
    total = len(grades)
    console.print(f"{total} verdicts: {counts['right']} right ({100 * counts['right'] / max(total, 1):.0f}%), "
                  f"{counts['partly']} partly, {counts['wrong']} wrong")
