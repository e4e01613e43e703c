"""`gemmprof report`: a recorded run, or any program's Nsight Compute reports -> a diagnostic report
per kernel (Markdown and HTML) and a run index (index.html, summary.md, diagnosis.json)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ..catalogue.shapes import check_shape
from ._options import ManifestOption

# Where a report of reports (no run directory) goes by default: the current folder, never beside
# a report gemmprof did not make.
FOREIGN_OUT = Path("gemmprof-report")


def report(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="A run directory (default: the newest run under reports/), a folder of .ncu-rep files, or report "
             "files (.ncu-rep, .ncu-rep.xz) from any program.", show_default=False)] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help=f"Where to write the report (default: RUN_DIR/report; "
                                             f"./{FOREIGN_OUT} for reports and the sample run that ships with gemmprof).",
                                             show_default=False)] = None,
    manifest: ManifestOption = None,
    mnk: Annotated[tuple[int, int, int] | None, typer.Option(
        "--mnk", help="The GEMM shape of every launch whose report does not name it: --mnk M N K.",
        show_default=False)] = None,
    mnk_for: Annotated[list[str] | None, typer.Option(
        "--mnk-for", help="The shape of the launches whose kernel name matches REGEX: --mnk-for 'REGEX=MxNxK' "
                          "(repeatable; tried before --mnk).", show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print diagnosis.json (each kernel's bound, cause, problem, cure, evidence, techniques it already uses) to stdout and write no files.")] = False,
) -> None:
    """Write the diagnostic report of a run: Markdown and self-contained HTML per kernel.

    Diagnoses every kernel of a recorded run, or every launch of Nsight Compute reports from any
    program (no run.json needed: the environment comes from the reports): what bounds it (with
    the numbers that show it), its top warp stalls, bank conflicts, occupancy, memory traffic
    against the GEMM minimum, ncu's rules, its hottest source lines, and what changed from the
    rung below. Writes KERNEL.md and a self-contained KERNEL.html per kernel, index.html,
    summary.md (made to fit a CI job summary), and diagnosis.json (the verdicts, for scripts).

    The GEMM-specific parts (minimum traffic, 2MNK FLOPs, % of cuBLAS) need the shape: from
    gemmprof's NVTX ranges, --mnk / --mnk-for, or an NVTX range named like 'gemm 1024x512x256';
    without one they are left out, not guessed.

    Examples:

        gemmprof report reports/RUN_ID -o /tmp/report

        gemmprof report my_app.ncu-rep --mnk 4096 4096 1024 -o /tmp/mine

        gemmprof report reports/RUN_ID --json | jq '.kernels[] | [.kernel, .cause]'

    The sample run that ships with gemmprof: `python3 -c 'import gemmprof; print(gemmprof.sample_run())'`."""
    from rich.console import Console
    from rich.markup import escape

    from ..analyze.gemm_shape import ShapeRule, parse_shape_rule
    from ..errors import GemmprofError
    from ..names import slug
    from ..render.report import diagnosis_json, report_files
    from ..run import open_run
    from ..outdir import write_files
    from ..paths import check_out_dir
    from ..runs.rundir import newest_run, write_atomic
    from ..runs.schema import require_columns
    from ..shipped import inside_package

    console = Console() if sys.stdout.isatty() else Console(width=200)  # piped: do not wrap at 80
    rules = [parse_shape_rule(text) for text in mnk_for or []] + ([ShapeRule(check_shape(tuple(mnk)))] if mnk else [])
    run = open_run(paths or [newest_run()])
    beside = run.run_dir is not None and not inside_package(run.path)  # a run of one's own gets its report inside
    target = None if as_json else check_out_dir(out if out is not None else run.path / "report" if beside else FOREIGN_OUT, "-o")
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

    diagnosis = run.diagnose(mnk=rules)
    if as_json:  # for scripts and CI: the verdicts only, on stdout, nothing written
        sys.stdout.write(diagnosis_json(diagnosis))
        return
    for warning in diagnosis.warnings:
        console.print(f"[yellow]warning:[/] {escape(warning)}")
    console.print(f"report of {run.path} ({len(diagnosis.kernels)} kernels, "
                  f"{sum(d.profiled for d in diagnosis.kernels)} profiled) -> {target}", markup=False)
    pages = {f"{slug(d.name)}.html": d for d in diagnosis.kernels}  # file name -> its kernel
    written = 0

    def fill(folder: Path) -> None:  # the whole report, into a folder that then replaces `target` (if ours)
        nonlocal written
        with console.status("rendering") as status:
            for name, content in report_files(diagnosis, kernels, bench):
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
