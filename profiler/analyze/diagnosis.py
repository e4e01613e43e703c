"""A recorded run -> one `Diagnosis` per kernel, and the run's summary (pure: frames in, frames out).

The run's tables (`kernels`, `rules`, `source`, `sass` from `gemmprof profile`; `bench` from
`gemmprof bench`) and the manifest are all it reads. Each kernel gets the launch profiled at the
run's profile shape, the verdict (`verdict.py`), its top stalls (`stalls.py`), bank conflicts
(`shared_memory.py`), traffic (`global_memory.py`), instruction mix (`instruction_mix.py`),
occupancy (`occupancy.py`), ncu's rules ranked by estimated speedup, its hottest source lines, and what changed from its predecessor (`ladder.py`).
A kernel that was benchmarked but not profiled still gets a diagnosis, with no verdict. This module
chooses what to diagnose and assembles the run; `fill.py` fills each kernel's record.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ..catalogue.kernel_spec import KernelSpec
from ..catalogue.manifest import REFERENCES
from ..tiers import PASS, TIMED_STATUSES
from . import fill, global_memory, instruction_mix, ladder, shared_memory, stalls
from .occupancy import occupancy
from .gemm_shape import shape_of
from .regions import time_regions
from .register_banks import register_bank_conflicts
from .roofline import kernel_names
from .suite import suite_of_run
from .signals import utilisation
from .diagnosis_record import Diagnosis, RunDiagnosis
from .verdict import LaunchEvidence, classify


# How many stall reasons and conflicted source lines a kernel page shows.
TOP_STALLS = 5
TOP_CONFLICT_LINES = 5


def diagnose_run(tables: Mapping[str, pd.DataFrame], specs: Sequence[KernelSpec], meta: Mapping | None = None,
                 profile_log: pd.DataFrame | None = None) -> RunDiagnosis:
    """Diagnose every kernel of a run. `tables` maps table names (kernels, rules, source, sass,
    bench) to frames, any of them absent; `profile_log` is `profile.jsonl` as a frame (its
    verification status stands in for a missing bench)."""
    warnings: list[str] = []
    kernels = _named(tables.get("kernels"))
    bench = tables.get("bench")
    bench = bench if bench is not None and not bench.empty else None
    if kernels is None or kernels.empty:
        warnings.append("This run has no profiled kernels (no kernels table, or an empty one): no verdicts. "
                        "Run `gemmprof profile` to get them.")
        kernels = None
    shape = _profile_shape(kernels) if kernels is not None else _bench_shape(bench)
    chosen = _choose_launches(kernels, shape) if kernels is not None else pd.DataFrame()
    names = list(chosen["name"]) if len(chosen) else []
    if bench is not None:
        names += [n for n in bench["kernel"].astype(str).unique() if n not in names]
    specs = [s for s in specs if s.name not in _foreign(chosen, bench)]
    order = ladder.ladder_order(names, specs)
    per_launch = _per_launch(chosen, tables) if len(chosen) else {}
    evidence = _Evidence(bench, chosen, per_launch, kernels is not None, profile_log)
    diagnoses = [_diagnose_kernel(name, order, specs, shape, evidence) for name in order]
    _side_by_side(diagnoses, specs)
    if not diagnoses:
        warnings.append("This run holds no kernels: neither a profile nor a benchmark.")
    suite = suite_of_run(bench, meta)
    return RunDiagnosis(diagnoses, _summary(diagnoses), _sizes(bench, order), shape, dict(meta or {}), warnings, suite)


@dataclass(frozen=True)
class _Evidence:
    """What a run holds about its kernels: the bench table, the launch chosen per kernel and
    each launch's evidence, whether the run was profiled at all, profile.jsonl."""

    bench: pd.DataFrame | None
    chosen: pd.DataFrame
    per_launch: dict
    profiled: bool
    profile_log: pd.DataFrame | None


def _dispatcher_tier(name: str, bench: pd.DataFrame | None) -> str | None:
    """The tier of a benched name no kernel spec has and that is no cuBLAS reference: a dispatcher
    (best-fp16), whose bench rows carry the tier it chooses among."""
    if name in REFERENCES or bench is None or "tier" not in bench or "kernel" not in bench:
        return None
    tiers = set(bench.loc[bench["kernel"] == name, "tier"].dropna())
    return tiers.pop() if len(tiers) == 1 else None


