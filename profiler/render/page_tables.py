"""The report's tables as view models: a `Table` of formatted `Cell`s per section of a kernel page
(changes, stalls, conflicts, traffic, instruction mix, rules, hot lines, listing),
format-neutral."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import pandas as pd

from ..analyze.diagnosis_record import Diagnosis
from ..analyze.gemm_shape import batch_of
from ..analyze.global_memory import launch_min_bytes, writes_below_minimum
from ..analyze.occupancy import LIMITS
from ..numbers import count_of, fmt_bytes, fmt_count, fmt_num, fmt_pct, fmt_times, fmt_way
from ..metrics import describe


# A source line with at least this share of the samples is highlighted as hot.
HOT_SHARE_PCT = 5.0


@dataclass(frozen=True)
class Cell:
    """One table cell. kind: '' (text), 'num' (right-aligned), 'code', 'status' (with `note`, what
    the status rests on), 'link' (to the page `href`, the extension added per format),
    'better'/'worse' (a change, coloured)."""

    text: str
    kind: str = ""
    href: str = ""
    note: str = ""


@dataclass
class Table:
    headers: list[str]
    rows: list[list[Cell]] = field(default_factory=list)
    # 'r' for right-aligned columns, one letter per column ('l' otherwise).
    align: str = ""
    row_classes: list[str] = field(default_factory=list)
    cls: str = ""

    def __bool__(self) -> bool:
        return bool(self.rows)


def num_cell(text: str) -> Cell:
    return Cell(text, "num")


def status_cell(status: str | None, note: str = "") -> Cell:
    return Cell(status or "n/a", "status", note=note)


def is_missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def changes_table(d: Diagnosis) -> Table:
    t = Table(["what", "change"], align="ll", cls="changes")
    if d.changes.empty:
        return t
    for r in d.changes[d.changes["changed"]].to_dict("records"):
        kind = "better" if r["better"] is True else "worse" if r["better"] is False else ""
        t.rows.append([Cell(r["label"]), Cell(r["change"], kind)])
    return t


def versus_table(d: Diagnosis) -> Table:
    t = Table(["", d.name, d.versus_name or "reference"], align="lrr", cls="versus")
    for r in d.versus.to_dict("records"):
        kind = "better" if r["better"] is True else "worse" if r["better"] is False else ""
        t.rows.append([Cell(r["label"]), Cell(r["kernel"], kind or "num"), num_cell(r["reference"])])
    return t


def unchanged(d: Diagnosis) -> list[str]:
    if d.changes.empty:
        return []
    return [f"{r['label']} {r['change'].replace(' (same)', '')}" for r in d.changes[~d.changes["changed"]].to_dict("records")]


def gflops_change(d: Diagnosis) -> str | None:
    if d.changes.empty:
        return None
    row = d.changes[d.changes["quantity"] == "gflops"]
    return None if row.empty else str(row["change"].iloc[0])


def stalls_table(d: Diagnosis) -> Table:
    t = Table(["stall reason", "cycles per instruction", "share of cycles", "what it means", "usual cure"],
              align="lrrll", cls="stalls")
    for r in d.stalls.to_dict("records"):
        t.rows.append([Cell(r["label"]), num_cell(fmt_num(r["cycles_per_inst"])), num_cell(fmt_pct(r["share_pct"])),
                       Cell(r["meaning"]), Cell(r["cure"])])
        t.row_classes.append("benign" if r["benign"] else "")
    return t


_STATUS_TEXT = {"none": "no conflicts", "conflicts": "bank conflicts",
                "lines": "one wavefront per global line, not bank conflicts",
                "unexplained": "extra wavefronts, not from the addresses"}


def conflicts_table(d: Diagnosis) -> Table:
    t = Table(["access", "wavefronts", "conflict replays", "% of wavefronts", "n-way (worst instruction)",
               "average (W / (W - C))", "reading"], align="lrrrrrl", cls="conflicts")
    for r in d.conflicts.to_dict("records"):
        worst = fmt_way(r["worst_n_way"]) if not is_missing(r["worst_n_way"]) else "n/a"
        t.rows.append([Cell(f"shared {r['kind']}"), num_cell(fmt_count(r["wavefronts"])),
                       num_cell(fmt_count(r["conflicts"])), num_cell(fmt_pct(r["excess_pct"])),
                       num_cell(worst), num_cell(f"{r['n_way_avg']:.2f}x"), Cell(_STATUS_TEXT[r["status"]])])
        t.row_classes.append("flag" if r["status"] == "conflicts" and r["excess_pct"] >= 1 else "")
    return t


def conflict_lines_table(d: Diagnosis) -> Table:
    t = Table(["line", "code", "wavefronts", "conflict-free", "n-way", "share of excess"], align="llrrrr",
              cls="lines")
    for r in d.conflict_lines.to_dict("records"):
        line = "" if is_missing(r["line"]) or pd.isna(r["line"]) else str(int(r["line"]))
        t.rows.append([num_cell(line or "?"), Cell(_code_text(r["code"]), "code"), num_cell(fmt_count(r["wavefronts"])),
                       num_cell(fmt_count(r["ideal"])), num_cell(fmt_way(r["n_way"])),
                       num_cell(fmt_pct(r["share_pct"]))])
    return t


def _code_text(code) -> str:
    return "(no line information)" if code is None or (isinstance(code, float) and math.isnan(code)) else str(code).strip()


def occupancy_view(d: Diagnosis) -> dict | None:
    o = d.occupancy
    if not o:
        return None
    t = Table(["resource", "blocks per SM it allows", "because"], align="lrl", cls="occupancy")
    limiter = o["limiter"] or ""
    because = {
        "registers": f"{fmt_num(o['registers_per_thread'])} registers per thread x {fmt_num(o['threads_per_block'])} "
                     f"threads per block",
        "shared memory": f"{fmt_bytes(o['shared_mem_per_block'])} of shared memory per block",
        "warps": f"{fmt_num(o['warps_per_block'])} warps per block, {fmt_num(o['max_warps_per_sm'])} warp slots per SM",
        "blocks": "block slots per SM",
        "barriers": "named barriers per SM",
    }
    for name, _ in LIMITS:
        value = o.get(f"limit_{name.replace(' ', '_')}")
        if is_missing(value):
            continue
        t.rows.append([Cell(name), num_cell(fmt_num(value)), Cell(because[name])])
        t.row_classes.append("flag" if name in limiter.split(", ") and o["theoretical_pct"] < 100 else "")
    unit, meaning = describe("achieved_occupancy_pct")
    return {"o": o, "table": t, "limited": bool(limiter) and o["theoretical_pct"] < 100,
            "achieved": fmt_pct(o["achieved_pct"]), "theoretical": fmt_pct(o["theoretical_pct"]),
            "warps_per_scheduler": fmt_num(o["warps_per_scheduler"], 2), "limiter": limiter,
            "blocks": count_of(o["blocks_per_sm"], "block"),
            "registers_next": None if is_missing(o["registers_for_next_block"]) or d.origin not in COMPILED_BY_USER
            else fmt_num(o["registers_for_next_block"]),
            "co_limiters": ", ".join(x for x in limiter.split(", ") if x and x != "registers"),
            "gap": o["achieved_gap"], "meaning": meaning}


# Origins of kernels whose author compiles them (`analyze.roofs.origin`): register caps are theirs to set;
# cuBLAS's and Triton's are not.
COMPILED_BY_USER = ("gemmprof", "cuda")


def traffic_table(d: Diagnosis) -> Table:
    t = Table(["level", "bytes moved", "GEMM minimum", "times fetched"], align="lrrr", cls="traffic")
    for r in d.traffic.to_dict("records"):
        t.rows.append([Cell(r["level"]), num_cell(fmt_bytes(r["bytes"])), num_cell(fmt_bytes(r["minimum"])),
                       num_cell(fmt_times(r["times"]))])
    return t


def traffic_notes(d: Diagnosis) -> dict:
    least = launch_min_bytes(d.launch) if d.launch else None
    if least is None:
        return {}
    batch = batch_of(d.launch)
    return {"read": fmt_bytes(least["read"]), "write": fmt_bytes(least["write"]), "total": fmt_bytes(least["total"]),
            "low_writes": writes_below_minimum(d.traffic), "own": d.origin == "gemmprof",
            "batch": f"{batch} products of " if batch > 1 else ""}


_MIX_ROWS = (
    ("global_load", "global loads (LDG)"),
    ("shared_load", "shared loads (LDS)"),
    ("shared_store", "shared stores (STS)"),
    ("async_copy", "async copies (LDGSTS)"),
    ("global_store", "global stores (STG)"),
    ("barrier", "barriers (BAR)"),
)


def mix_table(d: Diagnosis) -> Table:
    """Instructions per math instruction: per FFMA, or per MMA for a tensor-core kernel."""
    m = d.mix
    op = (m or {}).get("math_op", "FFMA")
    t = Table(["warp instructions", "executed", f"per {op}"], align="lrr", cls="mix")
    if not m or not m.get("math"):
        return t
    t.rows.append([Cell("MMA (tensor cores)" if op == "MMA" else "FFMA"), num_cell(fmt_count(m["math"])), num_cell("1")])
    for cls, label in _MIX_ROWS:
        if m.get(cls, 0) > 0:
            t.rows.append([Cell(label), num_cell(fmt_count(m[cls])), num_cell(fmt_num(m[f"{cls}_per_math"]))])
    t.rows.append([Cell("all instructions"), num_cell(fmt_count(m["total"])),
                   num_cell(fmt_num(m["all_per_math"]))])
    return t


def rules_table(d: Diagnosis) -> Table:
    t = Table(["est. speedup", "rule", "advice"], align="rll", cls="rules")
    for r in d.rules.to_dict("records"):
        speed = r.get("estimated_speedup_pct")
        title = r.get("title") if isinstance(r.get("title"), str) and r.get("title") else r.get("rule")
        where = f"{title} ({_section_name(r.get('section'))})"
        t.rows.append([num_cell("" if is_missing(speed) else fmt_pct(speed)), Cell(where), Cell(r["message"], "ncu")])
        t.row_classes.append("ok" if r.get("message_type") == "ok" else "")
    return t


def _section_name(section) -> str:
    if not isinstance(section, str):
        return ""
    base = section.split("_")[0]
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", base)


def hot_lines_table(d: Diagnosis) -> Table:
    t = Table(["line", "samples", "main stall reasons", "code"], align="rrll", cls="lines")
    for r in d.hot_lines.to_dict("records"):
        reasons = ", ".join(f"{_reason_label(n)} {fmt_pct(100.0 * v / r['samples'])}" for n, v in r["reasons"])
        t.rows.append([num_cell(str(int(r["line"]))), num_cell(fmt_pct(r["share_pct"])), Cell(reasons),
                       Cell(_code_text(r["code"]), "code")])
        t.row_classes.append("hot" if r["share_pct"] >= HOT_SHARE_PCT else "")
    return t


def _reason_label(reason: str) -> str:
    from ..analyze.stalls import explain

    return explain(reason).label


@dataclass(frozen=True)
class ListingLine:
    line: int
    code: str
    share_pct: float
    hot: bool
    gap_before: bool  # lines are missing between this one and the previous (no instructions there)


def listing(d: Diagnosis) -> list[ListingLine]:
    out, previous = [], None
    for r in d.listing.to_dict("records"):
        line = int(r["line"])
        out.append(ListingLine(line, str(r["code"]).rstrip(), float(r["share_pct"]), r["share_pct"] >= HOT_SHARE_PCT,
                               previous is not None and line > previous + 1))
        previous = line
    return out
