"""A recorded run -> one `Diagnosis` per kernel, and the run's summary (pure: frames in, frames out).

The run's tables (`kernels`, `rules`, `source`, `sass` from `gemmprof profile`; `bench` from
`gemmprof bench`) and the manifest are all it reads. Each kernel gets the launch profiled at the
run's profile shape, the verdict (`verdict.py`), its top stalls (`stalls.py`), bank conflicts,
traffic and instruction mix (`memory.py`), occupancy (`occupancy.py`), ncu's rules ranked by
estimated speedup, its hottest source lines, and what changed from its predecessor (`ladder.py`).
A kernel that was benchmarked but not profiled still gets a diagnosis, with no verdict.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ..manifest import REFERENCES, KernelSpec, reference_name
from ..tiers import REFERENCE_ROWS, TIERS, TIMED_STATUSES
from . import ladder, memory, stalls
from .occupancy import occupancy
from .roofline import kernel_names
from .verdict import Verdict, classify, utilisation


# How many stall reasons, rules and source lines a kernel page shows.
TOP_STALLS = 5
TOP_LINES = 8
TOP_CONFLICT_LINES = 5
# Bench statuses from worst to best: a kernel's status is its worst over all shapes run.
STATUS_ORDER = ("ERROR", "FAIL", "PASS", "SKIP")
# ncu rule results that carry no advice.
RULE_TYPES_SHOWN = ("optimization", "warning", "error", "ok")


@dataclass
class Diagnosis:
    """Everything the report says about one kernel."""

    name: str
    rung: int | None = None  # steps up its tier's ladder (`ladder.tier_rung`); None for cuBLAS, probes, unknown
    tier: str | None = None  # its precision tier; None for a kernel no manifest knows and for cuBLAS
    idea: str | None = None
    predecessor: str | None = None
    successor: str | None = None
    successor_idea: str | None = None
    shape: tuple[int, int, int] | None = None
    status: str | None = None  # PASS, FAIL, ERROR, SKIP (bench, worst over shapes) or None
    status_note: str = ""
    gflops: float = np.nan
    pct_cublas: float = np.nan
    time_ms: float = np.nan
    gflops_source: str = ""  # 'bench', 'ncu' (no benchmark of it), 'untimed' (failed where profiled)
    # A tier whose kernels run several MMAs per product (`Tier.extra_products`, 3xTF32): the tensor
    # FLOP/s the profiled launch executed and its tensor FLOPs per 2MNK; its gflops is the GEMM's 2MNK / time.
    tensor_gflops_executed: float = np.nan
    mmas_per_product: float = np.nan
    launch: dict | None = None  # the profiled launch's row of the kernels table
    launches: int = 0  # launches of this kernel at the profile shape
    verdict: Verdict | None = None
    utilisation: dict | None = None
    stalls: pd.DataFrame = field(default_factory=pd.DataFrame)
    conflicts: pd.DataFrame = field(default_factory=pd.DataFrame)
    conflict_lines: pd.DataFrame = field(default_factory=pd.DataFrame)
    occupancy: dict | None = None
    traffic: pd.DataFrame = field(default_factory=pd.DataFrame)
    mix: dict | None = None
    coalescing: dict | None = None
    rules: pd.DataFrame = field(default_factory=pd.DataFrame)
    hot_lines: pd.DataFrame = field(default_factory=pd.DataFrame)
    listing: pd.DataFrame = field(default_factory=pd.DataFrame)
    source_file: str | None = None
    changes: pd.DataFrame = field(default_factory=pd.DataFrame)
    # Its key counters beside the cuBLAS reference of its tier at the same shape (`ladder.versus`).
    versus: pd.DataFrame = field(default_factory=pd.DataFrame)
    versus_name: str | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def profiled(self) -> bool:
        return self.launch is not None

    @property
    def own_shape(self) -> tuple[int, int, int] | None:
        """The shape this kernel was profiled at (a run may profile kernels at different shapes),
        else (not profiled) the run's shape. A launch whose shape is unknown (another program's
        kernel) has none: it is never taken from the other launches."""
        return _shape_of(self.launch) if self.launch is not None else self.shape

    @property
    def is_reference(self) -> bool:
        """A cuBLAS reference (manifest.REFERENCES): the yardstick, not a kernel to fix."""
        return self.name in REFERENCES


@dataclass
class RunDiagnosis:
    """The run: its kernels' diagnoses in ladder order, the summary table, bench at every shape."""

    kernels: list[Diagnosis]
    summary: pd.DataFrame
    sizes: pd.DataFrame
    shape: tuple[int, int, int] | None
    meta: dict
    warnings: list[str] = field(default_factory=list)

    def kernel(self, name: str) -> Diagnosis:
        return next(d for d in self.kernels if d.name == name)


