"""Option parsing shared by commands: shapes and kernel lists, with one-line errors; the
`--manifest` option (extra kernel manifests) that several commands take."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated

import typer

from ..errors import GemmprofError
from ..shapes import check_shape


def parse_sizes(text: str) -> list[tuple[int, int, int]]:
    """'256,512,1000' -> square shapes. Also accepts 'MxNxK' items for rectangles and 'A..B' for
    the powers-of-two sweep from A to B (256..8192 = 256,512,...,8192)."""
    shapes = []
    for item in filter(None, (t.strip() for t in text.split(","))):
        if m := re.fullmatch(r"(\d+)\.\.(\d+)", item):
            n, last = int(m.group(1)), int(m.group(2))
            if n < 1 or last < n:
                raise GemmprofError(f"bad range {item!r} in --sizes", "write A..B with 1 <= A <= B, e.g. 256..8192")
            while n <= last:
                shapes.append((n, n, n))
                n *= 2
        elif re.fullmatch(r"\d+", item):
            n = int(item)
            shapes.append((n, n, n))
        elif re.fullmatch(r"\d+x\d+x\d+", item):
            m, n, k = (int(v) for v in item.split("x"))
            shapes.append((m, n, k))
        else:
            raise GemmprofError(f"bad size {item!r} in --sizes {text!r}", "give comma-separated integers (1024,2048), MxNxK items, or a doubling range 256..8192")
    if not shapes:
        raise GemmprofError(f"--sizes {text!r} names no size", "e.g. --sizes 1024,2048,4096")
    for shape in shapes:
        check_shape(shape)
    return shapes


def gather_shapes(sizes: str | None, mnk: tuple[int, int, int] | None, default: str) -> list[tuple[int, int, int]]:
    shapes = parse_sizes(sizes) if sizes else []
    if mnk:
        shapes.append(check_shape(tuple(mnk)))
    shapes = shapes or parse_sizes(default)
    return list(dict.fromkeys(shapes))  # keep order, drop repeats


def only_tier(tier: str | None, specs: list, dispatchers: list = ()) -> tuple[list, list]:
    """The kernels and dispatchers of the selection that belong to `--tier` (all of them for
    None); an unknown tier, or a selection with none of that tier, is a one-line error."""
    if tier is None:
        return list(specs), list(dispatchers)
    from ..tiers import tier as tier_record

    tier_record(tier)
    specs, dispatchers = [s for s in specs if s.tier == tier], [d for d in dispatchers if d.tier == tier]
    if not specs and not dispatchers:
        raise GemmprofError(f"no {tier} kernel among the selection", "drop --kernel, or name kernels of that tier")
    return specs, dispatchers


# The --kernel and --tier options of bench and profile: one help text, one range spelling.
KERNEL_HELP = ("Kernel name (repeatable), a range of rungs in ladder order FIRST..LAST (-k naive..cpasync; "
               "an open end runs to the ladder's end: -k cutlass128x128x8..), or 'all' (default)")
TIER_HELP = "Only the kernels (and dispatchers) of this precision tier: fp32, fp16 or fp32-tc, e.g. --tier fp16."


def add_manifests(paths: list[Path] | None) -> list[Path] | None:
    """Put --manifest paths (absolute) after those already in $GEMMPROF_MANIFEST. The variable,
    not a parameter, carries them: bench workers and ncu targets are child processes and must
    load the same kernels. Runs as the option's callback, before the command's body."""
    from ..kernel_paths import MANIFEST_ENV
    from ..paths import check_in_path

    for path in paths or []:
        check_in_path(path, "file", "--manifest")
    if paths:
        before = [p for p in os.environ.get(MANIFEST_ENV, "").split(os.pathsep) if p]
        added = [os.path.realpath(Path(p).expanduser()) for p in paths]
        os.environ[MANIFEST_ENV] = os.pathsep.join(dict.fromkeys(before + added))
    return paths


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
