"""`gemmprof compare`: a base run against a new run, kernel by kernel and shape by shape; exits 1
on a regression (for CI), 2 on a mistake (bad option, different GPUs), 3 when a run cannot be
trusted (incomplete, unreadable, empty, or its tables fail the schema), so that a CI gate never
passes a broken run as "0 regressions"."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated

import typer

from ..errors import Exit


def compare(
    base: Annotated[Path, typer.Argument(help="The base run: a run directory with a bench table (or a bench .csv/.parquet with its .run.json beside it).", show_default=False)],
    new: Annotated[Path, typer.Argument(help="The new run, the same way.", show_default=False)],
    threshold: Annotated[str, typer.Option(help="Slow-down that counts as a regression, in percent ('3%' or '3').")] = "3%",
    json_out: Annotated[bool, typer.Option("--json", help="Print the comparison as one JSON object, and nothing else.")] = False,
    allow_different_gpus: Annotated[bool, typer.Option(help="Compare runs of different GPUs anyway (with a warning).")] = False,
) -> None:
    """Compare two runs and fail on regressions (exit 1).

    Per kernel and shape: the change in median time and GFLOP/s, and (when both runs were
    profiled) in the key Nsight Compute metrics. A kernel is a regression when it is slower by
    more than the threshold AND outside both runs' measured spread (new p10 above the base p90),
    or when it passed verification before and does not pass now (FAIL, ERROR, SKIP), or passes
    with no time. Differences inside the spread are reported as noise.

    Exit status: 0 no regression, 1 regression, 2 usage error (bad option, different GPUs),
    3 a run is incomplete (complete: false in run.json), unreadable, empty, or its tables are
    invalid (missing columns, non-numeric, zero or negative times)."""
    from rich.console import Console
    from rich.markup import escape

    from ..analyze.compare import (
        compare_bench,
        compare_kernels,
        environment_differences,
        gpu_of,
        summarize,
    )
    from ..errors import GemmprofError
    from ..render.console import compare_metrics_table, compare_table

    fraction = parse_threshold(threshold)
    base_bench, base_meta, base_kernels = load_run(base)
    new_bench, new_meta, new_kernels = load_run(new)
    gpus = (gpu_of(base_meta, base_kernels), gpu_of(new_meta, new_kernels))
    warnings = []
    if gpus[0] and gpus[1] and gpus[0] != gpus[1]:
        message = f"the runs are from different GPUs: {base} on {gpus[0]}, {new} on {gpus[1]}"
        if not allow_different_gpus:
            raise GemmprofError(message, "compare runs of one GPU, or pass --allow-different-gpus")
        warnings.append(message + "; differences measure the GPUs as much as the kernels")
    elif not all(gpus):
        warnings.append("the GPU of " + " and ".join(str(p) for p, g in zip((base, new), gpus) if not g)
                        + " is not recorded: cannot check that both runs used the same GPU")
    table = compare_bench(base_bench, new_bench, fraction)
    metrics = compare_kernels(base_kernels, new_kernels) if base_kernels is not None and new_kernels is not None else None
    env_diff = environment_differences(base_meta, new_meta)
    counts = summarize(table)

    if json_out:
        def records(frame):
            return json.loads(frame.to_json(orient="records", double_precision=15)) if frame is not None else None

        typer.echo(json.dumps({
            "base": str(base), "new": str(new), "threshold": fraction, "gpu": {"base": gpus[0], "new": gpus[1]},
            "warnings": warnings, "environment_differences": [
                {"what": what, "base": b, "new": n} for what, b, n in env_diff],
            "summary": counts, "bench": records(table), "kernels": records(metrics),
        }))
    else:
        err = Console(stderr=True)
        for warning in warnings:
            err.print(f"[bold yellow]WARNING:[/] {escape(str(warning))}", highlight=False)
        console = Console(width=200) if not Console().is_terminal else Console()
        for what, b, n in env_diff:
            if what != "GPU":
                console.print("[yellow]note:[/] " + escape(f"{what} differs: {b} (base) vs {n} (new)"), highlight=False)
        console.print(compare_table(table, f"{base} -> {new} (threshold {100 * fraction:g}%)"))
        if metrics is not None and len(metrics):
            console.print(compare_metrics_table(metrics, fraction))
        summary = ", ".join(f"{v} {k}" for k, v in counts.items() if k != "regressions")
        style = "bold red" if counts["regressions"] else "green"
        console.print(f"[{style}]{counts['regressions']} regression(s)[/] ({summary})", highlight=False)
    if counts["regressions"]:
        raise typer.Exit(Exit.FAILED)


def parse_threshold(text: str) -> float:
    """'3%' or '3' -> 0.03; a percentage, never negative."""
    from ..errors import GemmprofError

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
    from ..errors import GemmprofError

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
    from ..errors import GemmprofError
    from ..run import open_run

    run = open_run(path)
    if not run.is_gemmprof_run:
        raise GemmprofError(f"{path} is not a gemmprof run (no run.json)", "compare needs a run directory with a bench table")
    meta = run.meta  # a GemmprofError when the schema is wrong
    if run.bench is None:
        raise GemmprofError(f"run {path} has no bench table", f"time it first: gemmprof bench --run-id {path.name}")
    return run.bench, meta, run.kernels if run.run_dir is not None and run.run_dir.has_table("kernels") else None
