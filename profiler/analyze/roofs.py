"""What a launch can reach, and who can change it (pure).

- `attainable`: the share of its math pipe's peak that cuBLAS reaches for the same math (FP32,
  TF32 or FP16 tensor cores): cuBLAS launched at the same shape in the same run when there is
  one, else the table measured on the device (`specs.ATTAINABLE_PCT`). "At the roof" is said only
  within `specs.ROOF_SHARE` of it: a Triton kernel at 80% of the FP16 peak is not at the roof on
  a GPU where cuBLAS reaches 93%.
- `intensity`: FLOPs per DRAM byte, the launch's and the least its GEMM needs (its shape, batch
  and element types), against the ridge point of its math pipe (peak FLOP/s over peak DRAM
  bytes/s). A GEMM whose least traffic is already below the ridge is memory-bound by nature (a
  decode step, a batch of small products); one whose traffic pushes it below is refetching.
- `origin`: who compiled the kernel, so that a cure names a knob the user has (gemmprof's own
  ladder, Triton, a library such as cuBLAS or CUTLASS, or the user's own CUDA).
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ..catalogue.manifest import REFERENCES
from ..specs import ATTAINABLE_PCT, ATTAINABLE_SOURCE, ROOF_SHARE
from .gemm_shape import batch_of, gemm_flop
from .global_memory import launch_min_bytes
from .values import number

# Kernel names of libraries (cuBLAS, cuBLASLt, CUTLASS inside them): nothing the user compiles.
LIBRARY_KERNEL = re.compile(r"^(nvjet_|sm\d+_xmma_|cutlass|ampere_|volta_|turing_|gemv|gemmk|splitKreduce|"
                            r"dot_kernel|Kernel2\b)|cublas", re.IGNORECASE)
ORIGINS = ("gemmprof", "triton", "library", "cuda")


def math_kind(util: Mapping) -> str:
    """'FP16', 'TF32' (tensor cores, by the input type that fed them) or 'FP32' (the FMA pipe)."""
    tensor = number(util.get("tensor"))
    if tensor > 0:
        kind = util.get("tensor_input")
        return kind if isinstance(kind, str) else "FP16"
    return "FP32"


def math_share(util: Mapping) -> float:
    """The launch's math pipe busy, in % of its peak (tensor cores or FP32)."""
    return number(util.get("tensor")) if math_kind(util) != "FP32" else number(util.get("fp32"))


def attainable(launches: pd.DataFrame, util: pd.DataFrame) -> list[dict]:
    """Per launch (rows of `launches` and `util` in order): pct (what cuBLAS reaches for its math,
    % of peak), roof (ROOF_SHARE of it: from there the launch is at the roof), kind (its math) and
    source (where pct comes from). cuBLAS of the same math and shape in the same run wins over the
    table; gemmprof's cuBLAS reference rows are their own yardstick."""
    records = launches.to_dict("records")
    utils = util.to_dict("records")
    kinds = [math_kind(u) for u in utils]
    keys = [_shape_key(r) for r in records]
    out = []
    for i, (record, kind) in enumerate(zip(records, kinds)):
        same = [math_share(utils[j]) for j, other in enumerate(records)
                if j != i and kinds[j] == kind and keys[j] is not None and keys[j] == keys[i] and _is_cublas(other)]
        same = [v for v in same if v > 0]
        key = record.get("kernel_key")
        if isinstance(key, str) and key in REFERENCES and math_share(utils[i]) > 0:
            pct, source = math_share(utils[i]), "this launch: cuBLAS, the yardstick itself"
        elif same:
            pct, source = max(same), "cuBLAS at the same shape in this run"
        else:
            pct, source = ATTAINABLE_PCT.get(kind, np.nan), ATTAINABLE_SOURCE
        out.append({"pct": pct, "roof": ROOF_SHARE * pct, "kind": kind, "source": source})
    return out


def intensity(launch: Mapping, util: Mapping) -> dict:
    """FLOPs per DRAM byte: `measured` (the launch's math over its DRAM bytes), `least` (its GEMM's
    FLOPs over the least traffic they need; NaN without a shape) and `ridge` (its math pipe's peak
    over the DRAM peak: below it the DRAM, not the math, is the roof)."""
    seconds = number(launch.get("duration_ns")) * 1e-9
    flops = number(launch.get("achieved_flops")) * seconds
    dram = number(launch.get("dram_bytes"))
    peak = number(launch.get("peak_tensor_flops")) if math_kind(util) != "FP32" else number(launch.get("peak_fp32_flops"))
    least = launch_min_bytes(launch)
    gemm = gemm_flop(launch)
    return {"measured": flops / dram if dram > 0 else np.nan,
            "least": gemm / least["total"] if least and least["total"] > 0 else np.nan,
            "ridge": peak / number(launch.get("peak_dram_bytes_per_s")),
            "least_bytes": float(least["total"]) if least else np.nan}


def origin(launch: Mapping, files: Sequence[str] = ()) -> str:
    """Who compiled the launch's kernel: 'gemmprof' (a kernel of its manifests or a reference it
    ran), 'triton' (source lines in a .py file), 'library' (a cuBLAS or CUTLASS kernel by its name)
    or 'cuda' (the user's own)."""
    if isinstance(launch.get("kernel_key"), str) and launch["kernel_key"]:
        return "gemmprof"
    if any(isinstance(f, str) and f.endswith(".py") for f in files):
        return "triton"
    names = [n for n in (launch.get("function"), launch.get("kernel")) if isinstance(n, str)]
    if any(LIBRARY_KERNEL.search(n) for n in names):
        return "library"
    return "cuda"


def _is_cublas(record: Mapping) -> bool:
    key = record.get("kernel_key")
    if isinstance(key, str) and key in REFERENCES:
        return True
    return not isinstance(key, str) and origin(record) == "library"


def _shape_key(record: Mapping) -> tuple | None:
    dims = [record.get(d) for d in "MNK"]
    if any(v is None or pd.isna(v) for v in dims):
        return None
    return (*(int(v) for v in dims), batch_of(record))