def diagnosis_records(run: RunDiagnosis) -> list[dict]:
    """One plain record per diagnosed kernel, what `diagnosis.json` holds and scripts read: kernel,
    shape, status, its predecessor on the ladder (a user's kernel may name a built-in rung), bound,
    cause, problem, cure, evidence, notes, already_uses, confidence, and the speed (GFLOP/s, % of
    cuBLAS, where it came from). Kernels without a verdict have bound None."""
    out = []
    for d in run.kernels:
        v = d.verdict
        out.append({
            "kernel": d.name, "function": (d.launch or {}).get("function"),
            "shape": list(d.own_shape) if d.own_shape else None, "status": d.status, "reference": d.is_reference,
            "predecessor": None if d.is_reference else d.predecessor,  # a reference is no rung's successor
            "bound": v.bound if v else None, "label": v.label if v else None, "cause": v.cause if v else None,
            "problem": v.problem if v else None, "summary": v.summary if v else None,
            "cure": v.cure if v else None, "evidence": list(v.evidence) if v else [],
            "notes": list(v.notes) if v else [], "already_uses": list(v.already_uses) if v else [],
            "confidence": v.confidence if v else None,
            "gflops": None if np.isnan(d.gflops) else round(float(d.gflops), 3),
            "pct_cublas": None if np.isnan(d.pct_cublas) else round(float(d.pct_cublas), 2),
            "gflops_source": d.gflops_source or None,
            "tensor_gflops_executed": None if np.isnan(d.tensor_gflops_executed) else round(float(d.tensor_gflops_executed), 3),
            "mmas_per_product": None if np.isnan(d.mmas_per_product) else round(float(d.mmas_per_product), 3),
        })
    return out


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
    order = ladder.ladder_order(names, specs)
    by_spec = {s.name: s for s in specs}

    per_launch = _per_launch(chosen, tables) if len(chosen) else {}
    diagnoses = []
    for name in order:
        spec = by_spec.get(name)
        idea = spec.idea if spec else reference_idea(name) if name in REFERENCES else None
        d = Diagnosis(name=name, rung=ladder.tier_rung(name, specs), tier=spec.tier if spec else None, idea=idea,
                      shape=shape)
        d.predecessor = ladder.predecessor(name, order, specs)
        d.successor = ladder.successor(name, order, specs)
        if d.successor and d.successor in by_spec:
            d.successor_idea = by_spec[d.successor].idea
        elif d.successor in REFERENCES:
            d.successor_idea = reference_idea(d.successor)
        _add_bench(d, bench, shape)
        if len(chosen) and name in set(chosen["name"]):
            _add_profile(d, chosen[chosen["name"] == name].iloc[0].to_dict(), per_launch,
                         extra_products=bool(spec and spec.tier in TIERS and TIERS[spec.tier].extra_products))
        elif kernels is not None:
            d.warnings.append("Not profiled in this run: timing only.")
        if d.status is None and profile_log is not None and "status" in profile_log.columns:
            logged = profile_log[profile_log["kernel"] == name]["status"].dropna()
            if len(logged):
                d.status, d.status_note = str(logged.iloc[-1]), "verified when profiled"
        if not d.profiled and np.isnan(d.gflops):
            d.warnings.append("No timing and no profile for this kernel in this run.")
        diagnoses.append(d)

    _share_of_cublas_from_ncu(diagnoses, specs)
    facts = pd.DataFrame([_facts(d) for d in diagnoses]).set_index("kernel") if diagnoses else pd.DataFrame()
    changes = ladder.compare(facts, specs) if len(facts) else pd.DataFrame(columns=["kernel"])
    for d in diagnoses:
        d.changes = changes[changes["kernel"] == d.name].reset_index(drop=True)
    _versus_reference(diagnoses, facts, specs)
    summary = pd.DataFrame([{
        "kernel": d.name, "rung": d.rung, "gflops": d.gflops, "pct_cublas": d.pct_cublas, "time_ms": d.time_ms,
        "gflops_source": d.gflops_source, "bound": d.verdict.bound if d.verdict else None,
        "label": d.verdict.label if d.verdict else None, "problem": d.verdict.problem if d.verdict else None,
        "status": d.status, "status_note": d.status_note,
    } for d in diagnoses], columns=["kernel", "rung", "gflops", "pct_cublas", "time_ms", "gflops_source", "bound",
                                    "label", "problem", "status", "status_note"])
    if not diagnoses:
        warnings.append("This run holds no kernels: neither a profile nor a benchmark.")
    return RunDiagnosis(diagnoses, summary, _sizes(bench, order), shape, dict(meta or {}), warnings)


# ---------------------------------------------------------------------------------------------
# Choosing what to diagnose


