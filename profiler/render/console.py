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
    t = Table(title=escape(title), title_justify="left")
    for col, justify in [("kernel", "left"), ("M x N x K", "right"), ("time ms", "right"), ("CV", "right"),
                         ("GFLOP/s", "right"), ("% cuBLAS", "right"), ("% of peak", "right"),
                         ("error", "right"), ("status", "left")]:
        t.add_column(col, justify=justify)
    for r in df.to_dict("records"):
        timed = r.get("status") == "PASS"
        throttled = "*" if timed and r.get("throttled") is True else ""
        status = r.get("status", "")
        note = f" {escape(r['reason'])}" if status in ("FAIL", "ERROR", "SKIP") and isinstance(r.get("reason"), str) else ""
        t.add_row(
            escape(str(r["kernel"])) + _dispatched(r),
            f"{r['M']}x{r['N']}x{r['K']}",
            _num(r.get("median_ms"), ".4f") + throttled if timed else "",
            _num(100 * r["cv"], ".1f") + "%" if timed else "",
            _num(r.get("gflops"), ",.0f") if timed else "",
            _num(r.get("pct_of_cublas"), ".1f") if timed else "",
            _num(_first_number(r.get("pct_of_peak"), r.get("pct_of_fp32_peak")), ".1f") if timed else "",
            _num(r.get("error"), ".1e"),
            f"[{STATUS_STYLE.get(status, '')}]{escape(str(status))}[/]{note}",
        )
    return t


def _dispatched(row: dict) -> str:
    """A dispatcher's row: ' -> kernel' and, dimmed, the rule that chose it."""
    to, rule = row.get("dispatched_to"), row.get("dispatch_rule")
    if not isinstance(to, str):
        return ""
    return f" -> {escape(to)}" + (f" [dim]({escape(rule)})[/]" if isinstance(rule, str) else "")


def suite_table(summary: pd.DataFrame, title: str = "") -> Table:
    """A suite's summary: per tier and kernel, geometric mean and minimum of % of cuBLAS, and
    how many of the suite's shapes it passed (a mean over fewer shapes is marked)."""
    t = Table(title=escape(title), title_justify="left")
    for col, justify in [("tier", "left"), ("kernel", "left"), ("passed", "right"), ("geomean % cuBLAS", "right"),
                         ("min % cuBLAS", "right"), ("at", "right")]:
        t.add_column(col, justify=justify)
    for r in summary.sort_values(["tier", "geomean_pct_cublas"], ascending=[True, False]).to_dict("records"):
        partial = "" if r["covers"] else " [yellow](partial)[/]"
        t.add_row(escape(str(r["tier"])), escape(str(r["kernel"])), f"{r['passed']}/{r['shapes']}",
                  _num(r["geomean_pct_cublas"], ".1f") + partial, _num(r["min_pct_cublas"], ".1f"), escape(str(r["min_shape"])))
    return t


def key_value_table(rows: list[tuple[str, object]], title: str = "") -> Table:
    t = Table(title=title, show_header=False, title_justify="left")
    t.add_column("what", style="bold")
    t.add_column("value")
    for k, v in rows:
        t.add_row(k, "" if v is None else escape(str(v)))
    return t


# ---------------------------------------------------------------------------------------------
# gemmprof compare

VERDICT_STYLE = {"slower": "bold red", "broken": "bold red", "unmeasured": "bold red", "faster": "green", "fixed": "green",
                 "noise": "yellow", "same": "", "added": "cyan", "removed": "cyan", "not timed": "dim"}


def _change(value: float) -> str:
    """A relative change (new / base - 1) as '+3.1%'; blank when unknown."""
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{100 * value:+.1f}%"


def _ms(median, p10, p90) -> str:
    if median is None or (isinstance(median, float) and math.isnan(median)):
        return ""
    spread = "" if any(v is None or math.isnan(v) for v in (p10, p90)) else f" ({p10:.4g}–{p90:.4g})"
    return f"{median:.4g}{spread}"


def compare_table(table: pd.DataFrame, title: str) -> Table:
    """`gemmprof compare`'s table: per kernel and shape, both runs' medians with their spread, the
    changes and the verdict (coloured)."""
    t = Table(title=escape(title), title_justify="left")
    for header in ("kernel", "M x N x K", "base ms (p10–p90)", "new ms (p10–p90)", "Δ time", "base GFLOP/s",
                   "new GFLOP/s", "Δ GFLOP/s", "verdict"):
        t.add_column(header, justify="left" if header in ("kernel", "verdict") else "right")
    for r in table.to_dict("records"):
        status = ""
        if r["verdict"] in ("broken", "fixed", "not timed"):
            status = f" ({r['status_base']} -> {r['status_new']})"
        elif r["verdict"] in ("added", "removed"):
            only = r["status_new"] if r["verdict"] == "added" else r["status_base"]
            status = f" ({only})" if only != "PASS" else ""
        style = VERDICT_STYLE.get(r["verdict"], "")
        t.add_row(escape(str(r["kernel"])), f"{r['M']}x{r['N']}x{r['K']}",
                  _ms(r["base_ms"], r["base_p10_ms"], r["base_p90_ms"]), _ms(r["new_ms"], r["new_p10_ms"], r["new_p90_ms"]),
                  _change(r["time_change"]),
                  _num(r["base_gflops"], ",.0f"), _num(r["new_gflops"], ",.0f"),
                  _change(r["gflops_change"]),
                  f"[{style}]{r['verdict']}[/]{escape(status)}" if style else escape(r["verdict"] + status))
    return t


