"""`gemmprof profile`: each kernel (and cuBLAS) under Nsight Compute, one report per kernel and
shape, then the reports read back into tables."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

CUBLAS = "cublas"


def report_stem(kernel: str, M: int, N: int, K: int) -> str:
    return f"{kernel}_{M}x{N}x{K}"


def profile(
    kernel: Annotated[list[str] | None, typer.Option("--kernel", "-k", help="Kernel name (repeatable), 'cublas', or 'all' (default: all, cuBLAS included).")] = None,
    size: Annotated[int | None, typer.Option(help="Square size M=N=K (default 2048).")] = None,
    mnk: Annotated[tuple[int, int, int] | None, typer.Option("--mnk", help="A rectangular shape: --mnk M N K.")] = None,
    section_set: Annotated[str, typer.Option("--set", help="ncu section set (full, detailed, basic, ...).")] = "full",
    clock_control: Annotated[str, typer.Option(help="Passed to ncu: 'none' measures the clocks the card runs (default; required on shared machines); 'base' locks them.")] = "none",
    ncu: Annotated[str | None, typer.Option(help="Path to ncu (default: $GEMMPROF_NCU, then PATH).")] = None,
    out: Annotated[Path, typer.Option(help="Directory under which the run directory is written.")] = Path("reports"),
    run_id: Annotated[str | None, typer.Option(help="Run directory name; an existing run is extended (default: new date-time-gpu).")] = None,
    force: Annotated[bool, typer.Option(help="Profile again even where a report already exists.")] = False,
    compress: Annotated[bool, typer.Option("--xz", help="Store reports xz-compressed (.ncu-rep.xz, ~10x smaller; gemmprof reads both).")] = False,
    timing_only: Annotated[bool, typer.Option(help="No counters (e.g. ERR_NVGPUCTRPERM): bench the same kernels and shape instead.")] = False,
) -> None:
    """Profile kernels (and cuBLAS) under Nsight Compute, one report per kernel and shape.

    Runs `ncu --set full --import-source yes` (plus the exact FLOP and DRAM
    counters the analysis needs), capturing only the measured launch (NVTX range 'gp'), never the
    warm-up or the verification. Reports are written atomically; an interrupted run keeps every
    finished report, and a rerun skips them unless --force.
    """
    from ..errors import GemmprofError
    from ..extract import metrics as metric_table
    from ..extract.run import extract_run, start_background_extract
    from ..manifest import select_kernels
    from ..measure.build import build_all
    from ..measure.device import collect_environment, git_commit
    from ..measure.ncu import CLOCK_CONTROLS, NcuOptions, failure, ncu_command, resolve_ncu, run_ncu, target_argv
    from ..rundir import REPO_ROOT, RunDir, command_line, new_run_id
    from ..subprocess_env import child_env
    from ._options import check_shape

    if clock_control not in CLOCK_CONTROLS:
        raise GemmprofError(f"--clock-control must be one of {', '.join(CLOCK_CONTROLS)}")
    names = kernel or ["all"]
    with_cublas = "all" in names or CUBLAS in names
    ladder_names = [n for n in names if n != CUBLAS]
    specs = select_kernels(ladder_names) if ladder_names else []
    shape = check_shape(tuple(mnk)) if mnk else check_shape((size or 2048,) * 3)
    if timing_only:
        from .bench import bench

        return bench(kernel=[s.name for s in specs] or None, sizes="{}x{}x{}".format(*shape), out=out, run_id=run_id, cublas=with_cublas)

    started = time.perf_counter()
    exe = resolve_ncu(ncu)
    console = Console()
    require_cupy()
    # NVML only: the CUDA side (runtime, cuBLAS, SMs) is reported by the first target instead.
    env = collect_environment(ncu=str(exe), need_gpu=True, nvml_only=True)
    phases = {"environment_s": time.perf_counter() - started}
    # Compile in the background: cuBLAS is profiled first and needs no cubin.
    builder = ThreadPoolExecutor(max_workers=1)
    building = builder.submit(build_all, specs, env["arch"]) if specs else None
    opts = NcuOptions(ncu=exe, section_set=section_set, clock_control=clock_control, extra_metrics=metric_table.ncu_extra_metrics())
    commit, dirty = git_commit(REPO_ROOT)
    run = RunDir.create(out / (run_id or new_run_id(env["gpu_slug"])), {
        "kind": "profile", "command": command_line(), "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "git_commit": commit, "git_dirty": dirty, "environment": env,
    })
    ncu_dir = run.path / "ncu"
    ncu_dir.mkdir(exist_ok=True)
    M, N, K = shape
    jobs = ([(CUBLAS, "fp32", None)] if with_cublas else []) + [(s.name, s.tier, s) for s in specs]
    console.print(f"[bold]{env['gpu_name']}[/]: ncu {env['ncu_version']} --set {section_set} --clock-control {clock_control}; "
                  f"{len(jobs)} kernels at {M}x{N}x{K} -> {ncu_dir}")
    env_vars = child_env()
    log = run.path / "profile.jsonl"
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console)
    task = progress.add_task("profile", total=len(jobs))
    background = []
    with progress:
        for i, (name, tier, spec) in enumerate(jobs, start=1):
            stem = report_stem(name, M, N, K)
            final = ncu_dir / (stem + (".ncu-rep.xz" if compress else ".ncu-rep"))
            if not force and any((ncu_dir / (stem + ext)).is_file() for ext in (".ncu-rep", ".ncu-rep.xz")):
                progress.console.print(f"  {stem}: report exists, skipped (--force to redo)")
                progress.advance(task)
                continue
            progress.update(task, description=f"[{i}/{len(jobs)}] {name} under ncu")
            tmp_base = ncu_dir / f".{stem}.partial"
            cubin = str(cubins(building)[name]) if spec else None
            job = json.dumps({"kernel": name, "tier": tier, "M": M, "N": N, "K": K, "cubin": cubin,
                              "spec": asdict(spec) if spec else None, "seed": 7})
            t0 = time.perf_counter()
            command = ncu_command(opts, tmp_base, target_argv(job))
            result = run_ncu(command, env_vars,
                             on_kernel=lambda k, p: progress.update(task, description=f"[{i}/{len(jobs)}] {name}: {k[:40]} {p} passes"))
            wall = time.perf_counter() - t0
            error = failure(result, f"{name} {M}x{N}x{K}")
            if result.target and "environment" in result.target and "cuda_runtime" not in env:
                env.update(result.target["environment"])
                run.update_meta(environment=env)
            partial = tmp_base.with_name(tmp_base.name + ".ncu-rep")
            if error:
                partial.unlink(missing_ok=True)
                raise error
            finish_report(partial, final, compress)
            background.append(start_background_extract(final))  # overlaps the next ncu run
            record = {"kernel": name, "M": M, "N": N, "K": K, "report": str(final.relative_to(run.path)), "ncu_wall_s": wall,
                      "replay_passes": sum(p for _, p in result.kernels), "launches": len(result.kernels),
                      "ncu_command": command,
                      **{k: v for k, v in (result.target or {}).items() if k in ("status", "reason", "error")}}
            with open(log, "a") as f:
                f.write(json.dumps(record) + "\n")
            status = record.get("status", "?")
            progress.console.print(f"  {stem}: {len(result.kernels)} launch(es), {record['replay_passes']} passes, {wall:.1f} s, "
                                   f"verification {status}" + (f" ({record['reason']})" if status == "FAIL" else ""))
            progress.advance(task)
    builder.shutdown()
    phases["profile_loop_s"] = time.perf_counter() - started - sum(phases.values())
    for proc in background:  # a failed prefetch is redone (and its error shown) by extract_run
        proc.wait()
    phases["extract_wait_s"] = time.perf_counter() - started - sum(phases.values())
    tables = extract_run(run)
    phases["tables_s"] = time.perf_counter() - started - sum(phases.values())
    total = time.perf_counter() - started
    ncu_total = sum(json.loads(line)["ncu_wall_s"] for line in log.read_text().splitlines()) if log.is_file() else 0.0
    run.update_meta(profile_wall_s=total, ncu_wall_s=ncu_total, profile_phases_s=phases)
    console.print(f"extracted {len(tables['kernels'])} launches into {run.path}/kernels.csv (rules, source, metrics beside it); "
                  f"see them with: gemmprof analyze {run.path}")
    console.print(f"wall time {total:.1f} s, of which ncu {ncu_total:.1f} s; "
                  + ", ".join(f"{k.removesuffix('_s')} {v:.1f} s" for k, v in phases.items()))


def require_cupy() -> None:
    """The target needs CuPy; say so here rather than inside ncu's output."""
    import importlib.util

    from ..errors import GemmprofError

    if importlib.util.find_spec("cupy") is None:
        raise GemmprofError("CuPy is not installed", "install the GPU extra: pip install 'gemmprof[gpu]' (needs a CUDA GPU)")


def cubins(building) -> dict[str, Path]:
    """Wait for the background build (once) and map kernel name -> cubin."""
    return {b.spec.name: b.cubin for b in building.result()}


def finish_report(partial: Path, final: Path, compress: bool) -> None:
    """Move the finished report into place atomically (compressing on the way if asked)."""
    if compress:
        import lzma

        tmp = final.with_name(f".{final.name}.tmp")
        with open(partial, "rb") as src, lzma.open(tmp, "wb", preset=6) as dst:
            while chunk := src.read(1 << 20):
                dst.write(chunk)
        tmp.replace(final)
        partial.unlink()
    else:
        partial.replace(final)
