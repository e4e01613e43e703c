"""The Jinja setup: one environment per output format, with the filters the templates use and the
Markdown tidying after rendering."""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup, escape

from ..analyze.ladder import SAME_POINTS, SAME_RATIO
from ..numbers import fmt_bytes, fmt_count, fmt_num, fmt_pct, fmt_times, fmt_way
from ..names import slug
from .escape import md_code, md_fence, md_text, md_unentity
from .markup import code_spans, html_url, md_cell, md_url, ncu_text
from .page_tables import HOT_SHARE_PCT


TEMPLATES = Path(__file__).resolve().parent / "templates"


FORMATS = {"html": ".html", "md": ".md"}


# Widest code line shown in a Markdown listing (longer lines are cut with an ellipsis).
MD_CODE_WIDTH = 96


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
                       ncu=ncu_text(fmt), prose=code_spans(fmt), slug=slug, md_cell=md_cell, md_code=md_code, heat=_heat,
                       text=md_text if fmt == "md" else escape, url=md_url if fmt == "md" else html_url,
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


def render(template: str, fmt: str, **context) -> str:
    text = environment(fmt).get_template(template).render(**context)
    return _tidy_md(md_unentity(text)) if fmt == "md" else text
