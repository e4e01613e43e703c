"""The one list of kernels: `kernels/ladder.toml`, loaded into `KernelSpec`s.

Bench loops, profile targets, chart labels and README tables all come from here; nothing else
enumerates kernels. Launch geometry and shared memory are small expressions over M, N, K, so the
manifest says how each kernel is launched without Python code per kernel. This module loads and
selects; where the files are is `kernel_paths`, one entry `kernel_spec`, checking the text
`manifest_parse`, the expressions `expressions`, the `[[dispatch]]` tables `dispatchers`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Protocol
from functools import cache
from pathlib import Path

from ..errors import GemmprofError
from ..tiers import REFERENCE_ROWS
from ..tiers import TIERS as TIER_RECORDS
from .kernel_spec import KernelSpec
from .manifest_parse import parse_manifest
from . import kernel_paths
from .kernel_paths import MANIFEST_ENV


class Tiered(Protocol):
    """A kernel or a dispatcher: anything bench times in a tier."""

    tier: str


TIERS = tuple(TIER_RECORDS)


def reference_name(tier: str) -> str:
    """The cuBLAS reference of a tier: "cublas" (strict SGEMM) for fp32 and fp32-tc, "cublas-fp16"
    (GemmEx) for fp16 (`tiers.TIERS`)."""
    return TIER_RECORDS[tier].reference


# cuBLAS row name -> the tier whose inputs it takes, for every cuBLAS row (context rows included).
REFERENCES = {name: ref.tier for name, ref in REFERENCE_ROWS.items()}


def reference_tiers(kernels: Iterable[Tiered]) -> list[str]:
    """The tiers whose cuBLAS reference a selection is compared with: one per distinct reference
    among the tiers present (FP32 SGEMM, FP16 GemmEx; fp32-tc shares strict SGEMM with fp32), FP32
    alone for an empty selection. Profile uses it: each reference profiled once."""
    first: dict[str, str] = {}
    for t in sorted({k.tier for k in kernels}) or ["fp32"]:
        first.setdefault(reference_name(t), t)
    return list(first.values())


def reference_rows(kernels: Iterable[Tiered]) -> list[tuple[str, str]]:
    """(cuBLAS row, tier) pairs a bench of `kernels` times: per tier present, its yardstick, then
    its context rows (cuBLAS FAST_TF32 beside fp32-tc). Each tier's chart finds its own rows."""
    tiers = sorted({k.tier for k in kernels}) or ["fp32"]
    return [(name, t) for t in tiers for name in (reference_name(t), *TIER_RECORDS[t].context)]


def read_manifest(path: Path, known: Iterable[str] = (), first_index: int = 1) -> tuple[KernelSpec, ...]:
    """One manifest file, its kernels' sources checked on disk. Errors name the file."""
    where = path.name if path == kernel_paths.MANIFEST_PATH else str(path)
    if not path.is_file():
        if path == kernel_paths.MANIFEST_PATH:
            raise GemmprofError(f"kernel manifest not found at {path}", "reinstall gemmprof (pip install .) or run it from a checkout")
        raise GemmprofError(f"manifest {path} not found", f"check --manifest and ${MANIFEST_ENV}")
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise GemmprofError(f"manifest {path} cannot be read: {exc}") from None
    specs = parse_manifest(text, where, known, first_index, directory=str(path.resolve().parent))
    for spec in specs:
        if not spec.source.is_file():
            raise GemmprofError(f"{where}: {spec.name}: kernel source {spec.source} not found", "'file' is relative to the manifest's directory")
    return specs


def extra_manifest_paths(value: str | None = None) -> tuple[Path, ...]:
    """The extra manifests named by $GEMMPROF_MANIFEST (or `value`), in order, each once."""
    value = os.environ.get(MANIFEST_ENV, "") if value is None else value
    paths = [Path(p).expanduser() for p in value.split(os.pathsep) if p.strip()]
    return tuple(dict.fromkeys(Path(os.path.realpath(p)) for p in paths))  # a symlink loop stays as named


def load_manifest(path: Path | None = None) -> tuple[KernelSpec, ...]:
    """The ladder plus the kernels of the extra manifests in $GEMMPROF_MANIFEST; given a path,
    that manifest's kernels alone (an extra one numbered after the ladder, its predecessors may
    be rungs). Cached per value of the variable, so a changed value is seen at once."""
    if path is not None:
        return _load_one(Path(path))
    return _load_all(os.environ.get(MANIFEST_ENV, ""))


