"""Terminal tables (rich) built from result DataFrames, for the console of `terminal`.
Renderers return objects; callers print.

Tables fit the width they get without cutting a number (`fitted_table`)."""

from __future__ import annotations

import math

import pandas as pd
from rich.markup import escape
from rich.table import Table

from ..analyze.values import flag
from ..tiers import CONTEXT, ERROR, FAIL, FAILED_STATUSES, PASS, SKIP, TIMED_STATUSES
from ..numbers import change, fixed, fmt_num, fmt_pct, ms_spread
from ..stall_table import explain
from .fitted_table import NAME, NOTE, NUMBER, STATUS, TEXT, filled_table


def _first_number(*values):
    """The first value that is a number (runs recorded before `pct_of_peak` carry only the FP32 one)."""
    return next((v for v in values if isinstance(v, (int, float)) and not math.isnan(v)), None)


STATUS_STYLE = {PASS: "green", FAIL: "bold red", ERROR: "bold red", SKIP: "dim", CONTEXT: "cyan"}


def bench_table(df: pd.DataFrame, title: str = "") -> Table:
    """The harness table: kernel, shape, time, GFLOP/s, % of cuBLAS, % of peak, error against
    cuBLAS and against FP64 (where measured), status, and a note (why a kernel was skipped or
    failed, why a row is context, which dispatch rule chose the kernel) when any row has one. The peak is the tier's
    (`tiers.Tier.peak`): FP32 FMA for fp32 kernels, FP16 tensor cores for fp16 ones, TF32 tensor
    cores for fp32-tc. A FAIL or ERROR row never shows a time; a CONTEXT row does."""
    rows = []
    for r in df.to_dict("records"):
        timed = r.get("status") in TIMED_STATUSES
        throttled = "*" if timed and flag(r.get("throttled")) else ""
        status = r.get("status", "")
        note = escape(r["reason"]) if status in (*FAILED_STATUSES, SKIP, CONTEXT) and isinstance(r.get("reason"), str) else ""
        if isinstance(r.get("dispatch_rule"), str) and isinstance(r.get("dispatched_to"), str):
            note = note or f"chosen by {escape(r['dispatch_rule'])}"
        rows.append([
            escape(str(r["kernel"])) + _dispatched(r),
            f"{r['M']}x{r['N']}x{r['K']}",
            fixed(r.get("median_ms"), ".4f") + throttled if timed else "",
            fixed(100 * r["cv"], ".1f") + "%" if timed else "",
            fixed(r.get("gflops"), ",.0f") if timed else "",
            fixed(r.get("pct_of_cublas"), ".1f") if timed else "",
            fixed(_first_number(r.get("pct_of_peak"), r.get("pct_of_fp32_peak")), ".1f") if timed else "",
            fixed(r.get("error"), ".1e"),
            fixed(r.get("error_fp64"), ".1e"),
            f"[{STATUS_STYLE.get(status, '')}]{escape(str(status))}[/]",
            note,
        ])
    columns = [("kernel", NAME), ("M x N x K", NUMBER), ("time ms", NUMBER), ("CV", NUMBER), ("GFLOP/s", NUMBER),
               ("% cuBLAS", NUMBER), ("% of peak", NUMBER), ("error", NUMBER), ("error fp64", NUMBER),
               ("status", STATUS), ("note", NOTE)]
    if not any(row[-1] for row in rows):
        columns, rows = columns[:-1], [row[:-1] for row in rows]
    return filled_table(escape(title), columns, rows, optional=BENCH_OPTIONAL)


# What a narrow bench table leaves out first (all of it is in bench.csv): the spread and the
# FP64 error qualify a row; time, rate, % of cuBLAS, error and status are the row.
BENCH_OPTIONAL = ("CV", "error fp64", "% of peak")


def _dispatched(row: dict) -> str:
    """A dispatcher's row: ' -> kernel' (the rule that chose it is the row's note)."""
    to = row.get("dispatched_to")
    return f" -> {escape(to)}" if isinstance(to, str) else ""


