"""`gemmprof env`: what matters for reproducing a measurement on this machine."""

from __future__ import annotations

import json
from typing import Annotated

import typer


LABELS = {
    "gpu_name": "GPU", "compute_capability": "compute capability", "arch": "nvcc arch", "sm_count": "SMs",
    "l2_bytes": "L2 bytes", "gpu_memory_bytes": "memory bytes", "driver": "driver", "cuda_runtime": "CUDA runtime",
    "cuda_driver_api": "CUDA driver API", "cublas_version": "cuBLAS", "sm_clock_mhz": "SM clock now (MHz)",
    "sm_clock_max_mhz": "SM clock max (MHz)", "mem_clock_mhz": "memory clock now (MHz)",
    "mem_clock_max_mhz": "memory clock max (MHz)", "ncu_path": "ncu", "ncu_version": "ncu version",
    "counters_permitted": "performance counters readable", "counters_permitted_why": "  because",
    "nvcc_version": "nvcc", "python": "python", "gemmprof_version": "gemmprof", "gpu_error": "GPU problem",
}

# What an empty field means, said instead of a blank
MISSING = {"ncu_path": "not found (pass --ncu, set GEMMPROF_NCU or put ncu on PATH)", "ncu_version": "-",
           "nvcc_version": "not found", "counters_permitted": "unknown"}


def env(
    ncu: Annotated[str | None, typer.Option(help="Path to ncu (default: $GEMMPROF_NCU, then PATH).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON object instead of a table.")] = False,
) -> None:
    """Show the GPU, driver, CUDA, cuBLAS, ncu and clocks: what a measurement depends on.

    Examples:

        gemmprof env

        gemmprof env --json > env.json
    """
    from ..measure.provenance import collect_environment
    from ..render.console import key_value_table
    from ..render.terminal import make_console

    info = collect_environment(ncu)
    if as_json:
        print(json.dumps(info, indent=2, default=str))
        return
    rows = [(LABELS[k], MISSING.get(k) if v is None else v) for k, v in info.items() if k in LABELS]
    make_console().print(key_value_table(rows, title="gemmprof env"))
