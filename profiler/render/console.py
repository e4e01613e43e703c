"""Terminal tables (rich) built from result DataFrames. Renderers return objects; callers print."""

from __future__ import annotations

import math

import pandas as pd
from rich.markup import escape
from rich.table import Table


def _num(value, fmt: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return format(value, fmt)


def _first_number(*values):
    """The first value that is a number (runs recorded before `pct_of_peak` carry only the FP32 one)."""
    return next((v for v in values if isinstance(v, (int, float)) and not math.isnan(v)), None)


STATUS_STYLE = {"PASS": "green", "FAIL": "bold red", "ERROR": "bold red", "SKIP": "dim"}


def bench_table(df: pd.DataFrame, title: str = "") -> Table:
    """The harness table: kernel, shape, time, GFLOP/s, % of cuBLAS, % of peak, error, status.
    The peak is the tier's: FP32 FMA for fp32 kernels, FP16 tensor cores for fp16 ones.
    A FAIL or ERROR row never shows a time."""
    t = Table(title=title, title_justify="left")
    for col, justify in [("kernel", "left"), ("M x N x K", "right"), ("time ms", "right"), ("CV", "right"),
                         ("GFLOP/s", "right"), ("% cuBLAS", "right"), ("% of peak", "right"),
                         ("error", "right"), ("status", "left")]:
        t.add_column(col, justify=justify)
    for r in df.to_dict("records"):
        timed = r.get("status") == "PASS"
        throttled = "*" if timed and r.get("throttled") is True else ""
        status = r.get("status", "")
        note = f" {r['reason']}" if status in ("FAIL", "ERROR", "SKIP") and isinstance(r.get("reason"), str) else ""
        t.add_row(
            r["kernel"],
            f"{r['M']}x{r['N']}x{r['K']}",
            _num(r.get("median_ms"), ".4f") + throttled if timed else "",
            _num(100 * r["cv"], ".1f") + "%" if timed else "",
            _num(r.get("gflops"), ",.0f") if timed else "",
            _num(r.get("pct_of_cublas"), ".1f") if timed else "",
            _num(_first_number(r.get("pct_of_peak"), r.get("pct_of_fp32_peak")), ".1f") if timed else "",
            _num(r.get("error"), ".1e"),
            f"[{STATUS_STYLE.get(status, '')}]{status}[/]{note}",
        )
    return t


def key_value_table(rows: list[tuple[str, object]], title: str = "") -> Table:
    t = Table(title=title, show_header=False, title_justify="left")
    t.add_column("what", style="bold")
    t.add_column("value")
    for k, v in rows:
        t.add_row(k, "" if v is None else escape(str(v)))
    return t
