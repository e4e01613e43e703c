"""The compare workflow: a base run against a new run, kernel by kernel and shape by shape, in
time (a regression: slower past the threshold and outside both runs' spread, or a pass turned
into a failure) and, where both were profiled, in the key Nsight Compute metrics. A run that
cannot be trusted (incomplete, unreadable, empty, its tables failing the schema) is refused
with its own exit status, so that a CI gate never passes a broken run as "0 regressions"."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Exit, GemmprofError


@dataclass(frozen=True)
class CompareOptions:
    """The two runs (run directories, or bench tables with their run.json beside them), the
    slow-down that counts as a regression ('3%' or '3'), whether runs of different GPUs may be
    compared."""

    base: Path
    new: Path
    threshold: str = "3%"
    allow_different_gpus: bool = False


@dataclass(frozen=True)
class CompareResult:
    """The comparison: per kernel and shape (`bench`), per profiled kernel (`kernels`, None
    unless both runs were profiled), what differs in the environment, the counts by outcome,
    and what the reader must be warned of."""

    base: Path
    new: Path
    threshold: float
    gpus: tuple
    bench: object  # pandas.DataFrame
    kernels: object  # pandas.DataFrame or None
    environment_differences: list
    counts: dict
    warnings: list = field(default_factory=list)

    @property
    def regressions(self) -> int:
        return self.counts["regressions"]

    def as_json(self) -> str:
        """One JSON object: the runs, threshold, GPUs, warnings, environment differences, the
        counts and both tables' records."""
        def records(frame):
            return json.loads(frame.to_json(orient="records", double_precision=15)) if frame is not None else None

        return json.dumps({
            "base": str(self.base), "new": str(self.new), "threshold": self.threshold,
            "gpu": {"base": self.gpus[0], "new": self.gpus[1]}, "warnings": self.warnings,
            "environment_differences": [{"what": what, "base": b, "new": n} for what, b, n in self.environment_differences],
            "summary": self.counts, "bench": records(self.bench), "kernels": records(self.kernels),
        })


def compare(options: CompareOptions) -> CompareResult:
    """Compare the runs of `options`; different GPUs are a one-line error unless allowed (then
    a warning in the result). It has nothing to say while it runs: the caller shows the result."""
    from ..analyze.compare import compare_bench, compare_kernels, environment_differences, gpu_of, summarize

    fraction = parse_threshold(options.threshold)
    base_bench, base_meta, base_kernels = load_run(options.base)
    new_bench, new_meta, new_kernels = load_run(options.new)
    gpus = (gpu_of(base_meta, base_kernels), gpu_of(new_meta, new_kernels))
    warnings = []
    if gpus[0] and gpus[1] and gpus[0] != gpus[1]:
        message = f"the runs are from different GPUs: {options.base} on {gpus[0]}, {options.new} on {gpus[1]}"
        if not options.allow_different_gpus:
            raise GemmprofError(message, "compare runs of one GPU, or pass --allow-different-gpus")
        warnings.append(message + "; differences measure the GPUs as much as the kernels")
    elif not all(gpus):
        warnings.append("the GPU of " + " and ".join(str(p) for p, g in zip((options.base, options.new), gpus) if not g)
                        + " is not recorded: cannot check that both runs used the same GPU")
    table = compare_bench(base_bench, new_bench, fraction)
    metrics = compare_kernels(base_kernels, new_kernels) if base_kernels is not None and new_kernels is not None else None
    return CompareResult(options.base, options.new, fraction, gpus, table, metrics,
                         environment_differences(base_meta, new_meta), summarize(table), warnings)


def parse_threshold(text: str) -> float:
    """'3%' or '3' -> 0.03; a percentage, never negative."""
    value = text.strip().removesuffix("%").strip()
    try:
        percent = float(value)
    except ValueError:
        raise GemmprofError(f"--threshold {text!r} is not a percentage", "e.g. --threshold 3%") from None
    if not math.isfinite(percent) or percent < 0:
        raise GemmprofError(f"--threshold {text!r} must be a percentage of at least 0", "e.g. --threshold 3%")
    return percent / 100.0


def load_run(path: Path):
    """(bench table, run.json, kernels table or None) of a run directory, or of a bench .csv /
    .parquet file with its run.json beside it (`<stem>.run.json`, else `run.json`). A run that
    cannot be read or trusted is a GemmprofError with exit code Exit.BAD_RUN."""
    try:
        bench, meta, kernels = _read_run(path)
    except GemmprofError as exc:
        raise GemmprofError(exc.message, exc.hint, exit_code=Exit.BAD_RUN) from None
    if meta.get("complete") is False:
        raise GemmprofError(f"run {path} is incomplete (complete: false in its run.json): its bench was interrupted "
                            f"or is still running", "finish the bench (run it again with the same --run-id) before comparing",
                            exit_code=Exit.BAD_RUN)
    if bench.empty:
        raise GemmprofError(f"the bench table of {path} holds no rows", "rerun gemmprof bench", exit_code=Exit.BAD_RUN)
    return bench, meta, kernels


def _read_run(path: Path):
    from ..run import open_run

    run = open_run(path)
    if not run.is_gemmprof_run:
        raise GemmprofError(f"{path} is not a gemmprof run (no run.json)", "compare needs a run directory with a bench table")
    meta = run.meta  # a GemmprofError when the schema is wrong
    if run.bench is None:
        raise GemmprofError(f"run {path} has no bench table", f"time it first: gemmprof bench --run-id {path.name}")
    return run.bench, meta, run.kernels if run.run_dir is not None and run.run_dir.has_table("kernels") else None