def ptxas_table(built: list, arch: str) -> Table:
    """A row per built kernel: its name, ptxas's numbers and whether its cubin was already built
    (the cubins' folder is said once below: each row's path repeated it and pushed the names off
    an 80-column line). The spills of a kernel marked spill_free are red."""
    table = Table(title=f"ptxas resources ({arch})", title_justify="left")
    table.add_column("kernel", no_wrap=True)
    for col in ("registers", "static\nsmem B", "dynamic\nsmem B", "stack", "spills\nst/ld", "cubin"):
        table.add_column(col, justify="right", no_wrap=True)
    for b in built:
        r = b.resources
        spill = f"{r.spill_store_bytes}/{r.spill_load_bytes}"
        # ptxas sees only static shared memory; the manifest gives the dynamic bytes asked at launch
        table.add_row(escape(b.spec.name), str(r.registers), str(r.shared_bytes), escape(str(b.spec.smem_bytes)),
                      str(r.stack_bytes), f"[red]{spill}[/]" if b.breaks_spill_free else spill,
                      "cached" if b.cached else "built")
    return table


def points_table(points, bound):
    """Rich table: per kernel, GFLOP/s, intensity at each level, and the ceiling it is closest to."""
    from ..analyze.roofline import LEVELS

    levels = [lv.name for lv in LEVELS if lv.name in set(points["level"])]
    table = Table(title="roofline points (intensity in FLOP/byte at each level)", title_justify="left")
    for header in ["kernel", "GFLOP/s", *levels, "closest ceiling", "% of it"]:
        table.add_column(header, justify="left" if header in ("kernel", "closest ceiling") else "right")
    for row in bound.to_dict("records"):
        at = points[points["label"] == row["label"]].set_index("level")["intensity"]
        table.add_row(escape(str(row["label"])), fmt_num(row["flops"] / 1e9),
                      *[fmt_num(at[lv]) if lv in at else "-" for lv in levels],
                      row["bound"], fmt_pct(row["pct_of_roof"]))
    return table


def grades_table(grades: list) -> Table:
    """A row per graded case: its name, the grade (green, yellow, red), the verdict's lead cause,
    the causes expected and why the grade."""
    table = Table(show_edge=False, pad_edge=False)
    for column in ("case", "grade", "lead cause", "expected", "why"):
        table.add_column(column, overflow="fold")
    for g in grades:
        style = {"right": "green", "partly": "yellow", "wrong": "red"}[g.grade]
        table.add_row(g.name, f"[{style}]{g.grade}[/]", g.lead or "-", ", ".join(g.expected), g.why)
    return table


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
                  fixed(r["geomean_pct_cublas"], ".1f") + partial, fixed(r["min_pct_cublas"], ".1f"), escape(str(r["min_shape"])))
    return t


def key_value_table(rows: list[tuple[str, object]], title: str = "") -> Table:
    t = Table(title=title, show_header=False, title_justify="left")
    t.add_column("what", style="bold", no_wrap=True)
    t.add_column("value", overflow="fold")
    for k, v in rows:
        t.add_row(k, "" if v is None else escape(str(v)))
    return t


# ---------------------------------------------------------------------------------------------
# gemmprof compare

VERDICT_STYLE = {"slower": "bold red", "broken": "bold red", "unmeasured": "bold red", "faster": "green", "fixed": "green",
                 "noise": "yellow", "same": "", "added": "cyan", "removed": "cyan", "not timed": "dim"}


def compare_table(table: pd.DataFrame, title: str) -> Table:
    """`gemmprof compare`'s table: per kernel and shape, both runs' medians with their spread, the
    changes and the verdict (coloured)."""
    rows = []
    for r in table.to_dict("records"):
        status = ""
        if r["verdict"] in ("broken", "fixed", "not timed"):
            status = f" ({r['status_base']} -> {r['status_new']})"
        elif r["verdict"] in ("added", "removed"):
            only = r["status_new"] if r["verdict"] == "added" else r["status_base"]
            status = f" ({only})" if only != PASS else ""
        style = VERDICT_STYLE.get(r["verdict"], "")
        rows.append([escape(str(r["kernel"])), f"{r['M']}x{r['N']}x{r['K']}",
                     ms_spread(r["base_ms"], r["base_p10_ms"], r["base_p90_ms"]),
                     ms_spread(r["new_ms"], r["new_p10_ms"], r["new_p90_ms"]),
                     change(r["time_change"]),
                     fixed(r["base_gflops"], ",.0f"), fixed(r["new_gflops"], ",.0f"),
                     change(r["gflops_change"]),
                     f"[{style}]{r['verdict']}[/]{escape(status)}" if style else escape(r["verdict"] + status)])
    columns = [("kernel", TEXT), ("M x N x K", NUMBER), ("base ms (p10–p90)", NUMBER), ("new ms (p10–p90)", NUMBER),
               ("Δ time", NUMBER), ("base GFLOP/s", NUMBER), ("new GFLOP/s", NUMBER), ("Δ GFLOP/s", NUMBER),
               ("verdict", STATUS)]
    return filled_table(escape(title), columns, rows)


