"""View models of the two kinds of page: everything a kernel page or the run index shows, formatted
and format-neutral; the templates only lay it out."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..analyze.bounds import BOUNDS
from ..analyze.causes import meaning_of
from ..analyze.timeline import describe as describe_timeline
from ..analyze.diagnosis_record import Diagnosis, RunDiagnosis
from ..analyze.gemm_shape import FROM_NVTX, FROM_OPTION, UNKNOWN_SHAPE
from ..numbers import fmt_num, fmt_pct, fmt_times
from ..analyze.values import flag
from ..analyze.sentences import tensor_peak_name, uses_tensor_cores
from ..catalogue.manifest import REFERENCES
from ..tiers import CONTEXT, REFERENCE_ROWS, TIMED_STATUSES, tier
from .page_tables import (Cell, Table, changes_table, conflict_lines_table, conflicts_table, gflops_change,
                          hot_lines_table, is_missing, listing, mix_table, num_cell, occupancy_view, rules_table,
                          stalls_table, status_cell, traffic_notes, traffic_table, unchanged, versus_table)


# Executed FLOPs this far from the GEMM's 2MNK (as a share) are shown beside its GFLOP/s.
EXECUTED_APART = 0.02


def executed_apart(d: Diagnosis) -> bool:
    """Whether the launch executed FLOPs other than the GEMM's 2MNK (3xTF32's three products, padding)."""
    return not is_missing(d.executed_per_gemm_flop) and abs(d.executed_per_gemm_flop - 1.0) >= EXECUTED_APART


def _ncu_rate(d: Diagnosis) -> str:
    """What a rate timed by ncu is: the GEMM's 2MNK over the time where the shape is known, else
    the FLOPs the launch executed (`fill.add_profile`)."""
    return " (ncu: 2MNK / time)" if d.own_shape else " (ncu: FLOPs executed / time)"


def profile_command(name: str) -> str | None:
    """The command that profiles `name`, for a page without a profile of it: a rung by its name,
    a cuBLAS yardstick as `-k cublas` of its tier (there is no kernel `cublas-fp16`); None for a
    context row (cuBLAS FAST_TF32), which gemmprof times beside the yardstick but never profiles."""
    if name not in REFERENCE_ROWS:
        return f"gemmprof profile -k {name}"
    row = REFERENCE_ROWS[name]
    if row.context:
        return None
    return "gemmprof profile -k cublas" + ("" if row.tier == "fp32" else f" --tier {row.tier}")


def _profile_command(d: Diagnosis) -> str | None:
    """For a dispatcher (not a kernel ncu can run), the command that profiles the kernel it ran
    where its numbers come from."""
    if d.dispatched_to and d.dispatched_at:
        return f"{profile_command(d.dispatched_to)} --mnk " + " ".join(map(str, d.dispatched_at))
    return profile_command(d.name)


def kernel_view(d: Diagnosis, run: RunDiagnosis) -> dict[str, Any]:
    """Everything a kernel page shows, formatted (format-neutral)."""
    k = d.launch or {}
    shape = "x".join(map(str, d.own_shape)) if d.own_shape else "n/a"
    source = k.get("shape_source")
    shape_cell = Cell(shape + (f" (from the {source})" if d.own_shape and source in (FROM_OPTION, FROM_NVTX) else ""))
    if d.profiled and not d.own_shape:
        shape_cell = Cell("unknown (pass --mnk M N K)")
    facts = [
        ("verification", status_cell(d.status, d.status_note)),
        ("shape (M x N x K)", shape_cell),
        ("GFLOP/s", Cell(fmt_num(d.gflops) + (_ncu_rate(d) if d.gflops_source == "ncu" else ""))),
        ("% of cuBLAS", Cell(fmt_pct(d.pct_cublas) + (" (ncu)" if d.gflops_source == "ncu" else ""))),
        ("time", Cell(f"{fmt_num(d.time_ms)} ms" if not is_missing(d.time_ms) else "n/a")),
    ]
    if executed_apart(d):  # GFLOP/s is the GEMM's 2MNK / time; this is what ran (3xTF32's products, padding)
        pipe = (d.launch or {}).get("math_pipe")
        on = BOUNDS[pipe].label if pipe in BOUNDS else f"{pipe} pipe"
        facts.append(("FLOP/s executed", Cell(f"{fmt_num(d.executed_gflops / 1e3)} T on the {on}, "
                                              f"{fmt_times(d.executed_per_gemm_flop)} the GEMM's 2MNK")))
    if d.utilisation:
        clock = k.get("sm_clock_hz")
        at = f" at {fmt_num(clock / 1e9, 3)} GHz" if not is_missing(clock) and clock > 0 else ""  # the peak is at this clock
        if uses_tensor_cores(d.utilisation):  # its FMA pipe share says nothing
            facts.append(("tensor cores", Cell(f"{fmt_pct(d.utilisation['tensor'])} of {tensor_peak_name(d.utilisation)} peak{at}")))
        else:
            facts.append(("FP32 pipe", Cell(fmt_pct(d.utilisation["fp32"]) + f" of peak{at}")))
    view: dict[str, Any] = {
        "d": d, "facts": facts, "verdict": d.verdict, "shape": shape, "profile_command": _profile_command(d),
        "changes": changes_table(d), "unchanged": unchanged(d), "versus": versus_table(d),
        "gflops_change": gflops_change(d),
        "stalls": stalls_table(d), "conflicts": conflicts_table(d), "conflict_lines": conflict_lines_table(d),
        "occupancy": occupancy_view(d), "traffic": traffic_table(d), "traffic_notes": traffic_notes(d),
        "shape_unknown": UNKNOWN_SHAPE if d.profiled and not d.own_shape else None,
        "mix": mix_table(d), "math_op": (d.mix or {}).get("math_op", "FFMA"), "coalescing": d.coalescing,
        "rules": rules_table(d), "hot_lines": hot_lines_table(d), "listing": listing(d),
        "gpu": k.get("gpu") or (run.meta.get("environment") or {}).get("gpu_name"),
        "kernel_function": k.get("function"),
        "ranked": [f"{meaning_of(key)} ({key})" for key in (d.verdict.ranked if d.verdict else ()) if key != "dram"],
        "memory_roof_beside": bool(d.verdict and "dram" in d.verdict.ranked),
        "timeline": ({"caption": describe_timeline(d.timeline), "findings": d.timeline.findings()}
                     if d.timeline is not None else None),
        "estimates": _estimates(d),
    }
    return view


def _estimates(d: Diagnosis) -> str | None:
    """ncu's estimated speedups for the rung below beside the one measured, in one sentence."""
    e = d.estimates
    if not e:
        return None
    said = "; ".join(f"{title} (+{fmt_pct(pct)})" for title, pct in e["estimates"])
    return (f"ncu's estimates for {d.rung_below}: {said}. Measured, {d.name} against it at the same shape: "
            f"{e['measured_pct']:+.0f}% ({'faster' if e['measured_pct'] >= 0 else 'slower'}).")


