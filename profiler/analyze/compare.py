"""Two runs side by side: what got slower, what got faster, what is only noise.

Pure functions over `bench` tables (and `kernels` tables when both runs were profiled): no I/O,
no printing, inputs never mutated.

The verdict of one kernel and shape, base -> new:
- `slower` (a regression): the median time grew by more than the threshold AND the spreads do not
  overlap (the new p10 is above the base p90), so the runs' own noise cannot explain it;
- `faster`: the mirror image (new p90 below the base p10, time down by more than the threshold);
- `noise`: the median moved by more than the threshold, but inside the measured spread;
- `same`: the median moved by no more than the threshold;
- `broken` (a regression): it passed verification in the base run and does not pass now (FAIL,
  ERROR, SKIP or anything else: a CI gate must not let a kernel quietly drop out);
- `unmeasured` (a regression): PASS in both, but the new run holds no usable time for it (NaN);
- `fixed`: the reverse of broken; `not timed`: not timed in either run, or the base has no time;
- `added` / `removed`: the kernel and shape is in one run only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..metrics import describe
from .roofline import kernel_names
from .values import numeric_column
from ..tiers import PASS

KEYS = ["kernel", "M", "N", "K"]
REGRESSIONS = ("slower", "broken", "unmeasured")
TIMED = PASS
DEFAULT_THRESHOLD = 0.03


@dataclass(frozen=True)
class KeyMetric:
    """An ncu column worth comparing between runs, and how launches of one kernel combine."""

    column: str
    label: str
    # "sum" over the launches of one kernel, "longest": the longest launch's value, or "flops":
    # the FLOPs of all its launches over their summed time
    combine: str
    higher_is_better: bool | None = None


# The ncu metrics `compare` shows. Time and FLOP/s come first; units come from the metric table.
KEY_METRICS: tuple[KeyMetric, ...] = (
    KeyMetric("duration_ns", "time", "sum", higher_is_better=False),
    KeyMetric("achieved_flops", "FLOP/s", "flops", higher_is_better=True),
    KeyMetric("dram_bytes", "DRAM bytes", "sum", higher_is_better=False),
    KeyMetric("l2_bytes", "L2 bytes", "sum", higher_is_better=False),
    KeyMetric("shared_bank_conflicts", "bank conflicts", "sum", higher_is_better=False),
    KeyMetric("achieved_occupancy_pct", "occupancy", "longest"),
    KeyMetric("registers_per_thread", "registers", "longest"),
    KeyMetric("sm_clock_hz", "SM clock", "longest"),
)

ENVIRONMENT_KEYS = {
    "gpu_name": "GPU", "driver": "driver", "cuda_runtime": "CUDA runtime", "cublas_version": "cuBLAS",
    "sm_clock_max_mhz": "SM clock max (MHz)", "mem_clock_max_mhz": "memory clock max (MHz)",
}


def _bench_side(bench: pd.DataFrame) -> pd.DataFrame:
    """The columns compare needs, one row per kernel and shape (the last row wins on repeats)."""
    out = pd.DataFrame({
        "kernel": bench["kernel"].astype(str),
        "M": numeric_column(bench, "M").astype("Int64"), "N": numeric_column(bench, "N").astype("Int64"), "K": numeric_column(bench, "K").astype("Int64"),
        "status": bench["status"].astype(str) if "status" in bench.columns else TIMED,
        "median_ms": numeric_column(bench, "median_ms"), "p10_ms": numeric_column(bench, "p10_ms"), "p90_ms": numeric_column(bench, "p90_ms"),
        "gflops": numeric_column(bench, "gflops"), "pct_of_cublas": numeric_column(bench, "pct_of_cublas"),
    })
    return out.drop_duplicates(KEYS, keep="last")


def judge_change(status_base, status_new, base: dict, new: dict, threshold: float) -> tuple[str, float]:
    """(verdict, relative change of the median time) for one kernel and shape; see the module
    docstring. `base`/`new` hold median_ms, p10_ms, p90_ms."""
    if status_base is None:
        return "added", np.nan
    if status_new is None:
        return "removed", np.nan
    if status_base == TIMED and status_new != TIMED:
        return "broken", np.nan
    if status_base != TIMED and status_new == TIMED:
        return "fixed", np.nan
    if status_base != TIMED or status_new != TIMED:
        return "not timed", np.nan
    if not _usable(new["median_ms"]):
        return "unmeasured", np.nan
    if not _usable(base["median_ms"]):
        return "not timed", np.nan
    change = new["median_ms"] / base["median_ms"] - 1.0
    if abs(change) <= threshold:
        return "same", change
    # Without a recorded spread (p10/p90 missing), the median alone decides.
    base_p10 = base["p10_ms"] if np.isfinite(base["p10_ms"]) else base["median_ms"]
    base_p90 = base["p90_ms"] if np.isfinite(base["p90_ms"]) else base["median_ms"]
    new_p10 = new["p10_ms"] if np.isfinite(new["p10_ms"]) else new["median_ms"]
    new_p90 = new["p90_ms"] if np.isfinite(new["p90_ms"]) else new["median_ms"]
    if change > 0:
        return ("slower" if new_p10 > base_p90 else "noise"), change
    return ("faster" if new_p90 < base_p10 else "noise"), change


def _usable(ms) -> bool:
    """A time that can be compared: a finite number above zero."""
    return ms is not None and not pd.isna(ms) and np.isfinite(ms) and ms > 0


def _ratio_change(new, base) -> float:
    """new / base - 1, NaN where base is zero or either is unknown (never a ZeroDivisionError)."""
    return new / base - 1.0 if _usable(base) and new is not None and not pd.isna(new) else np.nan


def compare_bench(base: pd.DataFrame, new: pd.DataFrame, threshold: float = DEFAULT_THRESHOLD) -> pd.DataFrame:
    """One row per kernel and shape in either run: statuses, median and spread of both, the
    change in time and GFLOP/s (new / base - 1), the verdict and whether it is a regression.
    Rows in the base run's order, then the ones only the new run has."""
    if threshold < 0:
        raise ValueError("threshold must not be negative")
    b, n = _bench_side(base), _bench_side(new)
    joined = b.merge(n, on=KEYS, how="outer", suffixes=("_base", "_new"), indicator=True, sort=False)
    order = {key: i for i, key in enumerate(map(tuple, b[KEYS].astype(object).to_numpy()))}
    after = len(order)
    rank = []
    for key in map(tuple, joined[KEYS].astype(object).to_numpy()):
        if key not in order:
            order[key] = after = after + 1
        rank.append(order[key])
    joined = joined.assign(_rank=rank).sort_values("_rank", kind="stable").drop(columns="_rank")
    rows = []
    for r in joined.to_dict("records"):
        status_base = r["status_base"] if r["_merge"] != "right_only" else None
        status_new = r["status_new"] if r["_merge"] != "left_only" else None
        side = {s: {c: r.get(f"{c}_{s}", np.nan) for c in ("median_ms", "p10_ms", "p90_ms")} for s in ("base", "new")}
        kind, change = judge_change(status_base, status_new, side["base"], side["new"], threshold)
        rows.append({
            "kernel": r["kernel"], "M": r["M"], "N": r["N"], "K": r["K"],
            "status_base": status_base, "status_new": status_new,
            "base_ms": r["median_ms_base"], "new_ms": r["median_ms_new"],
            "base_p10_ms": r["p10_ms_base"], "base_p90_ms": r["p90_ms_base"],
            "new_p10_ms": r["p10_ms_new"], "new_p90_ms": r["p90_ms_new"],
            "time_change": change,
            "base_gflops": r["gflops_base"], "new_gflops": r["gflops_new"],
            "gflops_change": _ratio_change(r["gflops_new"], r["gflops_base"]) if status_base == status_new == TIMED else np.nan,
            "base_pct_of_cublas": r["pct_of_cublas_base"], "new_pct_of_cublas": r["pct_of_cublas_new"],
            "verdict": kind, "regression": kind in REGRESSIONS,
        })
    columns = ["kernel", "M", "N", "K", "status_base", "status_new", "base_ms", "new_ms", "base_p10_ms", "base_p90_ms",
               "new_p10_ms", "new_p90_ms", "time_change", "base_gflops", "new_gflops", "gflops_change",
               "base_pct_of_cublas", "new_pct_of_cublas", "verdict", "regression"]
    return pd.DataFrame(rows, columns=columns)


