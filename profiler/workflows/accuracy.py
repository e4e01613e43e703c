"""The accuracy workflow: every verdict of the launches a truth table describes (and of a run of
the planted probes) graded right, partly or wrong against what is known to be true."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import GemmprofError


@dataclass(frozen=True)
class AccuracyOptions:
    """Truth tables (TOML: [case.NAME] with run, range, causes, must, must_not) and runs of the
    planted probes, each graded against the cause its manifest plants."""

    truth: list[Path] | None = None
    probes: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class AccuracyResult:
    grades: list  # analyze.accuracy.Grade, one a case
    counts: dict  # right, partly, wrong


def accuracy(options: AccuracyOptions) -> AccuracyResult:
    """Grade the verdicts; every path is checked before any diagnosis."""
    from ..analyze.accuracy import tally
    from ..paths import check_in_path
    from ..run import open_run, score_verdicts

    truth = options.truth or []
    if not truth and not options.probes:
        raise GemmprofError("nothing to grade", "pass truth tables, --probes RUN, or both")
    for path in truth:
        check_in_path(path, "file")
    for path in options.probes:  # a run of the probes: a folder holding their reports
        open_run(check_in_path(path, "folder", "--probes"))
    grades = score_verdicts(truth, options.probes)
    return AccuracyResult(grades, tally(grades))
