"""Which GEMM a launch computed (M, N, K), for reports gemmprof did not write (pure).

The GEMM-specific parts of a diagnosis (the minimum traffic, FLOP efficiency against the GEMM's
2MNK FLOPs, % of cuBLAS at the same shape) need M, N and K, and a kernel's counters do not hold
them. A launch's shape comes from, first found wins:

1. gemmprof's own NVTX convention (`gp/<kernel> MxNxK`, read at extraction into M, N, K);
2. the user: `--mnk M N K` (every launch) or `--mnk-for REGEX=MxNxK` (launches whose function
   or demangled name matches REGEX);
3. an NVTX range whose name carries the shape, the convention for other programs: a
   whitespace-separated token `MxNxK` (`gemm 1024x512x256`, `layer3 qkv 4096x4096x1024`) or the
   three `M=1024 N=512 K=256` (commas allowed between them). The innermost such range wins. A
   batched product names its batch count in the same range: `batch=4096` beside the shape, or a
   token `BxMxNxK` (`bmm 4096x128x128x128`); its FLOPs and least traffic are the batch's.

Otherwise the shape stays unknown and those parts are left out with a line saying so; a shape is
never guessed from the grid or the counters (a split-K or batched kernel would fool any guess).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping

import numpy as np
import pandas as pd

from ..errors import GemmprofError

# The NVTX shape convention, one regex: an MxNxK token, or M=.. N=.. K=.. in that order.
NVTX_SHAPE = re.compile(
    r"(?<![\w.=])(?:(?P<M>\d+)x(?P<N>\d+)x(?P<K>\d+)|M=(?P<m>\d+)[\s,]+N=(?P<n>\d+)[\s,]+K=(?P<k>\d+))(?![\w.])"
)
# A batch count: `batch=4096`, or the B of a `BxMxNxK` token.
NVTX_BATCH = re.compile(r"(?<![\w.])(?:batch\s*=\s*(?P<b>\d+)|(?P<B>\d+)x(?P<M>\d+)x(?P<N>\d+)x(?P<K>\d+))(?![\w.])")
_RULE = re.compile(r"^(?:(?P<pattern>.+)=)?(?P<M>\d+)x(?P<N>\d+)x(?P<K>\d+)$")

# Where a launch's shape came from (the `shape_source` column).
FROM_GEMMPROF = "gemmprof NVTX range"
FROM_OPTION = "--mnk"
FROM_NVTX = "NVTX range name"
UNKNOWN_SHAPE = "shape unknown: pass --mnk M N K (or name an NVTX range 'gemm MxNxK')"


@dataclass(frozen=True)
class ShapeRule:
    """A user's shape for the launches whose name matches `pattern` (None: every launch)."""

    shape: tuple[int, int, int]
    pattern: str | None = None

    def matches(self, names: Iterable[object]) -> bool:
        if self.pattern is None:
            return True
        return any(isinstance(n, str) and re.search(self.pattern, n) for n in names)


def parse_shape_rule(text: str) -> ShapeRule:
    """'1024x512x256' or 'REGEX=1024x512x256' -> ShapeRule; anything else is a GemmprofError."""
    match = _RULE.match(text.strip())
    if not match:
        raise GemmprofError(f"--mnk-for {text!r} is not REGEX=MxNxK", "e.g. --mnk-for 'cutlass.*gemm=4096x4096x1024'")
    pattern = match["pattern"]
    if pattern is not None:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise GemmprofError(f"--mnk-for {text!r}: {pattern!r} is not a regular expression ({exc})") from None
    shape = (int(match["M"]), int(match["N"]), int(match["K"]))
    if min(shape) < 1:
        raise GemmprofError(f"--mnk-for {text!r}: M, N and K must be at least 1")
    return ShapeRule(shape, pattern)


def shape_from_nvtx(ranges: object) -> tuple[int, int, int] | None:
    """The shape an NVTX range names ('gemm 1024x512x256', 'M=64 N=64 K=32', 'bmm 8x64x64x64'):
    of the ranges open at the launch (outermost first, joined with '/'), the innermost one that
    names one."""
    named = _named_in(ranges)
    return named[1] if named else None


def batch_from_nvtx(ranges: object) -> int:
    """The batch count the range naming the shape gives (`batch=N` or a `BxMxNxK` token), else 1."""
    named = _named_in(ranges)
    return named[0] if named else 1


