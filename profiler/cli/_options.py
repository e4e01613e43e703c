"""Options several commands share, declared once: --kernel's and --tier's help, and --manifest
(extra kernel manifests, added to $GEMMPROF_MANIFEST before the command runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..catalogue.kernel_paths import add_manifests

# The --kernel and --tier options of bench and profile: one help text, one range spelling.
KERNEL_HELP = ("Kernel name (repeatable), a range of rungs in ladder order FIRST..LAST (-k naive..cpasync; "
               "an open end runs to the ladder's end: -k cutlass128x128x8..), or 'all' (default)")
TIER_HELP = "Only the kernels (and dispatchers) of this precision tier: fp32, fp16 or fp32-tc, e.g. --tier fp16."


# `manifest: ManifestOption = None` in a command's signature gives it --manifest.
ManifestOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--manifest",
        help="Extra kernel manifest (TOML; repeatable), added to the built-in ladder; also read from $GEMMPROF_MANIFEST.",
        callback=add_manifests,
        show_default=False,
    ),
]
