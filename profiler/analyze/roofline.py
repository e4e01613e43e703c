"""The hierarchical roofline as tables: where each kernel sits at each memory level, and the ceilings.

Pure functions over the `kernels` table (one row per profiled launch, see
`profiler.metrics`): no I/O, no printing, inputs never mutated.

- A *point* is one kernel (at one shape) at one memory level: arithmetic intensity = FLOP over the
  bytes moved at that level, and the FLOP/s it achieved. All levels of one kernel share the FLOP/s,
  so a kernel is a row of points; the further right a level's point, the less that level limits it.
- A *ceiling* is a peak from the reports' own peak metrics at the clock each launch saw (the
  `peak_*` columns): a bandwidth (bytes/s, a diagonal on the log-log plot) or a compute peak
  (FLOP/s, a horizontal line). Peaks of one GPU should agree across launches; where they differ
  (the clock moved between launches) the median is used and a note says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import GemmprofError
from ..metrics import describe
from ..catalogue.manifest import REFERENCES, load_manifest
from ..tiers import REFERENCE_ROWS
from .shared_memory import shared_bytes, shared_unmeasured  # noqa: F401  (a roofline level; tests import it from here)
from .values import numeric_column

# Peaks that differ across launches by more than this fraction of their median get a note.
PEAK_SPREAD_TOLERANCE = 0.01


@dataclass(frozen=True)
class Level:
    """A memory level: the bytes a launch moved there and the bandwidth peak it is held to."""

    name: str
    bytes_column: str
    peak_column: str


@dataclass(frozen=True)
class Compute:
    """A compute ceiling: the FLOPs it applies to and its peak."""

    name: str
    peak_column: str
    tensor: bool
    tf32: bool = False  # the TF32 tensor ceiling: for launches whose tensor FLOPs are mostly TF32


# Slowest level first: the order of the ceilings on the plot, from the bottom.
LEVELS: tuple[Level, ...] = (
    Level("DRAM", "dram_bytes", "peak_dram_bytes_per_s"),
    Level("L2", "l2_bytes", "peak_l2_bytes_per_s"),
    Level("shared", "shared_bytes", "peak_shared_bytes_per_s"),
    Level("L1", "l1_bytes", "peak_l1_bytes_per_s"),
)
COMPUTE: tuple[Compute, ...] = (
    Compute("FP32 FMA", "peak_fp32_flops", tensor=False),
    Compute("tensor FP16", "peak_tensor_fp16_flops", tensor=True),
    Compute("tensor TF32", "peak_tensor_tf32_flops", tensor=True, tf32=True),
)


def compute_of(tensor_flop, tensor_tf32_flop) -> str:
    """The compute ceiling a launch is held to: tensor TF32 when most of its tensor FLOPs are TF32
    (the fp32-tc tier), tensor FP16 for other tensor-core FLOPs, else FP32 FMA."""
    tf32 = 0.0 if pd.isna(tensor_tf32_flop) else float(tensor_tf32_flop)
    if tf32 > 0 and tf32 >= 0.5 * tensor_flop:
        return "tensor TF32"
    return "tensor FP16" if tensor_flop > 0 else "FP32 FMA"


@dataclass(frozen=True)
class Roofline:
    """`points`: one row per kernel, shape and level; `ceilings`: one row per ceiling;
    `notes`: what the reader should know about how they were made."""

    points: pd.DataFrame
    ceilings: pd.DataFrame
    notes: tuple[str, ...] = field(default=())
    gpu: str | None = None


def kernel_names(kernels: pd.DataFrame) -> pd.Series:
    """gemmprof's kernel name (from the NVTX range), else the function name, else the launch."""
    names = pd.Series([None] * len(kernels), index=kernels.index, dtype="object")
    for column in ("kernel_key", "function", "kernel"):
        if column in kernels.columns:
            values = kernels[column].where(kernels[column].notna() & (kernels[column].astype(str) != ""))
            names = names.where(names.notna(), values)
    return names.fillna("launch").astype(str)


def ladder_labels(names) -> dict[str, tuple[int, str]]:
    """name -> (sort key, label): the manifest's kernels in ladder order as '3 smem', then cuBLAS,
    then anything else in order of appearance."""
    manifest = {spec.name: spec.index for spec in load_manifest()}
    out: dict[str, tuple[int, str]] = {}
    extra = 0
    for name in dict.fromkeys(names):
        if name in manifest:
            out[name] = (manifest[name], f"{manifest[name]} {name}")
        elif name in REFERENCES:  # above the ladder: cuBLAS, then the other tiers' references
            out[name] = (len(manifest) + 1 + list(REFERENCES).index(name), REFERENCE_ROWS[name].label)
        else:
            extra += 1
            out[name] = (len(manifest) + len(REFERENCES) + extra, name)
    return out


