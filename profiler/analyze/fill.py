"""Filling one kernel's `Diagnosis`: its bench results and status, its profiled launch (verdict,
stalls, conflicts, rules, hot lines), its share of the reference, and the facts the ladder
compares. `diagnosis.diagnose_run` decides what to diagnose and calls these in order."""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

import numpy as np
import pandas as pd

from ..catalogue.kernel_spec import KernelSpec
from ..catalogue.manifest import REFERENCES, reference_name
from ..tiers import ERROR, FAIL, FAILED_STATUSES, PASS, REFERENCE_ROWS, SKIP, TIERS
from . import ladder, shared_memory, stalls
from .timeline import read_timeline
from .gemm_shape import executed_per_gemm_flop, gemm_flop, math_flop, shape_of
from .values import file_name, number

if TYPE_CHECKING:
    from .diagnosis_record import Diagnosis

# Bench statuses from worst to best: a kernel's status is its worst over all shapes run.
STATUS_ORDER = (ERROR, FAIL, PASS, SKIP)
# ncu rule results that carry no advice.
RULE_TYPES_SHOWN = ("optimization", "warning", "error", "ok")
# How many source lines a kernel page shows.
TOP_LINES = 8


def _status(statuses: Sequence[str]) -> str | None:
    present = [s for s in STATUS_ORDER if s in set(statuses)]
    if not present:
        return None
    worst = present[0]
    if worst == SKIP and len(present) == 1:
        return SKIP
    return worst


def add_bench(d: Diagnosis, bench: pd.DataFrame | None, shape) -> None:
    if bench is None:
        return
    mine = bench[bench["kernel"].astype(str) == d.name]
    if mine.empty:
        return
    statuses = [str(s) for s in mine["status"]]
    d.status = _status(statuses)
    bad = [f"{r['M']}x{r['N']}x{r['K']}" for r in mine.to_dict("records") if r["status"] in FAILED_STATUSES]
    if bad:
        d.status_note = f"{d.status} at {', '.join(bad)}"
    at_shape = mine[[(shape_of(r) == shape) for r in mine.to_dict("records")]]
    row = at_shape.iloc[0].to_dict() if len(at_shape) else None
    if row is None or row.get("status") != PASS:
        passed = mine[mine["status"] == PASS]
        if row is None and len(passed):
            row = passed.loc[(passed["M"] * passed["N"] * passed["K"]).idxmax()].to_dict()
            d.status_note = (d.status_note + "; " if d.status_note else "") + \
                f"timed at {row['M']}x{row['N']}x{row['K']}, not at the profile shape"
    if row is not None and isinstance(row.get("dispatched_to"), str):
        d.dispatched_to, d.dispatched_at = row["dispatched_to"], shape_of(row)
    if row is not None and row.get("status") == PASS:
        d.gflops, d.time_ms = float(row.get("gflops", np.nan)), float(row.get("median_ms", np.nan))
        d.pct_cublas = float(row.get("pct_of_cublas", np.nan)) if not d.is_reference else 100.0
        d.gflops_source = "bench"
    elif row is not None:
        d.gflops_source = "untimed"  # failed verification there: never timed, and not from ncu either


def reference_idea(name: str) -> str:
    """What a cuBLAS reference is, said where a rung would say its idea."""
    return REFERENCE_ROWS[name].idea


def share_of_cublas_from_ncu(diagnoses: list[Diagnosis], specs: Sequence[KernelSpec]) -> None:
    """Without a benchmark, % of cuBLAS from the profiled launches (same shape, same FLOPs), each
    kernel against the cuBLAS reference of its own tier (an FP16 kernel against GemmEx)."""
    tiers = {s.name: s.tier for s in specs}
    for ref_name in dict.fromkeys(t.reference for t in TIERS.values()):
        reference = next((d for d in diagnoses if d.name == ref_name and d.gflops_source == "ncu"), None)
        if reference is None or not reference.gflops > 0:
            continue
        for d in diagnoses:
            shape = shape_of(d.launch or {})
            same_shape = shape is not None and shape == shape_of(reference.launch or {})  # never guessed
            if d.gflops_source != "ncu" or not same_shape:
                continue
            if d.name == ref_name or (d.name in tiers and reference_name(tiers[d.name]) == ref_name):
                d.pct_cublas = 100.0 * d.gflops / reference.gflops
            elif d.name not in tiers and d.name not in REFERENCES and _foreign_tier(d) == REFERENCE_ROWS[ref_name].tier and d.time_ms > 0:
                # another program's kernel: the same GEMM in less time, whatever FLOPs it executed
                d.pct_cublas = 100.0 * reference.time_ms / d.time_ms


