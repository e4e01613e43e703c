"""The roofline workflow: the hierarchical roofline of a profiled run (or of reports) drawn into
an image, and the ladder charts of the run's bench sweep, one per precision tier."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rich.markup import escape

from ..errors import GemmprofError
from .progress import Progress

FORMATS = (".png", ".svg", ".pdf")


@dataclass(frozen=True)
class RooflineOptions:
    """The run (the newest under reports/ with a kernels table by default) or reports, the image
    to write, where the ladder chart goes (none by default), the chart's title, PNG resolution."""

    paths: list[Path] | None = None
    output: Path = Path("roofline.png")
    ladder: Path | None = None
    title: str | None = None
    dpi: int = 150


@dataclass(frozen=True)
class RooflineResult:
    """The run read, its roofline (ceilings, points, notes), each kernel's nearest ceiling, the
    image written."""

    run: object  # run.Run
    roofline: object  # analyze.roofline.Roofline
    bound: object  # pandas.DataFrame: per kernel, its closest ceiling and how near
    output: Path


def roofline(options: RooflineOptions, progress: Progress) -> RooflineResult:
    """Draw the roofline of `options`' run into its image (every output place checked first)."""
    from ..analyze.roofline import nearest_ceiling
    from ..analyze.roofline import roofline as make_roofline
    from ..outdir import writing
    from ..paths import check_out_file
    from ..render.roofline_chart import roofline_figure
    from ..run import open_run
    from ..runs.rundir import newest_run

    for target, option in ((options.output, "-o"), (options.ladder, "--ladder")):
        if target is not None and target.suffix.lower() not in FORMATS:
            raise GemmprofError(f"cannot write {target}: unknown image format", f"use one of {', '.join(FORMATS)}")
        if target is not None:
            check_out_file(target, option)
    run = open_run(options.paths or [newest_run(need_table="kernels")])
    kernels = run.require_kernels()
    if not options.paths:  # the run was chosen for the user: say which
        progress.say(f"roofline of the newest run with a kernels table: {escape(str(run.path))}", highlight=False)
    rf = make_roofline(kernels)
    fig = roofline_figure(kernels, title=options.title, rf=rf)
    with writing(options.output):
        options.output.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(options.output, dpi=options.dpi)
    for note in rf.notes:
        progress.say(f"[yellow]note:[/] {escape(str(note))}", highlight=False)
    return RooflineResult(run, rf, nearest_ceiling(rf.points), options.output)


def ladder_charts(run, ladder: Path, dpi: int) -> Iterator[Path]:
    """Draw the ladder chart of the run's bench table: FP32 at `ladder`, each other precision
    tier beside it (NAME-fp16.png); yields each image once it is written."""
    from ..outdir import writing
    from ..render.ladder_chart import bench_tiers, ladder_figure

    bench = run.bench
    if bench is None:
        raise GemmprofError("--ladder needs a run directory with a bench table",
                            "run gemmprof bench --run-id <the same run> first")
    for i, tier in enumerate(bench_tiers(bench)):
        target = ladder if i == 0 else ladder.with_name(f"{ladder.stem}-{tier}{ladder.suffix}")
        with writing(target):
            target.parent.mkdir(parents=True, exist_ok=True)
            ladder_figure(bench, tier=tier).savefig(target, dpi=dpi)
        yield target