def per_kernel(kernels: pd.DataFrame) -> pd.DataFrame:
    """One row per kernel and shape: FLOPs, bytes at each level and duration summed over its
    launches (cuBLAS may launch several), FLOP/s recomputed from the sums."""
    frame = pd.DataFrame({
        "kernel": kernel_names(kernels),
        "M": numeric_column(kernels, "M"), "N": numeric_column(kernels, "N"), "K": numeric_column(kernels, "K"),
        "fp32_flop": numeric_column(kernels, "fp32_flop"),
        "tensor_flop": numeric_column(kernels, "tensor_flop").fillna(0.0),
        "tensor_tf32_flop": numeric_column(kernels, "tensor_tf32_flop").fillna(0.0),
        "fp64_flop": numeric_column(kernels, "fp64_flop").fillna(0.0),
        "duration_ns": numeric_column(kernels, "duration_ns"),
        "launches": 1,
    })
    for level in LEVELS:
        frame[level.bytes_column] = shared_bytes(kernels) if level.bytes_column == "shared_bytes" else numeric_column(
            kernels, level.bytes_column)
    keys = ["kernel", "M", "N", "K"]
    summed = frame.groupby(keys, sort=False, dropna=False).sum(min_count=1).reset_index()
    summed["flop"] = summed["fp32_flop"].fillna(0.0) + summed["tensor_flop"] + summed["fp64_flop"]
    summed["flops"] = summed["flop"] / (summed["duration_ns"] * 1e-9)
    labels = ladder_labels(summed["kernel"])
    summed["order"] = [labels[k][0] for k in summed["kernel"]]
    shapes = summed[["M", "N", "K"]].drop_duplicates()
    summed["label"] = [
        labels[k][1] + ("" if len(shapes) == 1 or np.isnan([m, n, kk]).any() else f" {int(m)}x{int(n)}x{int(kk)}")
        for k, m, n, kk in zip(summed["kernel"], summed["M"], summed["N"], summed["K"])
    ]
    return summed.sort_values(["order", "M", "N", "K"], kind="stable").reset_index(drop=True)


def _spread(values: pd.Series) -> float:
    """(max - min) / median of the known values; 0 for fewer than two."""
    values = values.dropna()
    if len(values) < 2 or not values.median():
        return 0.0
    return float((values.max() - values.min()) / values.median())


