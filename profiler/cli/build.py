"""`gemmprof build`: compile the ladder to cubins and show what ptxas says about each kernel."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ..errors import GemmprofError
from ..render.console import make_console, progress_bar
from ._options import ManifestOption


def build(
    kernel: Annotated[list[str] | None, typer.Option("--kernel", "-k", help="Kernel name (repeatable); default all.")] = None,
    arch: Annotated[str, typer.Option(help="Target, e.g. sm_90 (default: the GPU's own, else sm_90).")] = "",
    force: Annotated[bool, typer.Option(help="Recompile even when a cached cubin matches.")] = False,
    write_resources: Annotated[bool, typer.Option(help="Rewrite kernels/resources.csv (the committed ptxas table).")] = False,
    manifest: ManifestOption = None,
) -> None:
    """Compile kernels with nvcc -O3 -lineinfo into cached cubins; fail if a spill-free kernel spills."""
    from ..catalogue.manifest import select_kernels
    from ..measure.build import build_all, cache_dir, write_resources_table

    specs = select_kernels(kernel)
    arch = arch or detect_arch()
    console = make_console()
    progress = progress_bar(console)
    task = progress.add_task(f"nvcc for {arch}", total=len(specs))

    def done(b) -> None:  # a line a kernel as it is ready, as bench and profile print theirs
        progress.console.print(f"  {b.spec.name}: {'cached' if b.cached else 'built'}", markup=False, highlight=False)
        progress.advance(task)

    with progress:
        built = build_all(specs, arch, force=force, on_built=done)
    table = Table(title=f"ptxas resources ({arch})", title_justify="left")
    # A row per kernel: its name, ptxas's numbers and whether its cubin was already built; the
    # cubins' folder once below (each row's path repeated it and pushed the names off an 80-column line).
    table.add_column("kernel", no_wrap=True)
    for col in ("registers", "static\nsmem B", "dynamic\nsmem B", "stack", "spills\nst/ld", "cubin"):
        table.add_column(col, justify="right", no_wrap=True)
    bad = []
    for b in built:
        r = b.resources
        spill = f"{r.spill_store_bytes}/{r.spill_load_bytes}"
        if b.spec.spill_free and (r.spills or r.stack_bytes):
            bad.append(b.spec.name)
            spill = f"[red]{spill}[/]"
        # ptxas sees only static shared memory; the manifest gives the dynamic bytes asked at launch
        table.add_row(escape(b.spec.name), str(r.registers), str(r.shared_bytes), escape(str(b.spec.smem_bytes)),
                      str(r.stack_bytes), spill, "cached" if b.cached else "built")
    console.print(table)
    if built:
        console.print(f"cubins in {escape(str(cache_dir()))}", soft_wrap=True)
    if write_resources:
        from ..outdir import writing
        from ..measure.build import RESOURCES_TABLE

        with writing(RESOURCES_TABLE):
            write_resources_table(built)
    if bad:
        raise GemmprofError(f"kernels marked spill_free use local memory: {', '.join(bad)}", "reduce register pressure or unmark spill_free")


def detect_arch() -> str:
    """The GPU's own architecture when a GPU is here; sm_90 (the project's target) otherwise."""
    try:
        from ..measure.device import gpu_info

        return gpu_info().arch
    except GemmprofError:
        return "sm_90"
