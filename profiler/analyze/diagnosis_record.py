"""What the report says about each kernel of a run (`Diagnosis`, `RunDiagnosis`) and the plain
records `diagnosis.json` holds: the results the analysis hands over, which renderers only read."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..catalogue.manifest import REFERENCES
from .gemm_shape import shape_of
from .suite import SuiteRun
from .verdict import Verdict


@dataclass
class Diagnosis:
    """Everything the report says about one kernel."""

    name: str
    rung: int | None = None  # steps up its tier's ladder (`ladder.tier_rung`); None for cuBLAS, probes, unknown
    tier: str | None = None  # its precision tier (a dispatcher's: its bench rows'); None for unknown kernels, cuBLAS
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
    # A dispatcher's: the kernel it ran at the shape its bench numbers come from, and that shape
    # (what to profile for a verdict: a dispatcher is not a kernel ncu can run)
    dispatched_to: str | None = None
    dispatched_at: tuple[int, int, int] | None = None
    # The FLOP/s the profiled launch executed (ncu's count, every pipe's) and its FLOPs per GEMM FLOP
    # (2MNK): 3 for 3xTF32 (`Tier.extra_products`: three MMAs a product), above 1 for math on the
    # padding of tiles past the matrix's edges. gflops itself is always the GEMM's 2MNK / time.
    executed_gflops: float = np.nan
    executed_per_gemm_flop: float = np.nan
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
    banks: dict | None = None  # `register_banks.register_bank_conflicts` of its launch
    regions: dict | None = None  # `regions.time_regions` of its launch: its samples before, in and after the main loop
    coalescing: dict | None = None
    rules: pd.DataFrame = field(default_factory=pd.DataFrame)
    hot_lines: pd.DataFrame = field(default_factory=pd.DataFrame)
    listing: pd.DataFrame = field(default_factory=pd.DataFrame)
    source_file: str | None = None
    changes: pd.DataFrame = field(default_factory=pd.DataFrame)
    # Its key counters beside the cuBLAS reference of its tier at the same shape (`ladder.versus`).
    versus: pd.DataFrame = field(default_factory=pd.DataFrame)
    versus_name: str | None = None
    # Who compiled it (`roofs.origin`: gemmprof, triton, library, cuda): which knobs a cure may name.
    origin: str | None = None
    attribution: dict | None = None  # where its PC samples go (`attribution.attribute`'s row)
    timeline: object | None = None  # `timeline.Timeline` of its launch: pipes and SMs over its duration
    # ncu's estimated speedups for the rung below and what this rung measured against it (`ladder`)
    estimates: dict | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def profiled(self) -> bool:
        return self.launch is not None

    @property
    def own_shape(self) -> tuple[int, int, int] | None:
        """The shape this kernel was profiled at (a run may profile kernels at different shapes),
        else (not profiled) the run's shape. A launch whose shape is unknown (another program's
        kernel) has none: it is never taken from the other launches."""
        return shape_of(self.launch) if self.launch is not None else self.shape

    @property
    def is_reference(self) -> bool:
        """A cuBLAS reference (manifest.REFERENCES): the yardstick, not a kernel to fix."""
        return self.name in REFERENCES

    @property
    def rung_below(self) -> str | None:
        """The rung this kernel climbed from: its predecessor, except for a reference, which sits
        above the ladder's top (`predecessor` still links its page there) but improves on nothing."""
        return None if self.is_reference else self.predecessor


@dataclass
class RunDiagnosis:
    """The run: its kernels' diagnoses in ladder order, the summary table, bench at every shape."""

    kernels: list[Diagnosis]
    summary: pd.DataFrame
    sizes: pd.DataFrame
    shape: tuple[int, int, int] | None
    meta: dict
    warnings: list[str] = field(default_factory=list)
    suite: SuiteRun | None = None  # a suite run's summary per kernel (`suite.suite_of_run`)

    def kernel(self, name: str) -> Diagnosis:
        return next(d for d in self.kernels if d.name == name)


def _finite(value: float, digits: int) -> float | None:
    """A number for JSON, rounded; None where it is unknown or not finite (a time of zero in a
    damaged table makes an infinite speed, which JSON cannot hold)."""
    return round(float(value), digits) if np.isfinite(value) else None


def diagnosis_records(run: RunDiagnosis) -> list[dict]:
    """One plain record per diagnosed kernel, what `diagnosis.json` holds and scripts read: kernel,
    shape, status, its predecessor on the ladder (a user's kernel may name a built-in rung), bound,
    cause, problem, cure, evidence, notes, already_uses, confidence, ranked (causes within noise of
    the lead), origin (who compiled it), and the speed (GFLOP/s, % of cuBLAS, where it came from). Kernels without a verdict have bound None."""
    out = []
    for d in run.kernels:
        v = d.verdict
        out.append({
            "kernel": d.name, "function": (d.launch or {}).get("function"),
            "shape": list(d.own_shape) if d.own_shape else None, "status": d.status, "reference": d.is_reference,
            "predecessor": d.rung_below,
            "bound": v.bound if v else None, "label": v.label if v else None, "cause": v.cause if v else None,
            "problem": v.problem if v else None, "summary": v.summary if v else None,
            "cure": v.cure if v else None, "evidence": list(v.evidence) if v else [],
            "notes": list(v.notes) if v else [], "already_uses": list(v.already_uses) if v else [],
            "confidence": v.confidence if v else None, "ranked": list(v.ranked) if v else [],
            "origin": d.origin, "timeline": d.timeline.findings() if d.timeline is not None else [],
            "gflops": _finite(d.gflops, 3), "pct_cublas": _finite(d.pct_cublas, 2),
            "gflops_source": d.gflops_source or None,
            "executed_gflops": _finite(d.executed_gflops, 3),
            "executed_per_gemm_flop": _finite(d.executed_per_gemm_flop, 3),
        })
    return out
