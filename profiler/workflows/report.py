"""The report workflow: a recorded run, or any program's Nsight Compute reports, diagnosed and
written as a report per kernel (Markdown and HTML) and a run index (index.html, summary.md,
diagnosis.json); or only the verdicts, as JSON, with nothing written."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.markup import escape

from ..errors import GemmprofError
from .progress import Progress

# Where a report of reports (no run directory) goes by default: the current folder, never beside
# a report gemmprof did not make.
FOREIGN_OUT = Path("gemmprof-report")


@dataclass(frozen=True)
class ReportOptions:
    """The run (the newest under reports/ by default) or reports, where the report goes (inside
    a run of one's own, else FOREIGN_OUT), the shapes of launches whose reports do not name
    them (`mnk` for all, `mnk_for` 'REGEX=MxNxK' by kernel name), `as_json`: the verdicts only."""

    paths: list[Path] | None = None
    out: Path | None = None
    mnk: tuple[int, int, int] | None = None
    mnk_for: list[str] | None = None
    as_json: bool = False


@dataclass(frozen=True)
class ReportResult:
    """The run read, its diagnosis, and the folder written with how many files in it; or, asked
    for JSON, the verdicts as text (nothing written)."""

    run: object  # run.Run
    diagnosis: object  # analyze.diagnosis_record.RunDiagnosis
    target: Path | None = None
    written: int = 0
    json: str | None = None


def report(options: ReportOptions, progress: Progress) -> ReportResult:
    from ..analyze.gemm_shape import ShapeRule, parse_shape_rule
    from ..catalogue.shapes import check_shape
    from ..outdir import write_files
    from ..paths import check_out_dir
    from ..render.report import diagnosis_json
    from ..run import open_run
    from ..runs.rundir import newest_run
    from ..shipped import inside_package

    rules = [parse_shape_rule(text) for text in options.mnk_for or []]
    rules += [ShapeRule(check_shape(tuple(options.mnk)))] if options.mnk else []
    run = open_run(options.paths or [newest_run()])
    beside = run.run_dir is not None and not inside_package(run.path)  # a run of one's own gets its report inside
    out = options.out if options.out is not None else run.path / "report" if beside else FOREIGN_OUT
    target = None if options.as_json else check_out_dir(out, "-o")
    _check_launches(run)
    diagnosis = run.diagnose(mnk=rules)
    if options.as_json:  # for scripts and CI: the verdicts only, nothing written
        return ReportResult(run, diagnosis, json=diagnosis_json(diagnosis))
    for warning in diagnosis.warnings:
        progress.say(f"[yellow]warning:[/] {escape(warning)}")
    progress.say(f"report of {run.path} ({len(diagnosis.kernels)} kernels, "
                 f"{sum(d.profiled for d in diagnosis.kernels)} profiled) -> {target}", markup=False)
    written = []
    write_files(target, lambda folder: written.extend(_fill(folder, run, diagnosis, progress)),
                signature=("index.html", "summary.md"))
    progress.say(f"wrote {len(written)} files; open {target / 'index.html'} (summary for CI: {target / 'summary.md'})",
                 markup=False)
    return ReportResult(run, diagnosis, target, len(written))


def _check_launches(run) -> None:
    """A run with nothing to report on (or launches its report cannot name) is one line."""
    from ..runs.schema import require_columns

    kernels, bench = run.kernels, run.bench
    if run.run_dir is not None:
        if kernels is not None and len(kernels):
            require_columns(kernels, ("report", "launch"), str(run.run_dir.table_file("kernels") or run.path),
                            "the report names each launch by its report and launch number")
        if kernels is None and bench is None:
            raise GemmprofError(f"run {run.path} holds no kernels: neither a profile (kernels table) nor a benchmark "
                                f"(bench table)", "run gemmprof bench or gemmprof profile into it")
    elif kernels is None or kernels.empty:
        raise GemmprofError(f"{run.path}: the reports hold no kernel launches", "profile a program that runs kernels")


def _fill(folder: Path, run, diagnosis, progress: Progress) -> list[str]:
    """The whole report, into a folder that then replaces the target (if ours), a line a kernel
    page with its verdict; returns the files written."""
    from ..names import slug
    from ..render.report import report_files
    from ..runs.rundir import write_atomic

    pages = {f"{slug(d.name)}.html": d for d in diagnosis.kernels}  # file name -> its kernel
    written = []
    with progress.working("rendering") as say:
        for name, content in report_files(diagnosis, run.kernels, run.bench):
            write_atomic(folder / name, content)
            written.append(name)
            say(f"rendering: wrote {escape(name)}")
            if name in pages:
                d = pages[name]
                verdict = f"{d.verdict.label}: {d.verdict.problem}" if d.verdict else "not profiled"
                progress.say(f"  {d.name:<12} {verdict}", markup=False, highlight=False)
    return written