def _named(kernels: pd.DataFrame | None) -> pd.DataFrame | None:
    """The kernels table with a `name` column: gemmprof's kernel name, else the function name."""
    if kernels is None:
        return None
    return kernels.assign(name=kernel_names(kernels))


def _shape_of(record: Mapping) -> tuple[int, int, int] | None:
    values = [record.get(d) for d in "MNK"]
    return None if any(v is None or pd.isna(v) for v in values) else tuple(int(v) for v in values)


def _profile_shape(kernels: pd.DataFrame) -> tuple[int, int, int] | None:
    """The shape most kernels were profiled at (the largest on a tie)."""
    shapes = Counter(s for s in (_shape_of(r) for r in kernels.to_dict("records")) if s)
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
        at_shape = group[[_shape_of(r) == shape for r in group.to_dict("records")]]
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
    sass = memory.with_opcodes(sass)  # parsed once for the mix, conflicts, techniques and regions
    out: dict[str, pd.DataFrame | None] = {
        "sass": sass, "source": source, "rules": rules,
        "mix": memory.instruction_mix(sass) if sass is not None else None,
        "conflicts": memory.bank_conflicts(chosen, sass),
        "coalescing": memory.coalescing(source) if source is not None else None,
        "conflict_lines": memory.conflict_lines(source, TOP_CONFLICT_LINES) if source is not None else None,
        "traffic": memory.traffic(chosen),
        "occupancy": occupancy(chosen),
        "stalls": stalls.top_stalls(chosen, TOP_STALLS),
        "utilisation": utilisation(chosen),
    }
    out["verdicts"] = classify(chosen, out["mix"], out["conflicts"], out["coalescing"], source,
                               util=out["utilisation"], occ=out["occupancy"], sass=sass)
    return out


# ---------------------------------------------------------------------------------------------
# Filling a diagnosis


def _status(statuses: Sequence[str]) -> str | None:
    present = [s for s in STATUS_ORDER if s in set(statuses)]
    if not present:
        return None
    worst = present[0]
    if worst == "SKIP" and len(present) == 1:
        return "SKIP"
    return worst


def _add_bench(d: Diagnosis, bench: pd.DataFrame | None, shape) -> None:
    if bench is None:
        return
    mine = bench[bench["kernel"].astype(str) == d.name]
    if mine.empty:
        return
    statuses = [str(s) for s in mine["status"]]
    d.status = _status(statuses)
    bad = [f"{r['M']}x{r['N']}x{r['K']}" for r in mine.to_dict("records") if r["status"] in ("FAIL", "ERROR")]
    if bad:
        d.status_note = f"{d.status} at {', '.join(bad)}"
    at_shape = mine[[(_shape_of(r) == shape) for r in mine.to_dict("records")]]
    row = at_shape.iloc[0].to_dict() if len(at_shape) else None
    if row is None or row.get("status") != "PASS":
        passed = mine[mine["status"] == "PASS"]
        if row is None and len(passed):
            row = passed.loc[(passed["M"] * passed["N"] * passed["K"]).idxmax()].to_dict()
            d.status_note = (d.status_note + "; " if d.status_note else "") + \
                f"timed at {row['M']}x{row['N']}x{row['K']}, not at the profile shape"
    if row is not None and row.get("status") == "PASS":
        d.gflops, d.time_ms = float(row.get("gflops", np.nan)), float(row.get("median_ms", np.nan))
        d.pct_cublas = float(row.get("pct_of_cublas", np.nan)) if not d.is_reference else 100.0
        d.gflops_source = "bench"
    elif row is not None:
        d.gflops_source = "untimed"  # failed verification there: never timed, and not from ncu either


def reference_idea(name: str) -> str:
    """What a cuBLAS reference is, said where a rung would say its idea."""
    return REFERENCE_ROWS[name].idea


def _share_of_cublas_from_ncu(diagnoses: list[Diagnosis], specs: Sequence[KernelSpec]) -> None:
    """Without a benchmark, % of cuBLAS from the profiled launches (same shape, same FLOPs), each
    kernel against the cuBLAS reference of its own tier (an FP16 kernel against GemmEx)."""
    tiers = {s.name: s.tier for s in specs}
    for ref_name in dict.fromkeys(t.reference for t in TIERS.values()):
        reference = next((d for d in diagnoses if d.name == ref_name and d.gflops_source == "ncu"), None)
        if reference is None or not reference.gflops > 0:
            continue
        for d in diagnoses:
            shape = _shape_of(d.launch or {})
            same_shape = shape is not None and shape == _shape_of(reference.launch or {})  # never guessed
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