def per_kernel_metrics(kernels: pd.DataFrame) -> pd.DataFrame:
    """The `KEY_METRICS` per kernel and shape of a kernels table: summed over a kernel's launches
    (cuBLAS may launch several), or the longest launch's value; FLOP/s recomputed from the sums."""
    frame = pd.DataFrame({
        "kernel": kernel_names(kernels),
        "M": numeric_column(kernels, "M").astype("Int64"), "N": numeric_column(kernels, "N").astype("Int64"), "K": numeric_column(kernels, "K").astype("Int64"),
        "flop": numeric_column(kernels, "fp32_flop").fillna(0) + numeric_column(kernels, "tensor_flop").fillna(0),
    })
    for metric in KEY_METRICS:
        if metric.combine != "flops":
            frame[metric.column] = numeric_column(kernels, metric.column)
    frame = frame.reset_index(drop=True)  # one label a launch: the longest is picked by label
    groups = frame.groupby(KEYS, sort=False, dropna=False)
    summed = groups[[m.column for m in KEY_METRICS if m.combine == "sum"] + ["flop"]].sum(min_count=1)
    # each group's longest launch (ties and unknown durations: the first), its row's values
    longest = frame.loc[frame.assign(_d=frame["duration_ns"].fillna(-1)).groupby(KEYS, sort=False, dropna=False)["_d"].idxmax()]
    out = longest.set_index(KEYS)[[m.column for m in KEY_METRICS if m.combine == "longest"]]
    out = out.join(summed, how="left")
    out["achieved_flops"] = summed["flop"].fillna(0) / (summed["duration_ns"] * 1e-9)  # no duration: unknown
    out = out.reset_index().astype({"M": "Int64", "N": "Int64", "K": "Int64"})
    return out[[*KEYS, *(m.column for m in KEY_METRICS)]]


