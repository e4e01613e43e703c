"""Minimal one-launch kernels and sass tables for the memory analyses' tests (shared_memory,
global_memory, instruction_mix): every column they read, zero unless a test says otherwise."""

from __future__ import annotations

import pandas as pd


def kernels_row(**values) -> pd.DataFrame:
    row = {"report": "r", "launch": 0, "M": 2, "N": 3, "K": 4,
           "shared_load_wavefronts": 0.0, "shared_load_bank_conflicts": 0.0,
           "shared_store_wavefronts": 0.0, "shared_store_bank_conflicts": 0.0,
           "shared_ldgsts_wavefronts": 0.0, "shared_ldgsts_bank_conflicts": 0.0}
    row.update(values)
    return pd.DataFrame([row])

def sass_rows(rows) -> pd.DataFrame:
    base = {"report": "r", "launch": 0, "shared_wavefronts": 0.0, "shared_wavefronts_ideal": 0.0,
            "shared_excess_wavefronts": 0.0, "inst_executed": 0.0}
    return pd.DataFrame([{**base, **r} for r in rows])