def compare_metrics_table(metrics: pd.DataFrame, threshold: float) -> Table:
    """Per kernel and shape, the relative change of each key ncu metric; changes beyond the
    threshold in the bad direction red, in the good direction green."""
    from ..analyze.compare import KEY_METRICS

    present = [m for m in KEY_METRICS if m.column in set(metrics["metric"])]
    rows = []
    for (kernel, M, N, K), group in metrics.groupby(["kernel", "M", "N", "K"], sort=False):
        by_metric = group.set_index("metric")
        cells = []
        for m in present:
            if m.column not in by_metric.index:
                cells.append("")
                continue
            delta = by_metric.loc[m.column, "change"]
            text = change(delta)
            if text and m.higher_is_better is not None and abs(delta) > threshold:
                good = (delta > 0) == m.higher_is_better
                text = f"[{'green' if good else 'red'}]{text}[/]"
            cells.append(text)
        rows.append([escape(str(kernel)), f"{M}x{N}x{K}", *cells])
    columns = [("kernel", TEXT), ("M x N x K", NUMBER)] + [(f"Δ {m.label}", NUMBER) for m in present]
    return filled_table("Nsight Compute metrics, change new vs base", columns, rows)


# ---------------------------------------------------------------------------------------------
# gemmprof dispatch


def dispatch_table(winners: pd.DataFrame, chosen: pd.DataFrame, title: str) -> Table:
    """`dispatch`'s table: per shape of the sweep, the fastest kernel and the runner-up
    (`analyze.dispatch.fastest_per_shape`), and what the derived rules choose there, by which
    rule, at what share of the fastest (`chosen`, indexed by M, N, K). The % of cuBLAS columns
    are what ranks them where the sweep paired every row; GFLOP/s may then disagree, as rows are
    timed minutes apart."""
    rows = []
    for r in winners.itertuples():
        c = chosen.loc[(r.M, r.N, r.K)]
        rows.append([f"{r.M}x{r.N}x{r.K}", escape(r.kernel), fixed(r.gflops, ",.0f"), fixed(r.pct, ".1f"),
                     escape(r.runner_up) if isinstance(r.runner_up, str) else "", fixed(r.runner_up_gflops, ",.0f"),
                     fixed(r.runner_up_pct, ".1f"), escape(str(c["kernel"])), str(c["rule"]),
                     fixed(100 * c["share_of_best"], ".1f")])
    columns = [("M x N x K", NUMBER), ("fastest", NAME), ("GFLOP/s", NUMBER), ("% cuBLAS", NUMBER), ("runner-up", NAME),
               ("runner-up GFLOP/s", NUMBER), ("runner-up % cuBLAS", NUMBER), ("rules choose", NAME), ("rule", NUMBER),
               ("% of fastest", NUMBER)]
    return filled_table(escape(title), columns, rows, optional=DISPATCH_OPTIONAL)