@cache
def _load_one(path: Path) -> tuple[KernelSpec, ...]:
    if path == kernel_paths.MANIFEST_PATH:
        return read_manifest(path)
    ladder = _load_one(kernel_paths.MANIFEST_PATH)
    return read_manifest(path, known=[s.name for s in ladder], first_index=len(ladder) + 1)


@cache
def _load_all(extra: str) -> tuple[KernelSpec, ...]:
    specs = list(_load_one(kernel_paths.MANIFEST_PATH))
    origin = {s.name: kernel_paths.MANIFEST_PATH for s in specs}
    for path in extra_manifest_paths(extra):
        if path == kernel_paths.MANIFEST_PATH.resolve():
            continue
        for spec in read_manifest(path, known=[s.name for s in specs], first_index=len(specs) + 1):
            if spec.name in REFERENCES:
                raise GemmprofError(f"{path}: kernel {spec.name!r}: the name is the cuBLAS reference's", "rename the kernel")
            if spec.name in origin:
                raise GemmprofError(f"kernel {spec.name!r} of {path} clashes with the one of {origin[spec.name]}",
                                    "rename it in one of the two manifests")
            origin[spec.name] = path
            specs.append(spec)
    return tuple(specs)


class UnknownKernelError(GemmprofError):
    """A --kernel name that no manifest declares (the commands that also take dispatcher names
    add theirs to the hint)."""


def select_kernels(names: list[str] | None, tier: str | None = None) -> list[KernelSpec]:
    """Kernels by name ('all' or None for the whole ladder), in the order named; a range
    'FIRST..LAST' stands for the rungs from FIRST to LAST in ladder order (`expand_ranges`)."""
    specs = [s for s in load_manifest() if tier is None or s.tier == tier]
    if not names or names == ["all"]:
        return specs
    names = expand_ranges(names)
    by_name = {s.name: s for s in load_manifest()}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise UnknownKernelError(
            f"unknown kernel {', '.join(map(repr, unknown))}",
            f"choose from: {', '.join(by_name)} (or 'all', or a range FIRST..LAST)",
        )
    return [by_name[n] for n in dict.fromkeys(names)]


def with_predecessors(specs: list[KernelSpec]) -> list[KernelSpec]:
    """The kernels and the rung each names as its predecessor (what it claims to improve on),
    each once, in ladder order: an experiment benched beside the rung it is measured against."""
    by_name = {s.name: s for s in load_manifest()}
    chosen = {s.name: s for s in specs} | {s.predecessor: by_name[s.predecessor] for s in specs if s.predecessor}
    return sorted(chosen.values(), key=lambda s: s.index)


RANGE = ".."


def expand_ranges(names: list[str]) -> list[str]:
    """Replace each 'FIRST..LAST' in a --kernel list by the rungs from FIRST to LAST inclusive, in
    ladder order: names, not numbers, because inserting a rung renumbers the ladder. An open end
    runs to the ladder's first or last rung ('cutlass128x128x8..'; '..' alone: every rung and no
    dispatcher). Other names pass through unchecked."""
    order = [s.name for s in load_manifest()]
    out: list[str] = []
    for name in names:
        if RANGE not in name:
            out.append(name)
            continue
        first, _, last = name.partition(RANGE)
        unknown = [end for end in (first, last) if end and end not in order]
        if unknown or RANGE in last:
            raise GemmprofError(f"bad kernel range {name!r}" + (f": no rung {unknown[0]!r}" if unknown else ""),
                                "write FIRST..LAST with rung names in ladder order, e.g. -k naive..cpasync (see gemmprof build)")
        lo, hi = order.index(first) if first else 0, order.index(last) if last else len(order) - 1
        if lo > hi:
            raise GemmprofError(f"empty kernel range {name!r}: {last!r} comes before {first!r} in the ladder",
                                f"write it as -k {last}..{first}")
        out.extend(order[lo:hi + 1])
    return out


def forget_kernels() -> None:
    """Forget the kernels read so far (a test or `dispatch --write` changed a manifest);
    `dispatchers.clear_caches` forgets the dispatchers too."""
    for loader in (_load_one, _load_all):
        loader.cache_clear()


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
