"""How right the diagnosis is: verdicts scored against a truth table (pure).

A truth table (TOML, `[case.NAME]` tables) says, for launches whose cause is known by
construction, which causes a right verdict may lead with and which words it must and must not
use. The planted probes carry their truth in their manifest (`planted`), so they need no table.
Each verdict is graded

- right:  it leads with an accepted cause, every `must` pattern matches its words and no
          `must_not` pattern does;
- partly: no `must_not` pattern matches, and an accepted cause is named but not as the lead
          (ranked beside it), or it leads with one and misses a `must` pattern;
- wrong:  anything else, a missing verdict included.

The words are the lead's problem, summary and cure: what a reader acts on. Notes and evidence
are not graded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from ..errors import GemmprofError
from ..catalogue.toml_tables import named_tables, read_toml

RIGHT, PARTLY, WRONG = "right", "partly", "wrong"
GRADES = (RIGHT, PARTLY, WRONG)


@dataclass(frozen=True)
class Truth:
    """What a right verdict says for one launch."""

    name: str
    causes: tuple[str, ...]
    run: str = ""  # the run directory or report the launch is in (relative to the truth file)
    range: str = ""  # the start of its NVTX range; "" matches by kernel name (`name`)
    kernel: str = ""  # a regular expression on the function name, where a range holds several launches
    truth: str = ""
    must: tuple[str, ...] = ()
    must_not: tuple[str, ...] = ()


@dataclass(frozen=True)
class Grade:
    """One verdict's grade and the reason for it."""

    name: str
    grade: str
    lead: str | None  # the verdict's lead cause (None: no verdict)
    expected: tuple[str, ...]
    why: str


def parse_truth(text: str, where: str = "truth.toml") -> list[Truth]:
    """The cases of a truth table; mistakes (bad TOML, a case without causes, a pattern that is
    not a regular expression) are one line."""
    cases = named_tables(read_toml(text, where), "case", where)
    out = []
    for name, entry in cases.items():
        causes = entry.get("causes") if isinstance(entry, dict) else None
        if not isinstance(causes, list) or not causes or not all(isinstance(c, str) for c in causes):
            raise GemmprofError(f"{where}: case {name!r} needs a non-empty list of cause keys `causes`")
        patterns = {key: tuple(entry.get(key, ())) for key in ("must", "must_not")}
        for key, values in [*patterns.items(), ("kernel", [entry.get("kernel", "")])]:
            for pattern in values:
                try:
                    re.compile(pattern)
                except (re.error, TypeError) as exc:
                    raise GemmprofError(f"{where}: case {name!r}: {key} {pattern!r} is not a regular expression ({exc})") from None
        out.append(Truth(name=name, causes=tuple(causes), run=str(entry.get("run", "")), range=str(entry.get("range", "")),
                         kernel=str(entry.get("kernel", "")), truth=" ".join(str(entry.get("truth", "")).split()),
                         **patterns))
    return out


def probe_truths(planted: Mapping[str, str]) -> list[Truth]:
    """The planted probes' truth: probe name -> the cause key planted in it (the manifest's)."""
    return [Truth(name=name, causes=(cause,)) for name, cause in planted.items()]


def verdict_words(problem: str, summary: str, cure: str) -> str:
    """What the patterns are matched against: the words a reader acts on."""
    return "\n".join((problem or "", summary or "", cure or ""))


def grade(truth: Truth, lead: str | None, ranked: Sequence[str] = (), words: str = "") -> Grade:
    """The grade of one verdict: its lead cause, the causes ranked beside it and its words."""
    if lead is None:
        return Grade(truth.name, WRONG, None, truth.causes, "no verdict")
    forbidden = [p for p in truth.must_not if re.search(p, words, re.IGNORECASE)]
    if forbidden:
        return Grade(truth.name, WRONG, lead, truth.causes, f"says {forbidden[0]!r}")
    missing = [p for p in truth.must if not re.search(p, words, re.IGNORECASE)]
    if lead in truth.causes:
        if not missing:
            return Grade(truth.name, RIGHT, lead, truth.causes, "")
        return Grade(truth.name, PARTLY, lead, truth.causes, f"does not say {missing[0]!r}")
    beside = [c for c in ranked if c in truth.causes]
    if beside:
        return Grade(truth.name, PARTLY, lead, truth.causes, f"{beside[0]} ranked after {lead}")
    return Grade(truth.name, WRONG, lead, truth.causes, f"leads with {lead}")


def tally(grades: Iterable[Grade]) -> dict[str, int]:
    """Counts of right, partly and wrong."""
    counts = dict.fromkeys(GRADES, 0)
    for g in grades:
        counts[g.grade] += 1
    return counts