def _foreign_tier(d: Diagnosis) -> str:
    """The tier of a kernel no manifest knows, by the pipe that did its math."""
    return "fp16" if (d.launch or {}).get("math_pipe") == "tensor" else "fp32"


def versus_reference(diagnoses: list[Diagnosis], facts: pd.DataFrame, specs: Sequence[KernelSpec]) -> None:
    """Each profiled kernel beside the cuBLAS reference of its tier, when that was profiled at the
    same shape: the tagline's question, why is my SGEMM slower than cuBLAS, in counters."""
    tiers = {s.name: s.tier for s in specs}
    by_name = {d.name: d for d in diagnoses}
    for d in diagnoses:
        reference = reference_name(tiers.get(d.name, "fp32"))
        ref = by_name.get(reference)
        if d.is_reference or ref is None or not (d.profiled and ref.profiled):
            continue
        if shape_of(d.launch) != shape_of(ref.launch):
            continue
        d.versus, d.versus_name = ladder.versus(facts, d.name, reference), reference
        mine, theirs = _uses(d), _uses(ref)
        if theirs - mine:
            extra = {"quantity": "techniques", "label": "techniques only the reference uses", "kernel": "",
                     "reference": ", ".join(t for t in ref.verdict.already_uses if t not in mine),
                     "ratio": np.nan, "better": None}
            d.versus = pd.concat([d.versus, pd.DataFrame([extra])], ignore_index=True)


def _uses(d: Diagnosis) -> set[str]:
    return set(d.verdict.already_uses) if d.verdict else set()


def add_profile(d: Diagnosis, launch: dict, per: Mapping[str, pd.DataFrame | None]) -> None:
    """The profiled launch's facts. Without a benchmark its rate is the GEMM's 2MNK over ncu's time
    (ncu's executed FLOP/s where the shape is unknown): executed FLOPs count the math on tiles' padding
    past the matrix's edges, and 3xTF32's three MMAs a product, as work, and would make a kernel that
    wastes half its math look as fast as one that wastes none. What ran is kept apart."""
    key = (launch.get("report"), launch.get("launch"))
    d.launch, d.launches = launch, int(launch.get("launches", 1))
    if d.launches > 1:
        d.warnings.append(f"{d.launches} launches at this shape; the longest is diagnosed.")
    if shape_of(launch) != d.shape:
        d.warnings.append(f"Profiled at {'x'.join(map(str, shape_of(launch) or ()))}, not at the run's profile shape.")
    ns = number(launch.get("duration_ns"))
    if ns > 0:
        d.executed_gflops = math_flop(launch) / ns  # FLOP per ns = GFLOP/s
        d.executed_per_gemm_flop = executed_per_gemm_flop(launch)
    if not d.gflops_source and ns > 0:
        flop = gemm_flop(launch)
        d.gflops = flop / ns if flop > 0 else number(launch.get("achieved_flops")) / 1e9
        if not np.isnan(d.gflops):
            d.gflops_source, d.time_ms = "ncu", ns / 1e6

    def mine(name: str) -> pd.DataFrame:
        frame = per.get(name)
        if frame is None or frame.empty:
            return pd.DataFrame()
        return frame[(frame["report"] == key[0]) & (frame["launch"] == key[1])].reset_index(drop=True)

    verdict = mine("verdicts")
    d.verdict = verdict["verdict"].iloc[0] if len(verdict) else None
    if len(verdict):
        d.origin, d.attribution = verdict["origin"].iloc[0], verdict["attribution"].iloc[0]
    d.utilisation = _row(mine("utilisation"))
    d.stalls = mine("stalls")
    d.conflicts = mine("conflicts")
    d.conflict_lines = mine("conflict_lines")
    d.occupancy = _row(mine("occupancy"))
    d.traffic = mine("traffic")
    d.mix = _row(mine("mix"))
    d.banks = _row(mine("banks"))
    d.regions = _row(mine("regions"))
    d.timeline = read_timeline(mine("timeline"), launch)
    d.coalescing = _row(mine("coalescing"))
    d.rules = _rules(mine("rules"))
    source = mine("source")
    d.hot_lines, d.listing, d.source_file = _lines(source)
    if per.get("source") is None:
        d.warnings.append("No source table in this run: no source lines.")
    elif d.hot_lines.empty and not d.is_reference:  # cuBLAS never has line information
        d.warnings.append("No line information for this kernel: it was not compiled with -lineinfo.")


def _row(frame: pd.DataFrame) -> dict | None:
    return frame.iloc[0].to_dict() if len(frame) else None