def compare_kernels(base: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """Long form, one row per kernel, shape and key metric present in both runs: base, new, the
    relative change (new / base - 1), the unit and whether higher is better."""
    b, n = per_kernel_metrics(base), per_kernel_metrics(new)
    joined = b.merge(n, on=KEYS, how="inner", suffixes=("_base", "_new"), sort=False)
    rows = []
    for r in joined.to_dict("records"):
        for metric in KEY_METRICS:
            old, now = r[f"{metric.column}_base"], r[f"{metric.column}_new"]
            if pd.isna(old) and pd.isna(now):
                continue
            change = now / old - 1.0 if old and not pd.isna(old) and not pd.isna(now) else np.nan
            rows.append({**{k: r[k] for k in KEYS}, "metric": metric.column, "label": metric.label,
                         "unit": describe(metric.column)[0], "base": old, "new": now, "change": change,
                         "higher_is_better": metric.higher_is_better})
    return pd.DataFrame(rows, columns=[*KEYS, "metric", "label", "unit", "base", "new", "change", "higher_is_better"])


def gpu_of(meta: dict, kernels: pd.DataFrame | None = None) -> str | None:
    """The GPU a run was measured on: run.json's environment, else the kernels table's `gpu`."""
    name = (meta.get("environment") or {}).get("gpu_name")
    if not name and kernels is not None and "gpu" in kernels.columns and kernels["gpu"].notna().any():
        name = str(kernels["gpu"].dropna().iloc[0])
    return name or None


def environment_differences(base_meta: dict, new_meta: dict) -> list[tuple[str, object, object]]:
    """(what, base, new) for each environment fact that a timing depends on and that differs."""
    base_env, new_env = base_meta.get("environment") or {}, new_meta.get("environment") or {}
    return [(label, base_env.get(key), new_env.get(key)) for key, label in ENVIRONMENT_KEYS.items()
            if base_env.get(key) != new_env.get(key)]


def summarize(table: pd.DataFrame) -> dict[str, int]:
    """Count of rows per verdict, plus 'regressions'."""
    counts = {k: int(v) for k, v in table["verdict"].value_counts().items()}
    counts["regressions"] = int(table["regression"].sum())
    return counts
