"""Text from the run made safe and readable in each output format: ncu's rule markup
('@section:...@', '@url:...@') parsed into text and links, `code` in prose, Markdown table cells
and link targets."""

from __future__ import annotations

import re
from typing import Any, Callable

from markupsafe import Markup, escape

from ..names import safe_href
from .escape import md_code, md_text


_NCU_LINK = re.compile(r"@(\w+):([^@]*?)@")


def ncu_text(fmt: str) -> Callable[[str], Any]:
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
        return Markup("".join(f"[{md_text(p[1])}]({md_url(p[2])})" if p[0] == "link"
                              else f"*{md_text(p[1])}*" if p[0] == "name" else md_text(p[1]) for p in parts))

    return convert


_BACKTICKS = re.compile(r"`([^`]+)`")


def code_spans(fmt: str) -> Callable[[str], Any]:
    """Plain analysis text, with `code` in backticks shown as code."""
    if fmt == "md":
        return lambda text: Markup("".join(md_code(p) if i % 2 else md_text(p)
                                           for i, p in enumerate(_BACKTICKS.split(str(text)))))

    def convert(text: str) -> Markup:
        parts = _BACKTICKS.split(str(text))  # even: text, odd: code
        return Markup("".join(f"<code>{escape(p)}</code>" if i % 2 else str(escape(p)) for i, p in enumerate(parts)))

    return convert


def md_cell(text: Any) -> Markup:
    """A table cell: plain text escaped; Markdown made here (code, links, status) kept on one line
    with every '|' escaped."""
    if not isinstance(text, Markup):
        return md_text(text)
    return Markup(re.sub(r"(?<!\\)\|", r"\\|", re.sub(r"\s*[\r\n]+\s*", " ", str(text)).strip()))


def md_url(url: str) -> Markup:
    """A link target checked by `safe_href` (else '#'), with what would end it percent-encoded."""
    url = safe_href(url) or "#"
    return Markup(url.replace("(", "%28").replace(")", "%29").replace("<", "%3C").replace(">", "%3E"))


def html_url(url: str) -> str:
    return safe_href(url) or "#"
