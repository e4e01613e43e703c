"""`gemmprof new`: scaffold a kernel of your own (a .cu and its one-kernel manifest) that builds
and passes verification as written."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def new(
    kernel: Annotated[str, typer.Argument(help="Name of the new kernel (also the stem of its .cu and .toml).", show_default=False)],
    base: Annotated[str | None, typer.Option("--from", help="Start from a copy of this rung (its launch, contract and tier; it becomes the predecessor).", show_default=False)] = None,
    directory: Annotated[Path, typer.Option("--dir", help="Folder to write KERNEL.cu and KERNEL.toml into (created if missing).")] = Path("."),
    tier: Annotated[str | None, typer.Option(help="fp32 or fp16 (default fp32; with --from, the rung's).", show_default=False)] = None,
) -> None:
    """Write KERNEL.cu (the required signature, a correct body, a header stating idea and
    contract) and KERNEL.toml (a manifest with its one entry). Never overwrites a file.

    Examples:

        gemmprof new mykern --dir mine && gemmprof build --manifest mine/mykern.toml -k mykern

        gemmprof new faster --from spread128x256x8 --dir mine

        gemmprof bench --manifest mine/faster.toml -k faster -k spread128x256x8 --sizes 2048,4096"""
    from ..errors import GemmprofError
    from ..paths import check_out_dir
    from ..catalogue.scaffold import scaffold

    files = scaffold(kernel, check_out_dir(directory, "--dir"), base, tier)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for path, text in ((files.source, files.source_text), (files.manifest, files.manifest_text)):
            with path.open("x") as f:  # exclusive: a file that appeared since the check is kept
                f.write(text)
    except OSError as exc:
        raise GemmprofError(f"cannot write {exc.filename}: {exc.strerror}") from None
    typer.echo(f"wrote {files.source} and {files.manifest}")
    typer.echo(f"next: gemmprof build --manifest {files.manifest} -k {kernel}")