def _rules(rules: pd.DataFrame) -> pd.DataFrame:
    """ncu's rule results with advice, ranked by estimated speedup (those without one last)."""
    columns = ["rule", "section", "title", "message", "message_type", "estimated_speedup_pct", "speedup_type"]
    if rules.empty:
        return pd.DataFrame(columns=columns)
    have = rules[rules["message"].fillna("").str.strip().ne("") & rules["message_type"].isin(RULE_TYPES_SHOWN)]
    have = have.assign(_advice=(have["message_type"] == "ok").astype(int))
    have = have.sort_values(["_advice", "estimated_speedup_pct"], ascending=[True, False], na_position="last",
                            kind="stable")
    return have[[c for c in columns if c in have.columns]].reset_index(drop=True)


def _lines(source: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, str | None]:
    """(hot lines, listing, file name). Hot lines: the top lines by PC samples with their share
    and main reasons. Listing: every line with code, in order, with its share of the samples."""
    columns = ["line", "code", "samples", "share_pct", "reasons", "file"]
    if source.empty:
        return pd.DataFrame(columns=columns), pd.DataFrame(columns=columns), None
    with_lines = source[source["line"].notna()].copy()
    total = source["samples"].fillna(0).sum()
    if with_lines.empty or total <= 0:
        return pd.DataFrame(columns=columns), pd.DataFrame(columns=columns), None
    with_lines["share_pct"] = 100.0 * with_lines["samples"].fillna(0) / total
    with_lines["reasons"] = stalls.sampled_reasons(with_lines)
    with_lines["file"] = [file_name(f) for f in with_lines["file"]]
    files = with_lines["file"].dropna()
    main_file = files.value_counts().index[0] if len(files) else None
    hot = with_lines[with_lines["samples"].fillna(0) > 0].sort_values("samples", ascending=False, kind="stable")
    hot = hot.head(TOP_LINES)[columns].reset_index(drop=True)
    listing = with_lines[with_lines["code"].notna() & (with_lines["file"] == main_file)]
    listing = listing.sort_values("line")[columns].reset_index(drop=True)
    return hot, listing, main_file


def facts(d: Diagnosis) -> dict:
    """The numbers `ladder.changes` compares (see `ladder.QUANTITIES`)."""
    k, u, m = d.launch or {}, d.utilisation or {}, d.mix or {}

    def conflict(kind: str) -> float:
        if d.conflicts is None or d.conflicts.empty:
            return np.nan if not d.profiled else 1.0
        row = d.conflicts[d.conflicts["kind"] == kind]
        if row.empty:
            return 1.0
        return float(row["n_way"].iloc[0]) if row["status"].iloc[0] == "conflicts" else 1.0

    return {
        "kernel": d.name, "gflops": d.gflops, "time_ms": d.time_ms,
        "bound": d.verdict.label if d.verdict else None, "sm_busy_pct": k.get("sm_busy_pct", np.nan),
        "dram_bytes": k.get("dram_bytes", np.nan), "l2_bytes": k.get("l2_bytes", np.nan),
        "l1_bytes": k.get("l1_bytes", np.nan),
        "global_load_per_math": m.get("global_load_per_math", np.nan),
        "shared_load_per_math": m.get("shared_load_per_math", np.nan),
        "all_per_math": m.get("all_per_math", np.nan),
        # FFMAs are the math only where the mix says so; beside MMAs they are the epilogue's alpha and beta
        "ffma_bank_conflict_pct": (d.banks or {}).get("ffma_bank_conflict_pct", np.nan) if m.get("math_op") == "FFMA" else np.nan,
        "epilogue_pct": (d.regions or {}).get("epilogue_pct", np.nan),
        # wgmma's shared reads are invisible to the wavefront counters: not measured, never "x0"
        "shared_load_wavefronts": np.nan if k and shared_memory.shared_unmeasured(pd.DataFrame([k])).iloc[0]
        else k.get("shared_load_wavefronts", np.nan),
        "load_conflicts": conflict("load"), "store_conflicts": conflict("store"),
        "achieved_occupancy_pct": k.get("achieved_occupancy_pct", np.nan),
        "registers_per_thread": k.get("registers_per_thread", np.nan),
        "issue_pct": u.get("issue", np.nan), "fp32_pct": u.get("fp32", np.nan),
        "tensor_pct": u.get("tensor", np.nan),
        "top_stall": _top_real_stall(d.stalls),
    }


def _top_real_stall(top: pd.DataFrame) -> str | None:
    """Label of the costliest stall reason that is a cost ('not selected' is not)."""
    if top is None or top.empty:
        return None
    real = top[~top["benign"].astype(bool)]
    return stalls.explain(real["reason"].iloc[0]).label if len(real) else None
