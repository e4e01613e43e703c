"""What bounds a kernel: one verdict per launch, with the numbers that show it.

The evidence is gathered first, per launch (`Signals`): its counters' utilisation of each unit,
its stalls, what its code already does (`techniques`), where its samples go (`attribution`,
`regions`), what its math can reach and who compiled it (`roofs`). Then the stages of the one
table of causes (`causes`) are walked in order: the launch as a whole, the memory roof, the
code's pathologies, the main loop's causes ranked by the samples they explain, the Speed Of
Light bounds, latency. The words are the causes' own; the notes (problems that are not the
bound) and what the kernel already uses are attached last. This module only decides.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from . import causes, loop_causes, sentences, thresholds
from .attribution import attribute
from .bounds import BOUNDS, Verdict
from .roofs import attainable, origin
from .global_memory import global_access_kinds
from .shared_memory import shared_measured_bytes, shared_unmeasured, wgmma_shared_bytes
from .instruction_mix import with_opcodes
from .occupancy import occupancy
from .regions import time_regions
from .register_banks import register_bank_conflicts
from .signals import Signals, utilisation
from .stalls import stall_breakdown
from .techniques import techniques as techniques_of
from .timeline import dram_stream
from .values import number


@dataclass(frozen=True)
class LaunchEvidence:
    """What a verdict weighs besides the launches themselves, each optional: `mix` from
    `instruction_mix.instruction_mix`, `conflicts` from `shared_memory.bank_conflicts`, `coalescing`
    from `global_memory.coalescing`, `source` (the run's table) where the deciding stalls happen,
    `sass` what the kernel already does (`techniques`), where its time goes (`regions`) and which
    FFMAs collide in the register banks (`register_banks`), `timeline` (the run's table) when it
    reads DRAM at its plateau; `util`, `occ`, `banks` and `regions`,
    `utilisation(kernels)`, `occupancy(kernels)`, `register_bank_conflicts(sass)` and
    `time_regions(sass)` when the caller has them already."""

    mix: pd.DataFrame | None = None
    conflicts: pd.DataFrame | None = None
    coalescing: pd.DataFrame | None = None
    source: pd.DataFrame | None = None
    util: pd.DataFrame | None = None
    occ: pd.DataFrame | None = None
    sass: pd.DataFrame | None = None
    banks: pd.DataFrame | None = None
    regions: pd.DataFrame | None = None
    timeline: pd.DataFrame | None = None


def classify(kernels: pd.DataFrame, evidence: LaunchEvidence = LaunchEvidence()) -> pd.DataFrame:
    """One verdict per launch of `kernels`, from the launches and the `evidence` at hand.
    Columns: report, launch, verdict (a `Verdict`), bound, cause, label, problem, origin (who
    compiled the kernel: `roofs.origin`) and attribution (where its samples go: `attribution`)."""
    mix, conflicts, coalescing, source = evidence.mix, evidence.conflicts, evidence.coalescing, evidence.source
    util, occ, sass, banks, regions = evidence.util, evidence.occ, evidence.sass, evidence.banks, evidence.regions
    util = utilisation(kernels) if util is None else util
    occ = occupancy(kernels) if occ is None else occ
    stalls = stall_breakdown(kernels)
    sass = with_opcodes(sass)
    tech = techniques_of(sass) if sass is not None else None
    kinds = global_access_kinds(sass) if sass is not None else None
    regions = time_regions(sass) if regions is None and sass is not None else regions
    wgmma_bytes = wgmma_shared_bytes(sass) if sass is not None else None
    banks = register_bank_conflicts(sass) if banks is None and sass is not None else banks
    shares = attribute(sass)
    reachable = attainable(kernels, util)
    rows = []
    for i, record in enumerate(kernels.to_dict("records")):
        key = (record.get("report"), record.get("launch"))
        code = _for(sass, key)
        files = code["file"].dropna().unique().tolist() if code is not None and "file" in code.columns else []
        signals = Signals(
            launch=record,
            util=_with_wgmma_reads(util.iloc[i].to_dict(), record, _first_row(_for(wgmma_bytes, key))),
            occupancy=occ.iloc[i].to_dict(),
            stalls=_for(stalls, key),
            mix=_first_row(_for(mix, key)),
            conflicts=_for(conflicts, key),
            coalescing={**(_first_row(_for(coalescing, key)) or {}), **(_first_row(_for(kinds, key)) or {})} or None,
            lines=_for(source, key),
            techniques=_first_row(_for(tech, key)),
            regions=_first_row(_for(regions, key)),
            banks=_first_row(_for(banks, key)),
            attribution=_first_row(_for(shares, key)),
            attainable=reachable[i],
            origin=origin(record, files),
            stream=dram_stream(_for(evidence.timeline, key), record),
        )
        v = decide(signals)
        rows.append({"report": key[0], "launch": key[1], "verdict": v, "bound": v.bound, "cause": v.cause,
                     "label": v.label, "problem": v.problem, "origin": signals.origin,
                     "attribution": signals.attribution})
    return pd.DataFrame(rows, columns=["report", "launch", "verdict", "bound", "cause", "label", "problem", "origin",
                                       "attribution"])


def _with_wgmma_reads(u: dict, launch: dict, wgmma: dict | None) -> dict:
    """A wgmma launch's shared utilisation with wgmma's operand reads, which no counter sees,
    estimated from its SASS (`shared_memory.wgmma_shared_bytes`) and added to the counted wavefronts:
    without them a kernel whose split pass and wgmmas share the shared-memory pipe reads as 0%
    shared and is sent to the global-memory verdict. `shared_wgmma_bytes` marks the estimate."""
    frame = pd.DataFrame([launch])
    reads = (wgmma or {}).get("wgmma_shared_bytes", 0.0)
    if not shared_unmeasured(frame).iloc[0] or not reads > 0:
        return u
    measured = float(shared_measured_bytes(frame).fillna(0).iloc[0])
    seconds, peak = launch.get("duration_ns", np.nan) * 1e-9, launch.get("peak_shared_bytes_per_s", np.nan)
    return u | {"shared": 100.0 * (measured + reads) / seconds / peak, "shared_wgmma_bytes": reads,
                "shared_counted_bytes": measured}


def decide(s: Signals) -> Verdict:
    """The verdict for one launch's signals (see the module docstring for the order), with the
    techniques the kernel already uses and the notes that are not the bound attached."""
    return _finish(_decide(s), s)


def _decide(s: Signals) -> Verdict:
    """The stages of `causes` in order (its docstring says how each is weighed)."""
    u = s.util
    if pd.isna(u["sm"]) or pd.isna(u["memory"]):
        return Verdict("unknown", BOUNDS["unknown"].label, "missing counters",
                       "The profile lacks the Speed Of Light counters (SM and memory throughput) a verdict needs.",
                       (), BOUNDS["unknown"].cure, cause="unknown", confidence="low")
    if (v := _first(causes.LAUNCH, s)) is not None:
        return v
    memory = causes.MEMORY_ROOF.find(s)
    if memory is not None and loop_causes.leads_memory_roof(s, memory):
        return memory  # DRAM busy at its roof: where the samples sit is where the memory waits land
    # memory-bound by nature with DRAM mostly idle: the code holds it back, the roof is named beside
    # (not within noise of the ridge point, where neither roof is its nature)
    by_nature = memory is not None and memory.cause == "dram" and not loop_causes.near_ridge(s, memory)
    nature = ("dram",) if by_nature else ()
    if not by_nature and (ends := _first(causes.ENDS, s)) is not None:
        return ends
    if (code := _first(causes.CODE, s)) is not None:
        return replace(code, ranked=code.ranked + nature)
    if memory is not None and memory.cause == "tile_order":
        return memory
    if (loop := _costliest(s)) is not None:
        return replace(loop, ranked=loop.ranked + nature)
    if by_nature:
        return memory
    return _first(causes.SPEED_OF_LIGHT, s) or _first(causes.LATENCY, s) or memory


def _first(rows, s: Signals) -> Verdict | None:
    """The verdict of the first row that applies (rows reading where samples sit only with enough
    samples to read)."""
    enough = loop_causes.MIN_SAMPLES <= number((s.attribution or {}).get("samples", np.inf))
    for row in rows:
        if row.sampled and not enough:
            continue  # where the samples sit says nothing from a handful of them
        if (v := row.find(s)) is not None:
            return v
    return None


def _costliest(s: Signals) -> Verdict | None:
    """The main-loop cause that explains the most samples (`causes.LOOP`), with the others within
    noise of it ranked beside it; None when none applies."""
    found = sorted((f for f in (row.find(s) for row in causes.LOOP) if f is not None), key=lambda f: -f.cost)
    if not found:
        return None
    lead = found[0]
    beside = tuple(f.verdict.cause for f in found[1:] if lead.cost - f.cost <= thresholds.NOISE_PCT)
    return replace(lead.verdict, ranked=beside)


def _finish(v: Verdict, s: Signals) -> Verdict:
    """Attach what the kernel already uses and the notes; the confidence drops to 'low' when the
    launch has no SASS table (the techniques are then unknown, so a cure may repeat one)."""
    uses = tuple((s.techniques or {}).get("already_uses") or ())
    confidence = v.confidence if s.techniques is not None or v.cause == "unknown" else "low"
    return replace(v, notes=tuple(sentences.notes(v.bound, v.cause, s, v.covers)), already_uses=uses, confidence=confidence)


def _for(frame: pd.DataFrame | None, key: tuple) -> pd.DataFrame | None:
    if frame is None:
        return None
    report, launch = key
    mask = (frame["report"] == report) if report is not None else frame["report"].isna()
    return frame[mask & (frame["launch"] == launch)]


def _first_row(frame: pd.DataFrame | None) -> dict | None:
    """The frame's first row as a dict, None for no frame or an empty one."""
    return None if frame is None or frame.empty else frame.iloc[0].to_dict()
