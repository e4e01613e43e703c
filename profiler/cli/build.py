"""`gemmprof build`: compile the ladder to cubins and show what ptxas says about each kernel
(`profiler.workflows.build`)."""

from __future__ import annotations

from typing import Annotated

import typer

from ._options import ManifestOption


def build(
    kernel: Annotated[list[str] | None, typer.Option("--kernel", "-k", help="Kernel name (repeatable), or a dispatcher such as best (the kernels it can choose); default all.")] = None,
    arch: Annotated[str, typer.Option(help="Target, e.g. sm_90 (default: the GPU's own, else sm_90).")] = "",
    force: Annotated[bool, typer.Option(help="Recompile even when a cached cubin matches.")] = False,
    write_resources: Annotated[bool, typer.Option(help="Rewrite kernels/resources.csv (the committed ptxas table).")] = False,
    manifest: ManifestOption = None,
) -> None:
    """Compile kernels with nvcc -O3 -lineinfo into cached cubins; fail if a spill-free kernel spills.

    Examples:

        gemmprof build

        gemmprof build -k naive..cpasync

        gemmprof build -k best-fp16

        gemmprof build --manifest mine.toml -k mykern
    """
    from ..render.progress import ConsoleProgress
    from ..workflows.build import BuildOptions
    from ..workflows.build import build as run_build
    from ..workflows.options import record_of

    run_build(record_of(BuildOptions, locals()), ConsoleProgress())