def scored_table(fit, validation, where: str) -> Table:
    """`dispatch --validate/--hold-out`: the rules on the shapes they were derived from and on the
    validation shapes (`analyze.dispatch.Scored` each): the chosen kernels' geometric mean and
    minimum % of cuBLAS, beside the fastest kernel's geometric mean (what any rules could do)."""
    rows = []
    for label, s in (("derivation", fit), ("validation", validation)):
        low = "x".join(map(str, s.min_shape)) if s.min_shape else ""
        rows.append([escape(label), str(len(s.rows)), fixed(s.geomean_pct, ".1f"), fixed(s.min_pct, ".1f"), low,
                     fixed(s.best_geomean_pct, ".1f"), str(s.unmeasured)])
    columns = [("shapes", NAME), ("n", NUMBER), ("geomean % cuBLAS", NUMBER), ("min %", NUMBER), ("at", NUMBER),
               ("fastest's geomean", NUMBER), ("not run", NUMBER)]
    return filled_table(escape(f"the rules, scored (validation: {where})"), columns, rows,
                        optional=("not run", "fastest's geomean"))


def tolerance_table(pick) -> Table:
    """`dispatch --tolerance auto`: each candidate tolerance's mean geometric mean % of cuBLAS on
    held-out halves of the sweep (`analyze.dispatch_tolerance.TolerancePick`), the chosen one marked."""
    rows = [[fixed(tol, ".2f"), fixed(pct, ".1f"), "chosen" if tol == pick.tolerance else ""]
            for tol, pct in pick.scores.items()]
    columns = [("tolerance", NUMBER), ("held-out geomean % cuBLAS", NUMBER), ("", NAME)]
    return filled_table(escape(f"--tolerance auto ({pick.splits} splits)"), columns, rows)


# What a narrow `dispatch` table leaves out first: the shape, the fastest kernel and what the
# rules choose, at what share, are the row.
DISPATCH_OPTIONAL = ("runner-up GFLOP/s", "runner-up % cuBLAS", "runner-up", "GFLOP/s", "% cuBLAS")


# ---------------------------------------------------------------------------------------------
# gemmprof analyze


def launch_summary_table(kernels: pd.DataFrame, title: str, per_kernel: bool = False,
                         launch_numbers: bool = True) -> Table:
    """`analyze`'s summary of its reports: a row per launch, or per kernel of
    `analyze.launches.group_launches` (`per_kernel`). Without `launch_numbers` the '#' column
    goes (reports of one launch each: every number would be 0)."""
    kinds = {"kernel": NAME, "top stall": NAME, "occupancy": NAME}  # names break between words only
    columns = [(h, kinds.get(h, NUMBER)) for h in summary_headers(per_kernel)]
    rows = [list(map(escape, row)) for row in summary_rows(kernels, per_kernel)]  # kernel names are data: never markup
    if not launch_numbers and not per_kernel:
        columns, rows = columns[1:], [row[1:] for row in rows]
    return filled_table(escape(title), columns, rows, optional=SUMMARY_OPTIONAL)


# What a narrow `analyze` table leaves out first (all of it is in kernels.csv and on the kernel
# pages): the names, time, rate and top stall are the row.
SUMMARY_OPTIONAL = ("occupancy", "bank conflicts", "DRAM MB", "% of peak (GHz)", "share")


def summary_headers(per_kernel: bool = False) -> list[str]:
    first = ["launches", "kernel", "shape", "total ms", "share", "median µs"] if per_kernel else ["#", "kernel", "shape", "time µs"]
    return first + ["GFLOP/s", "% of peak (GHz)", "DRAM MB", "bank conflicts", "occupancy", "top stall"]


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
        top = f"{explain(stall).label} {num(r['stall_' + stall], '.1f')}" if isinstance(stall, str) else "-"
        if per_kernel:
            first = [str(r["launches"]), name, shape, num(r["total_duration_ns"] / 1e6, ",.3f"),
                     num(r["share_pct"], ".1f") + "%", num(r["duration_ns"] / 1e3, ",.1f")]
        else:
            first = [str(r["launch"]), name, shape, num(r["duration_ns"] / 1e3, ",.1f")]
        rows.append(first + [
            num(r["achieved_flops"] / 1e9, ",.0f"),
            num(r["peak_pct"], ".1f") + (f" ({r['sm_clock_hz'] / 1e9:.2f})" if r.get("sm_clock_hz", 0) > 0 else ""),
            num(r["dram_bytes"] / 1e6, ",.2f"),
            num(r["shared_bank_conflicts"], ",.0f"),
            occupancy,
            top,
        ])
    return rows