def _diagnose_kernel(name: str, order: list[str], specs: Sequence[KernelSpec], shape, evidence: _Evidence) -> Diagnosis:
    """One kernel's diagnosis on its own: its place in the ladder, its bench row, its chosen
    launch's evidence (or why there is none), its verification status."""
    bench, chosen, profile_log = evidence.bench, evidence.chosen, evidence.profile_log
    by_spec = {s.name: s for s in specs}
    spec = by_spec.get(name)
    idea = spec.idea if spec else fill.reference_idea(name) if name in REFERENCES else None
    d = Diagnosis(name=name, rung=ladder.tier_rung(name, specs), tier=spec.tier if spec else _dispatcher_tier(name, bench),
                  idea=idea, shape=shape)
    d.predecessor = ladder.predecessor(name, order, specs)
    d.successor = ladder.successor(name, order, specs)
    if d.successor and d.successor in by_spec:
        d.successor_idea = by_spec[d.successor].idea
    elif d.successor in REFERENCES:
        d.successor_idea = fill.reference_idea(d.successor)
    fill.add_bench(d, bench, shape)
    if len(chosen) and name in set(chosen["name"]):
        fill.add_profile(d, chosen[chosen["name"] == name].iloc[0].to_dict(), evidence.per_launch)
    elif evidence.profiled:
        d.warnings.append("Not profiled in this run: timing only.")
    if d.status is None and profile_log is not None and "status" in profile_log.columns:
        logged = profile_log[profile_log["kernel"] == name]["status"].dropna()
        if len(logged):
            d.status, d.status_note = str(logged.iloc[-1]), "verified when profiled"
    if not d.profiled and np.isnan(d.gflops):
        d.warnings.append("No timing and no profile for this kernel in this run.")
    return d


def _side_by_side(diagnoses: list[Diagnosis], specs: Sequence[KernelSpec]) -> None:
    """What each diagnosis learns from the others: its share of cuBLAS from ncu, what changed from
    the rung below, the reference beside it, and ncu's estimates for the rung below beside what
    this rung measured against it."""
    fill.share_of_cublas_from_ncu(diagnoses, specs)
    facts = pd.DataFrame([fill.facts(d) for d in diagnoses]).set_index("kernel") if diagnoses else pd.DataFrame()
    changes = ladder.changes(facts, specs) if len(facts) else pd.DataFrame(columns=["kernel"])
    for d in diagnoses:
        d.changes = changes[changes["kernel"] == d.name].reset_index(drop=True)
    fill.versus_reference(diagnoses, facts, specs)
    by_name = {d.name: d for d in diagnoses}
    for d in diagnoses:
        below = by_name.get(d.rung_below) if d.rung_below else None
        if below is not None and d.profiled and below.profiled and shape_of(d.launch) == shape_of(below.launch):
            d.estimates = ladder.estimates_beside_measured(below.rules, fill.number(below.launch.get("duration_ns")),
                                                           fill.number(d.launch.get("duration_ns")))


SUMMARY_COLUMNS = ["kernel", "rung", "gflops", "pct_cublas", "time_ms", "gflops_source", "bound", "label", "problem",
                   "status", "status_note"]


def _summary(diagnoses: list[Diagnosis]) -> pd.DataFrame:
    """A row per kernel: its rung, speed, bound, verdict and verification status."""
    return pd.DataFrame([{
        "kernel": d.name, "rung": d.rung, "gflops": d.gflops, "pct_cublas": d.pct_cublas, "time_ms": d.time_ms,
        "gflops_source": d.gflops_source, "bound": d.verdict.bound if d.verdict else None,
        "label": d.verdict.label if d.verdict else None, "problem": d.verdict.problem if d.verdict else None,
        "status": d.status, "status_note": d.status_note,
    } for d in diagnoses], columns=SUMMARY_COLUMNS)


# ---------------------------------------------------------------------------------------------
# Choosing what to diagnose


def _foreign(chosen: pd.DataFrame, bench: pd.DataFrame | None) -> set[str]:
    """Names of launches another program made: named by their function, with no gemmprof NVTX
    range and no bench row. A user's kernel called `naive` is not the ladder's first rung, and
    must not inherit its idea, rung or predecessor."""
    if not len(chosen) or "name" not in chosen.columns:
        return set()
    keys = chosen["kernel_key"] if "kernel_key" in chosen.columns else pd.Series([None] * len(chosen))
    benched = set(bench["kernel"].astype(str)) if bench is not None else set()
    return {n for n, k in zip(chosen["name"], keys) if not (isinstance(k, str) and k == n) and n not in benched}


def _named(kernels: pd.DataFrame | None) -> pd.DataFrame | None:
    """The kernels table with a `name` column: gemmprof's kernel name, else the function name."""
    if kernels is None:
        return None
    return kernels.assign(name=kernel_names(kernels))


def _profile_shape(kernels: pd.DataFrame) -> tuple[int, int, int] | None:
    """The shape most kernels were profiled at (the largest on a tie)."""
    shapes = Counter(s for s in (shape_of(r) for r in kernels.to_dict("records")) if s)
    if not shapes:
        return None
    most = max(shapes.values())
    return max((s for s, n in shapes.items() if n == most), key=lambda s: s[0] * s[1] * s[2])


def _bench_shape(bench: pd.DataFrame | None) -> tuple[int, int, int] | None:
    if bench is None:
        return None
    shapes = {(int(r["M"]), int(r["N"]), int(r["K"])) for r in bench.to_dict("records")}
    return max(shapes, key=lambda s: s[0] * s[1] * s[2]) if shapes else None


