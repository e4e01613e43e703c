"""A synthetic kernels table whose roofline can be checked by hand (the roofline's and the
charts' tests share it)."""

from __future__ import annotations

import pandas as pd

# Peaks of the synthetic GPU: DRAM 1 TB/s, L2 4 TB/s, shared 8 TB/s, L1 16 TB/s, FP32 20 TFLOP/s.
PEAKS = {
    "peak_dram_bytes_per_s": 1e12, "peak_l2_bytes_per_s": 4e12, "peak_shared_bytes_per_s": 8e12,
    "peak_l1_bytes_per_s": 16e12, "peak_fp32_flops": 20e12, "peak_tensor_fp16_flops": 400e12,
}


def launch(key: str, flop: float, ns: float, dram: float, l2: float, l1: float, wavefronts: float = 0.0,
           tensor: float = 0.0, gpu: str = "Test GPU", **peaks) -> dict:
    row = {
        "kernel_key": key, "function": key + "_kernel", "kernel": f"void {key}_kernel(...)", "M": 1024, "N": 1024,
        "K": 1024, "gpu": gpu, "fp32_flop": flop, "tensor_flop": tensor, "duration_ns": ns,
        "dram_bytes": dram, "l2_bytes": l2, "l1_bytes": l1, "shared_load_wavefronts": wavefronts,
        "shared_store_wavefronts": 0.0, "shared_ldgsts_wavefronts": 0.0, "sm_clock_hz": 1.5e9,
    }
    return {**row, **PEAKS, **peaks}


def synthetic_kernels() -> pd.DataFrame:
    """naive: 2 GFLOP in 1 ms = 2 TFLOP/s; DRAM 0.1 GB (20 FLOP/B), L2 1 GB (2), L1 5 GB (0.4),
    no shared traffic. smem: 2 GFLOP in 0.5 ms = 4 TFLOP/s; shared 15.625 M wavefronts x 128 B =
    2 GB (1 FLOP/B). cuBLAS: two launches, 1 GFLOP each in 0.1 ms each = 10 TFLOP/s."""
    return pd.DataFrame([
        launch("naive", 2e9, 1e6, dram=1e8, l2=1e9, l1=5e9),
        launch("smem", 2e9, 5e5, dram=1e8, l2=5e8, l1=2e8, wavefronts=15.625e6),
        launch("cublas", 1e9, 1e5, dram=5e7, l2=1e8, l1=1e8, wavefronts=1e6),
        launch("cublas", 1e9, 1e5, dram=5e7, l2=1e8, l1=1e8, wavefronts=1e6),
    ])
