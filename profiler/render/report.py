"""The diagnostic report: a `RunDiagnosis` -> Markdown and self-contained HTML pages.

One template set (`templates/kernel.j2`, `templates/index.j2`) holds the prose and the page
structure for both formats; `templates/md.j2` and `templates/html.j2` implement the same small
set of macros (headings, tables, call-outs, code listings, ...) for each. This module turns a
diagnosis into view models (tables of formatted cells) and renders them; it returns strings and
never writes files. Figures are embedded as data: URIs, so an HTML page stands alone.
"""

from __future__ import annotations

import base64
import functools
import io
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import jinja2
import pandas as pd
from markupsafe import Markup, escape

from ..analyze.diagnosis import Diagnosis, RunDiagnosis, diagnosis_records
from ..analyze.gemm_shape import FROM_NVTX, FROM_OPTION, UNKNOWN_SHAPE
from ..analyze.ladder import SAME_POINTS, SAME_RATIO
from ..analyze.memory import launch_min_bytes, writes_below_minimum
from ..analyze.occupancy import LIMITS
from ..analyze.prose import fmt_bytes, fmt_count, fmt_num, fmt_pct, fmt_times, fmt_way
from ..analyze.values import flag
from ..analyze.verdict import tensor_peak_name, uses_tensor_cores
from ..extract.metrics import describe
from ..manifest import REFERENCES
from ..tiers import CONTEXT, TIMED_STATUSES
from ..names import safe_href, slug
from .escape import md_code, md_fence, md_text, md_unentity

# Version of diagnosis.json's layout; readers check it.
DIAGNOSIS_SCHEMA_VERSION = 1

TEMPLATES = Path(__file__).resolve().parent / "templates"
FORMATS = {"html": ".html", "md": ".md"}
# A source line with at least this share of the samples is highlighted as hot.
HOT_SHARE_PCT = 5.0
# PNG resolution of embedded figures (shown at 100 dpi size: crisp on high-density screens).
FIGURE_DPI = 144
# Widest code line shown in a Markdown listing (longer lines are cut with an ellipsis).
MD_CODE_WIDTH = 96


# ---------------------------------------------------------------------------------------------
# View models


@dataclass(frozen=True)
class Cell:
    """One table cell. kind: '' (text), 'num' (right-aligned), 'code', 'status', 'link' (to the
    page `href`, the extension added per format), 'better'/'worse' (a change, coloured)."""

    text: str
    kind: str = ""
    href: str = ""


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


def _num_cell(text: str) -> Cell:
    return Cell(text, "num")


def status_cell(status: str | None, note: str = "") -> Cell:
    return Cell(status or "n/a", "status", note)


# ---------------------------------------------------------------------------------------------
# Per kernel


