"""`gemmprof roofline`: the hierarchical roofline of a profiled run (or of reports) as an image,
and optionally the ladder chart of the run's bench sweep (`profiler.workflows.roofline`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..workflows.roofline import RooflineOptions


def roofline(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="A run directory (default: the newest under reports/ with a kernels table), "
                            "or .ncu-rep / .ncu-rep.xz reports, or folders of them.", show_default=False),
    ] = None,
    output: Annotated[Path, typer.Option("--output", "-o", help="Image to write: .png, .svg or .pdf.")] = RooflineOptions.output,
    ladder: Annotated[
        Path | None,
        typer.Option(help="Also draw the ladder chart (GFLOP/s and % of cuBLAS against size) from the run's bench "
                          "table into this image; a tensor-core tier gets its own chart beside it (NAME-fp16.png)."),
    ] = None,
    title: Annotated[str | None, typer.Option(help="Chart title (default: GPU and shape).")] = None,
    dpi: Annotated[int, typer.Option(help="Resolution of PNG output.")] = RooflineOptions.dpi,
) -> None:
    """Draw the hierarchical roofline of a run (and the ladder chart of its bench sweep).

    FLOP/s against arithmetic intensity (log-log) with a ceiling
    per memory level (DRAM, L2, shared, L1) and the FP32 FMA peak (the tensor-core peak too when a
    launch used tensor cores), all from the peak metrics in the reports at the clocks the launches
    ran at. Each kernel is a row of points, one per memory level; cuBLAS is included.

    Examples:

        gemmprof roofline reports/RUN -o roofline.svg

        gemmprof roofline reports/RUN --ladder ladder.png
    """
    from rich.console import Console

    from ..numbers import si_rate
    from ..render.console import points_table
    from ..render.progress import ConsoleProgress
    from ..workflows.options import record_of
    from ..workflows.roofline import ladder_charts
    from ..workflows.roofline import roofline as run_roofline

    result = run_roofline(record_of(RooflineOptions, locals()), ConsoleProgress(Console(stderr=True)))
    rf = result.roofline
    ceilings = ", ".join(f"{c['name']} {si_rate(c['value'], c['unit'])}" for c in rf.ceilings.to_dict("records"))
    typer.echo(f"ceilings ({rf.gpu or 'unknown GPU'}): {ceilings}")
    Console(width=160).print(points_table(rf.points, result.bound))
    typer.echo(f"wrote {result.output}")
    for target in ladder_charts(result.run, ladder, dpi) if ladder is not None else ():
        typer.echo(f"wrote {target}")