def compare_metrics_table(metrics: pd.DataFrame, threshold: float) -> Table:
    """Per kernel and shape, the relative change of each key ncu metric; changes beyond the
    threshold in the bad direction red, in the good direction green."""
    from ..analyze.compare import KEY_METRICS

    present = [m for m in KEY_METRICS if m.column in set(metrics["metric"])]
    t = Table(title="Nsight Compute metrics, change new vs base", title_justify="left")
    t.add_column("kernel")
    t.add_column("M x N x K", justify="right")
    for m in present:
        t.add_column(f"Δ {m.label}", justify="right")
    for (kernel, M, N, K), rows in metrics.groupby(["kernel", "M", "N", "K"], sort=False):
        by_metric = rows.set_index("metric")
        cells = []
        for m in present:
            if m.column not in by_metric.index:
                cells.append("")
                continue
            change = by_metric.loc[m.column, "change"]
            text = _change(change)
            if text and m.higher_is_better is not None and abs(change) > threshold:
                good = (change > 0) == m.higher_is_better
                text = f"[{'green' if good else 'red'}]{text}[/]"
            cells.append(text)
        t.add_row(escape(str(kernel)), f"{M}x{N}x{K}", *cells)
    return t


# ---------------------------------------------------------------------------------------------
# gemmprof analyze


def launch_summary_table(kernels: pd.DataFrame, title: str, per_kernel: bool = False) -> Table:
    """`analyze`'s summary of one report: a row per launch, or per kernel of
    `analyze.launches.group_launches` (`per_kernel`)."""
    table = Table(title=escape(title), title_justify="left")
    for header in summary_headers(per_kernel):
        left = header in ("kernel", "occupancy", "top stall")
        table.add_column(header, justify="left" if left else "right", no_wrap=header == "kernel")
    for row in summary_rows(kernels, per_kernel):
        table.add_row(*map(escape, row))  # kernel names are data: never rich markup
    return table


def count_of(n: int, noun: str) -> str:
    """'1 launch', '3 launches', '2 kernels'."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}es" if noun.endswith("h") else f"{n} {noun}s"


def summary_headers(per_kernel: bool = False) -> list[str]:
    first = ["launches", "kernel", "shape", "total ms", "share", "median µs"] if per_kernel else ["#", "kernel", "shape", "time µs"]
    return first + ["GFLOP/s", "% of peak", "DRAM MB", "bank conflicts", "occupancy", "top stall"]


def summary_rows(kernels: pd.DataFrame, per_kernel: bool = False) -> list[list[str]]:
    """The summary, formatted: one list of cells per launch, or per kernel of
    `analyze.launches.group_launches` (pure, for the table and tests)."""
    from ..analyze.roofline import kernel_names

    def num(value, fmt: str) -> str:
        return "-" if pd.isna(value) else format(value, fmt)

    rows = []
    for name, r in zip(kernel_names(kernels), kernels.to_dict("records")):
        name = name if len(name) <= 48 else name[:45] + "..."
        shape = "-" if pd.isna(r["M"]) else f"{r['M']:.0f}x{r['N']:.0f}x{r['K']:.0f}"
        occupancy = f"{num(r['achieved_occupancy_pct'], '.0f')}% of {num(r['theoretical_occupancy_pct'], '.0f')}%"
        if isinstance(r["occupancy_limiter"], str):
            occupancy += f" ({r['occupancy_limiter']})"
        stall = r["top_stall"]
        top = f"{stall} {num(r['stall_' + stall], '.1f')}" if isinstance(stall, str) else "-"
        if per_kernel:
            first = [str(r["launches"]), name, shape, num(r["total_duration_ns"] / 1e6, ",.3f"),
                     num(r["share_pct"], ".1f") + "%", num(r["duration_ns"] / 1e3, ",.1f")]
        else:
            first = [str(r["launch"]), name, shape, num(r["duration_ns"] / 1e3, ",.1f")]
        rows.append(first + [
            num(r["achieved_flops"] / 1e9, ",.0f"),
            num(r["peak_pct"], ".1f"),
            num(r["dram_bytes"] / 1e6, ",.2f"),
            num(r["shared_bank_conflicts"], ",.0f"),
            occupancy,
            top,
        ])
    return rows
