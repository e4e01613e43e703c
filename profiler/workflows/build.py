"""The build workflow: compile kernels with nvcc into cached cubins, show what ptxas says about
each, and refuse a kernel marked spill_free that spills."""

from __future__ import annotations

from dataclasses import dataclass

from rich.markup import escape

from ..errors import GemmprofError
from .progress import Progress


@dataclass(frozen=True)
class BuildOptions:
    """The kernels (all by default), the target (the GPU's own by default), whether to recompile
    cached cubins and to rewrite the committed ptxas table (kernels/resources.csv)."""

    kernel: list[str] | None = None
    arch: str = ""
    force: bool = False
    write_resources: bool = False


@dataclass(frozen=True)
class BuildResult:
    arch: str
    built: list  # measure.build.Built, one a kernel


def build(options: BuildOptions, progress: Progress) -> BuildResult:
    """Build the kernels of `options`; a spill_free kernel that spills is a one-line error
    after the table shows it."""
    from ..catalogue.dispatchers import select_named, with_dispatched
    from ..measure.build import RESOURCES_TABLE, build_all, cache_dir, write_resources_table
    from ..outdir import writing
    from ..render.console import ptxas_table

    specs = with_dispatched(*select_named(options.kernel))
    arch = options.arch or detect_arch()
    with progress.bar(f"nvcc for {arch}", len(specs)) as bar:
        def done(b) -> None:  # a line a kernel as it is ready, as bench and profile print theirs
            bar.say(f"  {b.spec.name}: {'cached' if b.cached else 'built'}", markup=False, highlight=False)
            bar.advance()

        built = build_all(specs, arch, force=options.force, on_built=done)
    progress.show(ptxas_table(built, arch))
    if built:
        progress.say(f"cubins in {escape(str(cache_dir()))}", soft_wrap=True)
    if options.write_resources:
        with writing(RESOURCES_TABLE):
            write_resources_table(built)
    spilled = [b.spec.name for b in built if b.breaks_spill_free]
    if spilled:
        raise GemmprofError(f"kernels marked spill_free use local memory: {', '.join(spilled)}",
                            "reduce register pressure or unmark spill_free")
    return BuildResult(arch, built)


def detect_arch() -> str:
    """The GPU's own architecture when a GPU is here; sm_90 (the project's target) otherwise."""
    try:
        from ..measure.device import gpu_info

        return gpu_info().arch
    except GemmprofError:
        return "sm_90"