def _named_in(ranges: object) -> tuple[int, tuple[int, int, int]] | None:
    """(batch, shape) of the innermost range naming a shape, or None."""
    if not isinstance(ranges, str):
        return None
    for name in reversed(ranges.split("/")):
        batched = [m for m in NVTX_BATCH.finditer(name) if m["B"]]
        found = list(NVTX_SHAPE.finditer(name))
        if batched:
            last = batched[-1]
            shape = (int(last["M"]), int(last["N"]), int(last["K"]))
            batch = int(last["B"])
        elif found:
            last = found[-1]
            values = (last["M"], last["N"], last["K"]) if last["M"] else (last["m"], last["n"], last["k"])
            shape = tuple(int(v) for v in values)
            counts = [int(m["b"]) for m in NVTX_BATCH.finditer(name) if m["b"]]
            batch = counts[-1] if counts else 1
        else:
            continue
        return (batch, shape) if min(shape) > 0 and batch > 0 else None
    return None


def fill_shapes(kernels: pd.DataFrame, rules: Iterable[ShapeRule] = ()) -> pd.DataFrame:
    """The kernels table with M, N, K filled where they can be known and a `shape_source` column
    (FROM_GEMMPROF, FROM_OPTION, FROM_NVTX, or None when unknown); a new frame."""
    rules = list(rules)
    out = kernels.copy()
    for dim in "MNK":
        if dim not in out.columns:
            out[dim] = pd.array([None] * len(out), dtype="Int64")
    sources: list[str | None] = []
    values: dict[str, list] = {d: [] for d in "MNK"}
    batches: list[int] = []
    for record in out.to_dict("records"):
        known = tuple(record[d] for d in "MNK")
        shape, source = None, None
        if all(v is not None and not pd.isna(v) for v in known):
            shape, source = tuple(int(v) for v in known), FROM_GEMMPROF
        else:
            names = (record.get("function"), record.get("kernel"), record.get("kernel_key"))
            rule = next((r for r in rules if r.matches(names)), None)
            if rule is not None:
                shape, source = rule.shape, FROM_OPTION
            elif (named := shape_from_nvtx(record.get("nvtx"))) is not None:
                shape, source = named, FROM_NVTX
        for dim, value in zip("MNK", shape or (None, None, None)):
            values[dim].append(value)
        sources.append(source)
        batches.append(batch_from_nvtx(record.get("nvtx")) if source == FROM_NVTX else 1)
    for dim in "MNK":
        out[dim] = pd.array(values[dim], dtype="Int64")
    out["shape_source"] = pd.Series(sources, index=out.index, dtype="object")
    out["batch"] = pd.array(batches, dtype="Int64")
    return out


def batch_of(launch: Mapping) -> int:
    """How many products of its shape a launch computed (`fill_shapes`' batch; 1 when not said)."""
    batch = launch.get("batch")
    return 1 if batch is None or pd.isna(batch) or batch < 1 else int(batch)


def gemm_flop(launch: Mapping) -> float:
    """The GEMM's 2MNK FLOPs (times its batch) for a launch whose shape is known (`fill_shapes`),
    else NaN."""
    dims = [launch.get(d) for d in "MNK"]
    if any(v is None or pd.isna(v) or v <= 0 for v in dims):
        return np.nan
    return 2.0 * float(dims[0]) * float(dims[1]) * float(dims[2]) * batch_of(launch)


def math_flop(launch: Mapping) -> float:
    """FLOPs the launch executed on the pipe that did its math (`math_pipe`: fp32, tensor, fp64 or
    fp16; ncu's counts), NaN where unknown."""
    value = launch.get(f"{launch.get('math_pipe')}_flop")
    return float(value) if value is not None and not pd.isna(value) and value > 0 else np.nan


def executed_per_gemm_flop(launch: Mapping) -> float:
    """The math pipe's executed FLOPs over the GEMM's 2MNK: 1 for a kernel that does the GEMM's math
    and no more, 3 for 3xTF32 (three MMAs a product), above 1 for math on the zero-filled padding
    of tiles past M, N or K. NaN without a shape or the counts."""
    return math_flop(launch) / gemm_flop(launch)


def shape_of(record: Mapping) -> tuple[int, int, int] | None:
    """(M, N, K) of a launch or bench row, None where any is unknown (another program's kernel
    with no shape named): never guessed."""
    values = [record.get(d) for d in "MNK"]
    return None if any(v is None or pd.isna(v) for v in values) else tuple(int(v) for v in values)
