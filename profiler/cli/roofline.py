"""`gemmprof roofline`: the hierarchical roofline of a profiled run (or of reports) as an image,
and optionally the ladder chart of the run's bench sweep."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

FORMATS = (".png", ".svg", ".pdf")


def roofline(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="A run directory (default: the newest under reports/ with a kernels table), "
                            "or .ncu-rep / .ncu-rep.xz reports, or folders of them.", show_default=False),
    ] = None,
    output: Annotated[Path, typer.Option("--output", "-o", help="Image to write: .png, .svg or .pdf.")] = Path("roofline.png"),
    ladder: Annotated[
        Path | None,
        typer.Option(help="Also draw the ladder chart (GFLOP/s and % of cuBLAS against size) from the run's bench "
                          "table into this image; a tensor-core tier gets its own chart beside it (NAME-fp16.png)."),
    ] = None,
    title: Annotated[str | None, typer.Option(help="Chart title (default: GPU and shape).")] = None,
    dpi: Annotated[int, typer.Option(help="Resolution of PNG output.")] = 150,
) -> None:
    """Draw the hierarchical roofline of a run (and the ladder chart of its bench sweep).

    FLOP/s against arithmetic intensity (log-log) with a ceiling
    per memory level (DRAM, L2, shared, L1) and the FP32 FMA peak (the tensor-core peak too when a
    launch used tensor cores), all from the peak metrics in the reports at the clocks the launches
    ran at. Each kernel is a row of points, one per memory level; cuBLAS is included."""
    from rich.console import Console
    from rich.markup import escape

    from ..analyze.roofline import nearest_ceiling
    from ..numbers import si_rate
    from ..analyze.roofline import roofline as make_roofline
    from ..errors import GemmprofError
    from ..render.ladder_chart import ladder_figure
    from ..render.roofline_chart import roofline_figure

    from ..outdir import writing
    from ..paths import check_out_file

    for target, option in ((output, "-o"), (ladder, "--ladder")):
        if target is not None and target.suffix.lower() not in FORMATS:
            raise GemmprofError(f"cannot write {target}: unknown image format", f"use one of {', '.join(FORMATS)}")
        if target is not None:
            check_out_file(target, option)
    from ..run import open_run
    from ..runs.rundir import newest_run

    run = open_run(paths or [newest_run(need_table="kernels")])
    kernels = run.require_kernels()
    console = Console(stderr=True)
    if not paths:  # the run was chosen for the user: say which
        console.print(f"roofline of the newest run with a kernels table: {escape(str(run.path))}", highlight=False)
    rf = make_roofline(kernels)
    fig = roofline_figure(kernels, title=title, rf=rf)
    with writing(output):
        output.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(output, dpi=dpi)
    for note in rf.notes:
        console.print(f"[yellow]note:[/] {escape(str(note))}", highlight=False)
    ceilings = ", ".join(f"{c['name']} {si_rate(c['value'], c['unit'])}" for c in rf.ceilings.to_dict("records"))
    typer.echo(f"ceilings ({rf.gpu or 'unknown GPU'}): {ceilings}")
    Console(width=160).print(points_table(rf.points, nearest_ceiling(rf.points)))
    typer.echo(f"wrote {output}")
    if ladder is not None:
        bench = run.bench
        if bench is None:
            raise GemmprofError("--ladder needs a run directory with a bench table",
                                "run gemmprof bench --run-id <the same run> first")
        from ..render.ladder_chart import bench_tiers

        for i, tier in enumerate(bench_tiers(bench)):  # one chart per precision tier: FP32 at PATH, FP16 beside it
            target = ladder if i == 0 else ladder.with_name(f"{ladder.stem}-{tier}{ladder.suffix}")
            with writing(target):
                target.parent.mkdir(parents=True, exist_ok=True)
                ladder_figure(bench, tier=tier).savefig(target, dpi=dpi)
            typer.echo(f"wrote {target}")


def points_table(points, bound):
    """Rich table: per kernel, GFLOP/s, intensity at each level, and the ceiling it is closest to."""
    from rich.markup import escape
    from rich.table import Table

    from ..analyze.roofline import LEVELS

    levels = [lv.name for lv in LEVELS if lv.name in set(points["level"])]
    table = Table(title="roofline points (intensity in FLOP/byte at each level)", title_justify="left")
    for header in ["kernel", "GFLOP/s", *levels, "closest ceiling", "% of it"]:
        table.add_column(header, justify="left" if header in ("kernel", "closest ceiling") else "right")
    for row in bound.to_dict("records"):
        at = points[points["label"] == row["label"]].set_index("level")["intensity"]
        table.add_row(escape(str(row["label"])), f"{row['flops'] / 1e9:,.0f}",
                      *[f"{at[lv]:.3g}" if lv in at else "-" for lv in levels],
                      row["bound"], f"{row['pct_of_roof']:.0f}%")
    return table