def _versus_reference(diagnoses: list[Diagnosis], facts: pd.DataFrame, specs: Sequence[KernelSpec]) -> None:
    """Each profiled kernel beside the cuBLAS reference of its tier, when that was profiled at the
    same shape: the tagline's question, why is my SGEMM slower than cuBLAS, in counters."""
    tiers = {s.name: s.tier for s in specs}
    by_name = {d.name: d for d in diagnoses}
    for d in diagnoses:
        reference = reference_name(tiers.get(d.name, "fp32"))
        ref = by_name.get(reference)
        if d.is_reference or ref is None or not (d.profiled and ref.profiled):
            continue
        if _shape_of(d.launch) != _shape_of(ref.launch):
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


def _add_profile(d: Diagnosis, launch: dict, per: Mapping[str, pd.DataFrame | None],
                 extra_products: bool = False) -> None:
    """The profiled launch's facts. Without a benchmark its rate is ncu's executed FLOP/s, except in
    a tier whose kernels run several MMAs per product, where that would count each product three
    times: there the rate is the GEMM's 2MNK / time and the executed tensor rate is kept apart."""
    key = (launch.get("report"), launch.get("launch"))
    d.launch, d.launches = launch, int(launch.get("launches", 1))
    if d.launches > 1:
        d.warnings.append(f"{d.launches} launches at this shape; the longest is diagnosed.")
    if _shape_of(launch) != d.shape:
        d.warnings.append(f"Profiled at {'x'.join(map(str, _shape_of(launch) or ()))}, not at the run's profile shape.")
    if not d.gflops_source and launch.get("achieved_flops") and not pd.isna(launch.get("achieved_flops")):
        d.gflops, d.gflops_source = float(launch["achieved_flops"]) / 1e9, "ncu"
        d.time_ms = float(launch["duration_ns"]) / 1e6
    shape, tensor = _shape_of(launch), launch.get("tensor_flop", np.nan)
    if extra_products and shape and not pd.isna(tensor) and tensor > 0 and launch.get("duration_ns", 0) > 0:
        gemm_flop = 2.0 * shape[0] * shape[1] * shape[2]
        d.tensor_gflops_executed = float(tensor) / float(launch["duration_ns"])  # FLOP per ns = GFLOP/s
        d.mmas_per_product = float(tensor) / gemm_flop
        if d.gflops_source == "ncu":
            d.gflops = gemm_flop / float(launch["duration_ns"])

    def mine(name: str) -> pd.DataFrame:
        frame = per.get(name)
        if frame is None or frame.empty:
            return pd.DataFrame()
        return frame[(frame["report"] == key[0]) & (frame["launch"] == key[1])].reset_index(drop=True)

    verdict = mine("verdicts")
    d.verdict = verdict["verdict"].iloc[0] if len(verdict) else None
    d.utilisation = _row(mine("utilisation"))
    d.stalls = mine("stalls")
    d.conflicts = mine("conflicts")
    d.conflict_lines = mine("conflict_lines")
    d.occupancy = _row(mine("occupancy"))
    d.traffic = mine("traffic")
    d.mix = _row(mine("mix"))
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
    with_lines["file"] = [posixpath.basename(str(f).replace("\\", "/")) if isinstance(f, str) else None
                          for f in with_lines["file"]]
    files = with_lines["file"].dropna()
    main_file = files.value_counts().index[0] if len(files) else None
    hot = with_lines[with_lines["samples"].fillna(0) > 0].sort_values("samples", ascending=False, kind="stable")
    hot = hot.head(TOP_LINES)[columns].reset_index(drop=True)
    listing = with_lines[with_lines["code"].notna() & (with_lines["file"] == main_file)]
    listing = listing.sort_values("line")[columns].reset_index(drop=True)
    return hot, listing, main_file


def _facts(d: Diagnosis) -> dict:
    """The numbers `ladder.compare` compares (see `ladder.QUANTITIES`)."""
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
        "bound": d.verdict.label if d.verdict else None,
        "dram_bytes": k.get("dram_bytes", np.nan), "l2_bytes": k.get("l2_bytes", np.nan),
        "l1_bytes": k.get("l1_bytes", np.nan),
        "global_load_per_math": m.get("global_load_per_math", np.nan),
        "shared_load_per_math": m.get("shared_load_per_math", np.nan),
        # wgmma's shared reads are invisible to the wavefront counters: not measured, never "x0"
        "shared_load_wavefronts": np.nan if k and memory.shared_unmeasured(pd.DataFrame([k])).iloc[0]
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
        "pct_cublas": bench["pct_of_cublas"].where(bench["status"] == "PASS") if "pct_of_cublas" in bench else np.nan,
        "throttled": bench["throttled"] if "throttled" in bench else False,
    })
    out["_rank"] = [rank.get(k, len(rank)) for k in out["kernel"]]
    out["_size"] = out["M"] * out["N"] * out["K"]
    return out.sort_values(["_rank", "_size"], kind="stable")[columns].reset_index(drop=True)