def kernel_view(d: Diagnosis, run: RunDiagnosis) -> dict[str, Any]:
    """Everything a kernel page shows, formatted (format-neutral)."""
    k = d.launch or {}
    shape = "x".join(map(str, d.own_shape)) if d.own_shape else "n/a"
    source = k.get("shape_source")
    shape_cell = Cell(shape + (f" (from the {source})" if d.own_shape and source in (FROM_OPTION, FROM_NVTX) else ""))
    if d.profiled and not d.own_shape:
        shape_cell = Cell("unknown (pass --mnk M N K)")
    facts = [
        ("verification", status_cell(d.status, d.status_note)),
        ("shape (M x N x K)", shape_cell),
        ("GFLOP/s", Cell(fmt_num(d.gflops) + (" (ncu)" if d.gflops_source == "ncu" else ""))),
        ("% of cuBLAS", Cell(fmt_pct(d.pct_cublas) + (" (ncu)" if d.gflops_source == "ncu" else ""))),
        ("time", Cell(f"{fmt_num(d.time_ms)} ms" if not _nan(d.time_ms) else "n/a")),
    ]
    if d.own_shape and d.tier is None and not d.is_reference and not _nan(k.get("duration_ns")):
        # a kernel no manifest knows: the GEMM's own FLOPs over its time, whatever it executed
        M, N, K = d.own_shape
        facts.append(("GEMM GFLOP/s (2MNK / time)", Cell(fmt_num(2.0 * M * N * K / float(k["duration_ns"])))))
    if not _nan(d.tensor_gflops_executed):  # a 3xTF32 rung: the headline is the GEMM's rate, this what ran
        facts.append(("tensor FLOP/s executed", Cell(
            f"{fmt_num(d.tensor_gflops_executed / 1e3)} T ({fmt_num(d.mmas_per_product)} MMAs per product)")))
    if d.utilisation:
        if uses_tensor_cores(d.utilisation):  # its FMA pipe share says nothing
            facts.append(("tensor cores", Cell(f"{fmt_pct(d.utilisation['tensor'])} of {tensor_peak_name(d.utilisation)} peak")))
        else:
            facts.append(("FP32 pipe", Cell(fmt_pct(d.utilisation["fp32"]) + " of peak")))
    view: dict[str, Any] = {
        "d": d, "facts": facts, "verdict": d.verdict, "shape": shape,
        "changes": _changes_table(d), "unchanged": _unchanged(d), "versus": _versus_table(d),
        "gflops_change": _gflops_change(d),
        "stalls": _stalls_table(d), "conflicts": _conflicts_table(d), "conflict_lines": _conflict_lines_table(d),
        "occupancy": _occupancy_view(d), "traffic": _traffic_table(d), "traffic_notes": _traffic_notes(d),
        "shape_unknown": UNKNOWN_SHAPE if d.profiled and not d.own_shape else None,
        "mix": _mix_table(d), "math_op": (d.mix or {}).get("math_op", "FFMA"), "coalescing": d.coalescing,
        "rules": _rules_table(d), "hot_lines": _hot_lines_table(d), "listing": _listing(d),
        "gpu": k.get("gpu") or run.meta.get("environment", {}).get("gpu_name"),
        "kernel_function": k.get("function"),
    }
    return view


