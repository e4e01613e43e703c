"""`gemmprof report`: a recorded run -> a diagnostic report per kernel (Markdown and HTML) and a
run index (index.html, summary.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ._options import ManifestOption

# The run's tables the report reads (all optional; it needs kernels or bench).
TABLES = ("kernels", "rules", "source", "sass", "bench")


def report(
    run_dir: Annotated[Path | None, typer.Argument(help="Run directory (default: the newest run under reports/).", show_default=False)] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Where to write the report (default: RUN_DIR/report).", show_default=False)] = None,
    manifest: ManifestOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print diagnosis.json (each kernel's bound, cause, problem, cure, evidence, techniques it already uses) to stdout and write no files.")] = False,
) -> None:
    """Write the diagnostic report of a run: Markdown and self-contained HTML per kernel.

    Diagnoses every kernel of a recorded run: what bounds it (with the numbers that show it),
    its top warp stalls, bank conflicts, occupancy, memory traffic against the GEMM minimum,
    ncu's rules, its hottest source lines, and what changed from the rung below. Writes
    KERNEL.md and a self-contained KERNEL.html per kernel, index.html, and summary.md (made
    to fit a CI job summary), and diagnosis.json (the verdicts, for scripts).

    Examples:

        gemmprof report reports/sample-h200 -o /tmp/report

        gemmprof report reports/sample-h200 --json | jq '.kernels[] | [.kernel, .cause]'"""
    from rich.console import Console
    from rich.markup import escape

    from ..analyze.diagnosis import diagnose_run
    from ..errors import GemmprofError
    from ..manifest import load_manifest
    from ..outdir import write_files
    from ..render.report import diagnosis_json, report_files
    from ..names import slug
    from ..rundir import RunDir, check_out_dir, newest_run, write_atomic
    from ..schema import require_columns

    console = Console() if sys.stdout.isatty() else Console(width=200)  # piped: do not wrap at 80
    run = RunDir(run_dir if run_dir is not None else newest_run())
    if not run.path.is_dir():
        raise GemmprofError(f"{run.path} is not a directory", "pass a run directory written by gemmprof bench or profile")
    meta = run.meta()
    tables = {name: run.read_table(name) for name in TABLES if run.has_table(name)}
    if "kernels" in tables and len(tables["kernels"]):
        require_columns(tables["kernels"], ("report", "launch"), str(run.table_file("kernels")),
                        "the report names each launch by its report and launch number")
    if "kernels" not in tables and "bench" not in tables:
        reports = [*run.path.glob("*.ncu-rep*"), *run.path.glob("ncu/*.ncu-rep*")]
        if reports:
            raise GemmprofError(f"run {run.path} has {len(reports)} ncu report(s) but no tables",
                                f"extract them first: gemmprof analyze {run.path} --parquet {run.path}")
        raise GemmprofError(f"run {run.path} holds no kernels: neither a profile (kernels table) nor a benchmark "
                            f"(bench table)", "run gemmprof bench or gemmprof profile into it")
    profile_log = run.read_profile_log()

    diagnosis = diagnose_run(tables, load_manifest(), meta, profile_log)
    if as_json:  # for scripts and CI: the verdicts only, on stdout, nothing written
        sys.stdout.write(diagnosis_json(diagnosis))
        return
    for warning in diagnosis.warnings:
        console.print(f"[yellow]warning:[/] {escape(warning)}")
    target = check_out_dir(out if out is not None else run.path / "report", "-o")
    console.print(f"report of {run.path} ({len(diagnosis.kernels)} kernels, "
                  f"{sum(d.profiled for d in diagnosis.kernels)} profiled) -> {target}", markup=False)
    pages = {f"{slug(d.name)}.html": d for d in diagnosis.kernels}  # file name -> its kernel
    written = 0

    def fill(folder: Path) -> None:  # the whole report, into a folder that then replaces `target` (if ours)
        nonlocal written
        with console.status("rendering") as status:
            for name, content in report_files(diagnosis, tables.get("kernels"), tables.get("bench")):
                write_atomic(folder / name, content)
                written += 1
                status.update(f"rendering: wrote {escape(name)}")
                if name in pages:
                    d = pages[name]
                    verdict = f"{d.verdict.label}: {d.verdict.problem}" if d.verdict else "not profiled"
                    console.print(f"  {d.name:<12} {verdict}", markup=False, highlight=False)

    write_files(target, fill, signature=("index.html", "summary.md"))
    console.print(f"wrote {written} files; open {target / 'index.html'} (summary for CI: {target / 'summary.md'})",
                  markup=False)
