"""`gemmprof report`: a recorded run, or any program's Nsight Compute reports -> a diagnostic report
per kernel (Markdown and HTML) and a run index (index.html, summary.md, diagnosis.json)
(`profiler.workflows.report`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ..workflows.report import FOREIGN_OUT
from ._options import ManifestOption


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

    from ..render.progress import ConsoleProgress
    from ..workflows.options import record_of
    from ..workflows.report import ReportOptions
    from ..workflows.report import report as run_report

    console = Console() if sys.stdout.isatty() else Console(width=200)  # piped: do not wrap at 80
    result = run_report(record_of(ReportOptions, locals()), ConsoleProgress(console))
    if result.json is not None:
        sys.stdout.write(result.json)