def _nan(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _changes_table(d: Diagnosis) -> Table:
    t = Table(["what", "change"], align="ll", cls="changes")
    if d.changes.empty:
        return t
    for r in d.changes[d.changes["changed"]].to_dict("records"):
        kind = "better" if r["better"] is True else "worse" if r["better"] is False else ""
        t.rows.append([Cell(r["label"]), Cell(r["change"], kind)])
    return t


def _versus_table(d: Diagnosis) -> Table:
    t = Table(["", d.name, d.versus_name or "reference"], align="lrr", cls="versus")
    for r in d.versus.to_dict("records"):
        kind = "better" if r["better"] is True else "worse" if r["better"] is False else ""
        t.rows.append([Cell(r["label"]), Cell(r["kernel"], kind or "num"), _num_cell(r["reference"])])
    return t


def _unchanged(d: Diagnosis) -> list[str]:
    if d.changes.empty:
        return []
    return [f"{r['label']} {r['change'].replace(' (same)', '')}" for r in d.changes[~d.changes["changed"]].to_dict("records")]


def _gflops_change(d: Diagnosis) -> str | None:
    if d.changes.empty:
        return None
    row = d.changes[d.changes["quantity"] == "gflops"]
    return None if row.empty else str(row["change"].iloc[0])


def _stalls_table(d: Diagnosis) -> Table:
    t = Table(["stall reason", "cycles per instruction", "share of cycles", "what it means", "usual cure"],
              align="lrrll", cls="stalls")
    for r in d.stalls.to_dict("records"):
        t.rows.append([Cell(r["label"]), _num_cell(fmt_num(r["cycles_per_inst"])), _num_cell(fmt_pct(r["share_pct"])),
                       Cell(r["meaning"]), Cell(r["cure"])])
        t.row_classes.append("benign" if r["benign"] else "")
    return t


_STATUS_TEXT = {"none": "no conflicts", "conflicts": "bank conflicts",
                "unexplained": "extra wavefronts, not from the addresses"}


def _conflicts_table(d: Diagnosis) -> Table:
    t = Table(["access", "wavefronts", "conflict replays", "% of wavefronts", "n-way (worst instruction)",
               "average (W / (W - C))", "reading"], align="lrrrrrl", cls="conflicts")
    for r in d.conflicts.to_dict("records"):
        worst = fmt_way(r["worst_n_way"]) if not _nan(r["worst_n_way"]) else "n/a"
        t.rows.append([Cell(f"shared {r['kind']}"), _num_cell(fmt_count(r["wavefronts"])),
                       _num_cell(fmt_count(r["conflicts"])), _num_cell(fmt_pct(r["excess_pct"])),
                       _num_cell(worst), _num_cell(f"{r['n_way_avg']:.2f}x"), Cell(_STATUS_TEXT[r["status"]])])
        t.row_classes.append("flag" if r["status"] == "conflicts" and r["excess_pct"] >= 1 else "")
    return t


def _conflict_lines_table(d: Diagnosis) -> Table:
    t = Table(["line", "code", "wavefronts", "conflict-free", "n-way", "share of excess"], align="llrrrr",
              cls="lines")
    for r in d.conflict_lines.to_dict("records"):
        line = "" if _nan(r["line"]) or pd.isna(r["line"]) else str(int(r["line"]))
        t.rows.append([_num_cell(line or "?"), Cell(_code_text(r["code"]), "code"), _num_cell(fmt_count(r["wavefronts"])),
                       _num_cell(fmt_count(r["ideal"])), _num_cell(fmt_way(r["n_way"])),
                       _num_cell(fmt_pct(r["share_pct"]))])
    return t


def _code_text(code) -> str:
    return "(no line information)" if code is None or (isinstance(code, float) and math.isnan(code)) else str(code).strip()


def _occupancy_view(d: Diagnosis) -> dict | None:
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
        if _nan(value):
            continue
        t.rows.append([Cell(name), _num_cell(fmt_num(value)), Cell(because[name])])
        t.row_classes.append("flag" if name in limiter.split(", ") and o["theoretical_pct"] < 100 else "")
    unit, meaning = describe("achieved_occupancy_pct")
    return {"o": o, "table": t, "limited": bool(limiter) and o["theoretical_pct"] < 100,
            "achieved": fmt_pct(o["achieved_pct"]), "theoretical": fmt_pct(o["theoretical_pct"]),
            "warps_per_scheduler": fmt_num(o["warps_per_scheduler"], 2), "limiter": limiter,
            "blocks": fmt_num(o["blocks_per_sm"]), "registers_next": None if _nan(o["registers_for_next_block"])
            else fmt_num(o["registers_for_next_block"]), "gap": o["achieved_gap"], "meaning": meaning}


def _traffic_table(d: Diagnosis) -> Table:
    t = Table(["level", "bytes moved", "GEMM minimum", "times fetched"], align="lrrr", cls="traffic")
    for r in d.traffic.to_dict("records"):
        t.rows.append([Cell(r["level"]), _num_cell(fmt_bytes(r["bytes"])), _num_cell(fmt_bytes(r["minimum"])),
                       _num_cell(fmt_times(r["times"]))])
    return t


def _traffic_notes(d: Diagnosis) -> dict:
    least = launch_min_bytes(d.launch) if d.launch else None
    if least is None:
        return {}
    return {"read": fmt_bytes(least["read"]), "write": fmt_bytes(least["write"]), "total": fmt_bytes(least["total"]),
            "low_writes": writes_below_minimum(d.traffic)}


_MIX_ROWS = (
    ("global_load", "global loads (LDG)"),
    ("shared_load", "shared loads (LDS)"),
    ("shared_store", "shared stores (STS)"),
    ("async_copy", "async copies (LDGSTS)"),
    ("global_store", "global stores (STG)"),
    ("barrier", "barriers (BAR)"),
)


def _mix_table(d: Diagnosis) -> Table:
    """Instructions per math instruction: per FFMA, or per MMA for a tensor-core kernel."""
    m = d.mix
    op = (m or {}).get("math_op", "FFMA")
    t = Table(["warp instructions", "executed", f"per {op}"], align="lrr", cls="mix")
    if not m or not m.get("math"):
        return t
    t.rows.append([Cell("MMA (tensor cores)" if op == "MMA" else "FFMA"), _num_cell(fmt_count(m["math"])), _num_cell("1")])
    for cls, label in _MIX_ROWS:
        if m.get(cls, 0) > 0:
            t.rows.append([Cell(label), _num_cell(fmt_count(m[cls])), _num_cell(fmt_num(m[f"{cls}_per_math"]))])
    t.rows.append([Cell("all instructions"), _num_cell(fmt_count(m["total"])),
                   _num_cell(fmt_num(m["total"] / m["math"]))])
    return t


def _rules_table(d: Diagnosis) -> Table:
    t = Table(["est. speedup", "rule", "advice"], align="rll", cls="rules")
    for r in d.rules.to_dict("records"):
        speed = r.get("estimated_speedup_pct")
        title = r.get("title") if isinstance(r.get("title"), str) and r.get("title") else r.get("rule")
        where = f"{title} ({_section_name(r.get('section'))})"
        t.rows.append([_num_cell("" if _nan(speed) else fmt_pct(speed)), Cell(where), Cell(r["message"], "ncu")])
        t.row_classes.append("ok" if r.get("message_type") == "ok" else "")
    return t


def _section_name(section) -> str:
    if not isinstance(section, str):
        return ""
    base = section.split("_")[0]
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", base)


def _hot_lines_table(d: Diagnosis) -> Table:
    t = Table(["line", "samples", "main stall reasons", "code"], align="rrll", cls="lines")
    for r in d.hot_lines.to_dict("records"):
        reasons = ", ".join(f"{_reason_label(n)} {fmt_pct(100.0 * v / r['samples'])}" for n, v in r["reasons"])
        t.rows.append([_num_cell(str(int(r["line"]))), _num_cell(fmt_pct(r["share_pct"])), Cell(reasons),
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


def _listing(d: Diagnosis) -> list[ListingLine]:
    out, previous = [], None
    for r in d.listing.to_dict("records"):
        line = int(r["line"])
        out.append(ListingLine(line, str(r["code"]).rstrip(), float(r["share_pct"]), r["share_pct"] >= HOT_SHARE_PCT,
                               previous is not None and line > previous + 1))
        previous = line
    return out


# ---------------------------------------------------------------------------------------------
# Run index


def index_view(run: RunDiagnosis) -> dict[str, Any]:
    env = run.meta.get("environment", {}) or {}
    shape = "x".join(map(str, run.shape)) if run.shape else "n/a"
    summary = Table(["kernel", "GFLOP/s", "% cuBLAS", "bound by", "the problem", "verification"], align="lrrlll",
                    cls="summary")
    for d in run.kernels:
        ncu = " (ncu)" if d.gflops_source == "ncu" else ""
        gflops = fmt_num(d.gflops) + ncu if not _nan(d.gflops) else "n/a"
        pct = fmt_pct(d.pct_cublas) + (ncu if not _nan(d.pct_cublas) else "")
        summary.rows.append([
            Cell(d.name, "link", d.name), _num_cell(gflops), _num_cell(pct),
            Cell(d.verdict.label if d.verdict else "not profiled"), Cell(d.verdict.problem if d.verdict else ""),
            status_cell(d.status, d.status_note),
        ])
        summary.row_classes.append("top" if d.is_reference else "")
    shapes = list(dict.fromkeys(run.sizes["shape"])) if not run.sizes.empty else []
    sizes = Table(["kernel", *[f"{s} GFLOP/s" for s in shapes]], align="l" + "r" * len(shapes), cls="sizes")
    for name in dict.fromkeys(run.sizes["kernel"]) if shapes else []:
        mine = run.sizes[run.sizes["kernel"] == name].set_index("shape")
        cells = [Cell(name, "link", name) if any(k.name == name for k in run.kernels) else Cell(name)]
        for s in shapes:
            if s not in mine.index:
                cells.append(_num_cell(""))
                continue
            r = mine.loc[s]
            r = r.iloc[0] if isinstance(r, pd.DataFrame) else r
            if r["status"] in TIMED_STATUSES and not _nan(r["gflops"]):
                text = fmt_num(r["gflops"]) + ("*" if flag(r.get("throttled")) else "")
                text += " (context)" if r["status"] == CONTEXT else ""
                if name not in REFERENCES and not _nan(r["pct_cublas"]):
                    text += f" ({fmt_pct(r['pct_cublas'])})"
                cells.append(_num_cell(text))
            else:
                cells.append(Cell(str(r["status"]), "status"))
        sizes.rows.append(cells)
    climbs = []
    for d in run.kernels:
        change = _gflops_change(d)
        if d.predecessor and change:
            climbs.append((d.predecessor, d.name, change,
                           f"{d.verdict.label} ({d.verdict.problem})" if d.verdict else None))
    return {
        "run": run, "summary": summary, "sizes": sizes, "shape": shape, "env": env, "meta": {"created": None, "command": None, **run.meta},  # the template asks for both
        "gpu": env.get("gpu_name"), "climbs": climbs,
        "from_bench": any(d.gflops_source == "bench" for d in run.kernels),
        "profiled": sum(1 for d in run.kernels if d.profiled),
    }


# ---------------------------------------------------------------------------------------------
# Figures


def figure_data_uri(fig) -> str:
    """A matplotlib Figure as a PNG data: URI."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=FIGURE_DPI, bbox_inches="tight", facecolor="white")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def kernel_figures(d: Diagnosis) -> dict[str, Any]:
    """The small figures of a kernel page (stalls, traffic), as Figures."""
    from . import kernel_figures as kf

    figures = {}
    name = d.name if len(d.name) <= 60 else d.name[:59] + "…"  # a title, not the whole NVTX range
    if not d.stalls.empty:
        figures["stalls"] = kf.stall_figure(d.stalls, f"{name}: where a warp's cycles go")
    levels = d.traffic[d.traffic["level"].isin(["DRAM", "L2", "L1"])] if not d.traffic.empty else d.traffic
    if not levels.empty:
        figures["traffic"] = kf.traffic_figure(levels, f"{name}: bytes moved against the GEMM minimum")
    return figures


def index_figures(kernels: pd.DataFrame | None, bench: pd.DataFrame | None) -> tuple[dict[str, Any], list[str]]:
    """The roofline and the ladder charts (one per precision tier) from `profiler.render.charts`, where that module exists
    and the tables allow; and a warning for each chart that could not be drawn."""
    try:
        from . import charts
    except ImportError:
        return {}, []
    figures, problems = {}, []
    drawings = [("roofline", lambda: charts.roofline_figure(kernels), kernels)]
    if bench is not None and not bench.empty:  # one ladder per precision tier: "ladder", "ladder-fp16"
        drawings += [("ladder" if tier == "fp32" else f"ladder-{tier}",
                      lambda tier=tier: charts.ladder_figure(bench, tier=tier), bench) for tier in charts.bench_tiers(bench)]
    for name, draw, table in drawings:
        if table is None or table.empty:
            continue
        try:
            figures[name] = draw()
        except Exception as exc:  # a chart must not take the report down with it
            problems.append(f"the {name} chart could not be drawn: {exc}")
    return figures, problems


# ---------------------------------------------------------------------------------------------
# Rendering


_NCU_LINK = re.compile(r"@(\w+):([^@]*?)@")


def _ncu_text(fmt: str) -> Callable[[str], Any]:
    """ncu's rule markup ('@section:Name:Shown name@', '@url:Text:https://...@') as text and links."""

    def convert(text: str) -> Any:
        text = "" if text is None else str(text)
        parts, last = [], 0
        for m in _NCU_LINK.finditer(text):
            parts.append(("text", text[last:m.start()]))
            kind, rest = m.group(1), m.group(2)
            if kind == "url" and ":" in rest:
                label, url = rest.split(":", 1)
                href = safe_href(url)  # a rule message is data: only web links become links
                parts.append(("link", label, href) if href else ("text", label))
            else:
                parts.append(("name", rest.split(":", 1)[-1]))
            last = m.end()
        parts.append(("text", text[last:]))
        if fmt == "html":
            html = ""
            for p in parts:
                if p[0] == "link":
                    html += f'<a href="{escape(p[2])}">{escape(p[1])}</a>'
                elif p[0] == "name":
                    html += f"<em>{escape(p[1])}</em>"
                else:
                    html += str(escape(p[1]))
            return Markup(html)
        return Markup("".join(f"[{md_text(p[1])}]({_md_url(p[2])})" if p[0] == "link"
                              else f"*{md_text(p[1])}*" if p[0] == "name" else md_text(p[1]) for p in parts))

    return convert


_BACKTICKS = re.compile(r"`([^`]+)`")


def _prose(fmt: str) -> Callable[[str], Any]:
    """Plain analysis text, with `code` in backticks shown as code."""
    if fmt == "md":
        return lambda text: Markup("".join(md_code(p) if i % 2 else md_text(p)
                                           for i, p in enumerate(_BACKTICKS.split(str(text)))))

    def convert(text: str) -> Markup:
        parts = _BACKTICKS.split(str(text))  # even: text, odd: code
        return Markup("".join(f"<code>{escape(p)}</code>" if i % 2 else str(escape(p)) for i, p in enumerate(parts)))

    return convert


def _md_cell(text: Any) -> Markup:
    """A table cell: plain text escaped; Markdown made here (code, links, status) kept on one line
    with every '|' escaped."""
    if not isinstance(text, Markup):
        return md_text(text)
    return Markup(re.sub(r"(?<!\\)\|", r"\\|", re.sub(r"\s*[\r\n]+\s*", " ", str(text)).strip()))


def _md_url(url: str) -> Markup:
    """A link target checked by `safe_href` (else '#'), with what would end it percent-encoded."""
    url = safe_href(url) or "#"
    return Markup(url.replace("(", "%28").replace(")", "%29").replace("<", "%3C").replace(">", "%3E"))


def _html_url(url: str) -> str:
    return safe_href(url) or "#"


def _md_finalize(value: Any) -> Any:
    """Every {{ value }} of a Markdown template: text from the run is escaped for Markdown;
    what the macros and filters built (Markup) is kept."""
    return value if hasattr(value, "__html__") else md_text(value)


def _heat(share: float) -> str:
    alpha = 0.0 if share < 0.05 else min(0.55, 0.04 + 0.5 * math.sqrt(share / 100.0))
    return f"rgba(213, 94, 0, {alpha:.3f})"


@functools.lru_cache(maxsize=None)
def environment(fmt: str) -> jinja2.Environment:
    """The Jinja environment of one output format ('html' or 'md')."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose from {list(FORMATS)}")
    # Both formats autoescape: HTML through markupsafe, Markdown through `_md_finalize` (md_text).
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        finalize=_md_finalize if fmt == "md" else None,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.globals.update(fmt=fmt, ext=FORMATS[fmt], HOT_SHARE_PCT=HOT_SHARE_PCT, MD_CODE_WIDTH=MD_CODE_WIDTH,
                       SAME_PCT=100 * SAME_RATIO, SAME_POINTS=SAME_POINTS)
    env.filters.update(num=fmt_num, pct=fmt_pct, bytes=fmt_bytes, times=fmt_times, way=fmt_way, compact=fmt_count,
                       ncu=_ncu_text(fmt), prose=_prose(fmt), slug=slug, md_cell=_md_cell, md_code=md_code, heat=_heat,
                       text=md_text if fmt == "md" else escape, url=_md_url if fmt == "md" else _html_url,
                       verbatim=Markup, md_fence=md_fence)
    return env


def _tidy_md(text: str) -> str:
    out, blank, fenced = [], 0, False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not line.strip() and not fenced:
            blank += 1
            if blank > 1:
                continue
        else:
            blank = 0
        out.append(line.rstrip() if not fenced else line)
    return "\n".join(out).strip() + "\n"


def _render(template: str, fmt: str, **context) -> str:
    text = environment(fmt).get_template(template).render(**context)
    return _tidy_md(md_unentity(text)) if fmt == "md" else text


def render_kernel(d: Diagnosis, run: RunDiagnosis, fmt: str, figures: dict[str, str] | None = None) -> str:
    """A kernel's page. `figures` maps 'stalls'/'traffic' to image URIs (HTML only)."""
    view = kernel_view(d, run)
    body = _render("kernel.j2", fmt, v=view, run=run, figures=figures or {})
    if fmt == "md":
        return body
    return _render("page.html.j2", "html", title=f"{d.name}: gemmprof diagnosis", body=Markup(body))


def render_index(run: RunDiagnosis, fmt: str, charts: dict[str, str] | None = None,
                 warnings: list[str] | None = None) -> str:
    """The run index: index.html (fmt 'html') or summary.md (fmt 'md', fits a CI job summary)."""
    view = index_view(run)
    body = _render("index.j2", fmt, v=view, charts=charts or {}, warnings=[*run.warnings, *(warnings or [])])
    if fmt == "md":
        return body
    gpu = view["gpu"] or "GPU"
    return _render("page.html.j2", "html", title=f"gemmprof report: {gpu}, {view['shape']}", body=Markup(body))


def report_files(run: RunDiagnosis, kernels: pd.DataFrame | None = None, bench: pd.DataFrame | None = None
                 ) -> Iterator[tuple[str, str]]:
    """(file name, content) of every file of the report, kernel pages first, then index.html and
    summary.md. `kernels` and `bench` are the run's tables, for the index charts."""
    for d in run.kernels:
        figures = {name: _uri_and_close(fig) for name, fig in kernel_figures(d).items()}
        yield f"{slug(d.name)}.html", render_kernel(d, run, "html", figures)
        yield f"{slug(d.name)}.md", render_kernel(d, run, "md")
    charts, problems = index_figures(kernels, bench)
    uris = {name: _uri_and_close(fig) for name, fig in charts.items()}
    yield "index.html", render_index(run, "html", uris, problems)
    yield "summary.md", render_index(run, "md", warnings=problems)
    yield "diagnosis.json", diagnosis_json(run)


def diagnosis_json(run: RunDiagnosis) -> str:
    """`diagnosis.json`: the run's verdicts as plain records (`diagnosis.diagnosis_records`), for CI
    and scripts; the shape and schema version on top."""
    return json.dumps({"schema_version": DIAGNOSIS_SCHEMA_VERSION, "shape": list(run.shape) if run.shape else None,
                       "kernels": diagnosis_records(run)}, indent=2, allow_nan=False) + "\n"


def _uri_and_close(fig) -> str:
    uri = figure_data_uri(fig)
    fig.clear()
    return uri


__all__ = [
    "Cell", "Table", "environment", "figure_data_uri", "index_figures", "index_view", "kernel_figures",
    "kernel_view", "render_index", "render_kernel", "report_files", "diagnosis_json",
]