def ceilings(kernels: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The ceilings (name, kind 'memory' or 'compute', tensor, value, unit, column, spread) from
    the median of each peak column over the launches, and notes where launches disagree by more
    than `PEAK_SPREAD_TOLERANCE` or a peak is missing. The tensor ceiling is listed only when some
    launch did tensor-core FLOPs."""
    notes: list[str] = []
    rows = []
    held_to = {compute_of(t, t32) for t, t32 in zip(numeric_column(kernels, "tensor_flop").fillna(0),
                                                     numeric_column(kernels, "tensor_tf32_flop").fillna(0))}
    for kind, entries in (("memory", LEVELS), ("compute", COMPUTE)):
        for entry in entries:
            if kind == "compute" and entry.tensor and entry.name not in held_to:
                continue
            values = numeric_column(kernels, entry.peak_column)
            values = values.where(np.isfinite(values) & (values > 0))  # a peak of inf, 0 or below is no peak
            if values.notna().sum() == 0:
                notes.append(f"no {entry.name} peak in the reports ({entry.peak_column} missing): no ceiling drawn")
                continue
            rows.append({"name": entry.name, "kind": kind, "tensor": bool(getattr(entry, "tensor", False)),
                         "value": float(values.median()), "unit": describe(entry.peak_column)[0],
                         "column": entry.peak_column, "spread": _spread(values)})
    table = pd.DataFrame(rows, columns=["name", "kind", "tensor", "value", "unit", "column", "spread"])
    differing = table[table["spread"] > PEAK_SPREAD_TOLERANCE]
    if len(differing):
        clocks = numeric_column(kernels, "sm_clock_hz").dropna()
        clock = f" (SM clock {clocks.min() / 1e9:.3f} to {clocks.max() / 1e9:.3f} GHz)" if len(clocks) else ""
        notes.insert(0, f"the {', '.join(differing['name'])} peaks differ by up to "
                        f"{100 * differing['spread'].max():.1f}% across the {len(kernels)} launches{clock}: "
                        f"each ceiling is the median")
    return table, notes


def roofline_points(kernels: pd.DataFrame, ceiling_table: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per kernel, shape and memory level with bytes > 0: intensity (FLOP/byte), FLOP/s,
    the roof at that intensity (the level's bandwidth x intensity, capped by the compute peak that
    applies) and the share of it achieved."""
    if ceiling_table is None:
        ceiling_table, _ = ceilings(kernels)
    bandwidth = {r["name"]: r["value"] for r in ceiling_table.to_dict("records") if r["kind"] == "memory"}
    compute = {r["name"]: r["value"] for r in ceiling_table.to_dict("records") if r["kind"] == "compute"}
    rows = []
    for r in per_kernel(kernels).to_dict("records"):
        held_to = compute_of(r["tensor_flop"], r["tensor_tf32_flop"])
        peak = compute.get(held_to, compute.get("FP32 FMA", np.nan))
        for level in LEVELS:
            moved = r[level.bytes_column]
            if not all(np.isfinite(v) and v > 0 for v in (moved, r["flop"], r["flops"])):  # NaN, inf, 0, < 0: no point on log axes
                continue
            intensity = r["flop"] / moved
            memory_roof = bandwidth.get(level.name, np.nan) * intensity
            roof = min(memory_roof, peak)
            rows.append({
                "kernel": r["kernel"], "label": r["label"], "order": r["order"],
                "M": r["M"], "N": r["N"], "K": r["K"], "level": level.name,
                "flop": r["flop"], "bytes": moved, "intensity": intensity, "flops": r["flops"],
                "duration_ns": r["duration_ns"], "roof": roof, "pct_of_roof": 100 * r["flops"] / roof if roof > 0 else np.nan,
                "limit": level.name if memory_roof < peak else (held_to if held_to in compute else "compute"),
            })
    columns = ["kernel", "label", "order", "M", "N", "K", "level", "flop", "bytes", "intensity", "flops",
               "duration_ns", "roof", "pct_of_roof", "limit"]
    return pd.DataFrame(rows, columns=columns)


def roofline(kernels: pd.DataFrame) -> Roofline:
    """Points, ceilings and notes for one GPU's launches. Raises GemmprofError for an empty table
    or launches of different GPUs (their ceilings cannot share one plot)."""
    if kernels is None or len(kernels) == 0:
        raise GemmprofError("no profiled launches to put on a roofline",
                            "profile some kernels first: gemmprof profile --kernel all")
    gpus = sorted({str(g) for g in kernels["gpu"].dropna()}) if "gpu" in kernels.columns else []
    if len(gpus) > 1:
        raise GemmprofError(f"the launches come from different GPUs ({', '.join(gpus)})",
                            "draw one roofline per GPU")
    table, notes = ceilings(kernels)
    if not (table["kind"] == "compute").any():
        raise GemmprofError("the reports hold no FP32 peak (peak_fp32_flops), so there is no roofline to draw",
                            "profile with gemmprof profile, which asks ncu for the peak metrics")
    points = roofline_points(kernels, table)
    if points.empty:
        raise GemmprofError("no launch has both FLOPs and memory traffic to place on the roofline")
    kernels_by_level = points.groupby("level")["label"].apply(set).to_dict()
    all_labels = set(points["label"])
    for level in LEVELS:
        missing = sorted(all_labels - kernels_by_level.get(level.name, set()),
                         key=lambda label: points.loc[points["label"] == label, "order"].iloc[0])
        blind = sorted(set(per_kernel(kernels[shared_unmeasured(kernels)])["label"])) if level.name == "shared" else []
        if blind:
            notes.append(f"shared traffic not measured by these counters (wgmma reads shared memory through "
                         f"descriptors), so no shared point: {', '.join(blind)}")
            missing = [m for m in missing if m not in blind]
        if missing and len(missing) < len(all_labels):
            notes.append(f"no {level.name} traffic, so no {level.name} point: {', '.join(missing)}")
        elif missing:
            notes.append(f"no launch has {level.name} traffic")
    return Roofline(points=points, ceilings=table, notes=tuple(notes), gpu=gpus[0] if gpus else None)


def nearest_ceiling(points: pd.DataFrame) -> pd.DataFrame:
    """Per kernel and shape, the point closest to its roof (highest share of the roof) and `bound`:
    the ceiling that roof comes from, a memory level or, right of every ridge, the compute peak."""
    if points.empty:
        return points.assign(bound=pd.Series(dtype="object"))
    best = points.loc[points.groupby("label", sort=False)["pct_of_roof"].idxmax()]
    return best.assign(bound=best["limit"]).sort_values("order", kind="stable").reset_index(drop=True)