def _choose_launches(kernels: pd.DataFrame, shape) -> pd.DataFrame:
    """Per kernel name, its longest launch at `shape` (else at any shape), with `launches`."""
    rows = []
    for name, group in kernels.groupby("name", sort=False):
        at_shape = group[[shape_of(r) == shape for r in group.to_dict("records")]]
        pool = at_shape if len(at_shape) else group
        best = pool.loc[pool["duration_ns"].fillna(-1).idxmax()].copy()
        best["launches"] = len(pool)
        rows.append(best)
    return pd.DataFrame(rows).reset_index(drop=True)


def _per_launch(chosen: pd.DataFrame, tables: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Every per-launch analysis, computed once over the chosen launches."""
    keys = set(zip(chosen["report"], chosen["launch"]))

    def only_chosen(frame: pd.DataFrame | None) -> pd.DataFrame | None:
        if frame is None or frame.empty or "report" not in frame.columns:
            return None
        mask = [(r, l) in keys for r, l in zip(frame["report"], frame["launch"])]
        return frame[mask]

    sass, source, rules = only_chosen(tables.get("sass")), only_chosen(tables.get("source")), only_chosen(tables.get("rules"))
    timeline = only_chosen(tables.get("timeline"))
    sass = instruction_mix.with_opcodes(sass)  # parsed once for the mix, conflicts, techniques and regions
    out: dict[str, pd.DataFrame | None] = {
        "sass": sass, "source": source, "rules": rules,
        "mix": instruction_mix.instruction_mix(sass) if sass is not None else None,
        "conflicts": shared_memory.bank_conflicts(chosen, sass),
        "coalescing": global_memory.coalescing(source) if source is not None else None,
        "conflict_lines": shared_memory.conflict_lines(source, TOP_CONFLICT_LINES, sass) if source is not None else None,
        "traffic": global_memory.traffic(chosen),
        "occupancy": occupancy(chosen),
        "stalls": stalls.top_stalls(chosen, TOP_STALLS),
        "utilisation": utilisation(chosen),
        "banks": register_bank_conflicts(sass) if sass is not None else None,
        "regions": time_regions(sass) if sass is not None else None,
        "timeline": timeline,
    }
    out["verdicts"] = classify(chosen, LaunchEvidence(
        mix=out["mix"], conflicts=out["conflicts"], coalescing=out["coalescing"], source=source, util=out["utilisation"],
        occ=out["occupancy"], sass=sass, banks=out["banks"], regions=out["regions"], timeline=timeline))
    return out


def launch_verdicts(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """A verdict for every launch of the kernels table, not one per kernel (a sweep runs one kernel
    at many configurations): the kernels table with `config` (the index in a function's sweep,
    from its NVTX range `gemmprof-function/config <i>`; None elsewhere), the GEMM's GFLOP/s and
    the verdict's bound, cause and problem beside it."""
    kernels = _named(tables.get("kernels"))
    if kernels is None or kernels.empty:
        return pd.DataFrame()
    launches = kernels.assign(launches=1)
    verdicts = _per_launch(launches, tables)["verdicts"]
    out = launches.merge(verdicts[["report", "launch", "verdict", "bound", "cause", "problem"]], on=["report", "launch"],
                         how="left")
    nvtx = out["nvtx"] if "nvtx" in out.columns else pd.Series([None] * len(out))
    out["config"] = pd.array([_config(n) for n in nvtx], dtype="Int64")
    out["gflops"] = [fill.gemm_flop(r) / r["duration_ns"] if r.get("duration_ns", 0) > 0 else np.nan
                     for r in out.to_dict("records")]
    return out


_CONFIG = re.compile(r"(?:^|/)gemmprof-function/config (\d+)(?:/|$)")


def _config(nvtx: object) -> int | None:
    found = _CONFIG.search(nvtx) if isinstance(nvtx, str) else None
    return int(found.group(1)) if found else None


def _sizes(bench: pd.DataFrame | None, order: Sequence[str]) -> pd.DataFrame:
    """Bench results at every shape, in ladder order: kernel, shape, status, gflops, pct_cublas."""
    columns = ["kernel", "shape", "M", "N", "K", "status", "gflops", "pct_cublas", "throttled"]
    if bench is None:
        return pd.DataFrame(columns=columns)
    rank = {n: i for i, n in enumerate(order)}
    out = pd.DataFrame({
        "kernel": bench["kernel"].astype(str),
        "shape": [f"{m}x{n}x{k}" for m, n, k in zip(bench["M"], bench["N"], bench["K"])],
        "M": bench["M"], "N": bench["N"], "K": bench["K"], "status": bench["status"],
        "gflops": bench["gflops"].where(bench["status"].isin(TIMED_STATUSES)),  # a CONTEXT row was timed too
        "pct_cublas": bench["pct_of_cublas"].where(bench["status"] == PASS) if "pct_of_cublas" in bench else np.nan,
        "throttled": bench["throttled"] if "throttled" in bench else False,
    })
    out["_rank"] = [rank.get(k, len(rank)) for k in out["kernel"]]
    out["_size"] = out["M"] * out["N"] * out["K"]
    return out.sort_values(["_rank", "_size"], kind="stable")[columns].reset_index(drop=True)