def index_view(run: RunDiagnosis) -> dict[str, Any]:
    env = run.meta.get("environment") or {}
    shape = "x".join(map(str, run.shape)) if run.shape else "n/a"
    summary = Table(["kernel", "GFLOP/s", "% cuBLAS", "bound by", "the problem", "verification"], align="lrrlll",
                    cls="summary")
    for d in run.kernels:
        ncu = " (ncu)" if d.gflops_source == "ncu" else ""
        gflops = fmt_num(d.gflops) + ncu if not is_missing(d.gflops) else "n/a"
        pct = fmt_pct(d.pct_cublas) + (ncu if not is_missing(d.pct_cublas) else "")
        summary.rows.append([
            Cell(d.name, "link", d.name), num_cell(gflops), num_cell(pct),
            Cell(d.verdict.label if d.verdict else "not profiled"), Cell(d.verdict.problem if d.verdict else ""),
            status_cell(d.status, d.status_note),
        ])
        summary.row_classes.append("top" if d.is_reference else "")
    shapes = list(dict.fromkeys(run.sizes["shape"])) if not run.sizes.empty else []
    sizes = Table(["kernel", *[f"{s} GFLOP/s" for s in shapes]], align="l" + "r" * len(shapes), cls="sizes")
    for name in dict.fromkeys(run.sizes["kernel"]) if shapes else []:
        mine = run.sizes[run.sizes["kernel"] == name].set_index("shape")
        cells = [Cell(name, "link", name) if any(k.name == name for k in run.kernels) else Cell(name)]
        for s in shapes:
            if s not in mine.index:
                cells.append(num_cell(""))
                continue
            r = mine.loc[s]
            r = r.iloc[0] if isinstance(r, pd.DataFrame) else r
            if r["status"] in TIMED_STATUSES and not is_missing(r["gflops"]):
                text = fmt_num(r["gflops"]) + ("*" if flag(r.get("throttled")) else "")
                text += " (context)" if r["status"] == CONTEXT else ""
                if name not in REFERENCES and not is_missing(r["pct_cublas"]):
                    text += f" ({fmt_pct(r['pct_cublas'])})"
                cells.append(num_cell(text))
            else:
                cells.append(Cell(str(r["status"]), "status"))
        sizes.rows.append(cells)
    climbs = []
    for d in run.kernels:
        change = gflops_change(d)
        if d.rung_below and change:
            climbs.append((d.rung_below, d.name, change,
                           f"{d.verdict.label} ({d.verdict.problem})" if d.verdict else None))
    return {
        "run": run, "summary": summary, "sizes": sizes, "shape": shape, "env": env, "suite": suite_view(run), "meta": {"created": None, "command": None, **run.meta},  # the template asks for both
        "gpu": env.get("gpu_name"), "climbs": climbs, "ladder": _heading(run),
        "from_bench": any(d.gflops_source == "bench" for d in run.kernels),
        "profiled": sum(1 for d in run.kernels if d.profiled),
    }


def _heading(run) -> str:
    """What the run's report is headed by: its tier's ladder (an FP16 run is no SGEMM ladder),
    "GEMM ladders" for kernels of several tiers, "Kernels" where none has a tier (a program's)."""
    tiers = {d.tier for d in run.kernels if d.tier}
    if len(tiers) == 1:
        return tier(tiers.pop()).ladder
    return "GEMM ladders" if tiers else "Kernels"


def suite_view(run: RunDiagnosis) -> dict[str, Any] | None:
    """A suite run's summary: per kernel the geometric mean and minimum of % of cuBLAS over the
    suite's shapes, best first; a mean over fewer shapes than the suite is marked."""
    if run.suite is None:
        return None
    profiled = {d.name for d in run.kernels}
    table = Table(["kernel", "tier", "geometric mean", "minimum", "at", "shapes passed"], align="llrrlr", cls="suite")
    for r in run.suite.summary.to_dict("records"):
        short = "" if r["covers"] else " *"
        table.rows.append([Cell(r["kernel"], "link", r["kernel"]) if r["kernel"] in profiled else Cell(r["kernel"]),
                           Cell(r["tier"]), num_cell(fmt_pct(r["geomean_pct_cublas"]) + short),
                           num_cell(fmt_pct(r["min_pct_cublas"])), Cell(r["min_shape"] or "-"),
                           num_cell(f"{r['passed']} of {r['shapes']}")])
    return {"name": run.suite.name, "shapes": len(run.suite.shapes), "table": table,
            "partial": not run.suite.summary["covers"].all()}
