"""Text from reports and run.json, escaped for each output it lands in.

Kernel names come from NVTX ranges and ncu, GPU names and commands from run.json: data, never
markup. Each renderer passes such text through the escaper of its format: HTML has Jinja's
autoescape; Markdown (`summary.md` is a CI job summary) and matplotlib (mathtext) are here; the
terminal uses `rich.markup.escape`.
"""

from __future__ import annotations

import hashlib
import re

from markupsafe import Markup


def mpl_text(text) -> str:
    """`text` shown literally by matplotlib: '$' never starts mathtext (an unbalanced or bad
    expression would raise when the figure is drawn)."""
    return str(text).replace("$", r"\$")


def mpl_label(text, width: int = 40) -> str:
    """A kernel name as a chart label: at most `width` characters (a 300-character NVTX name
    would push the legend off the figure), shown literally; a cut name keeps a short hash of the
    whole so that two long names never share a label."""
    text = str(text)
    if len(text) > width:
        text = text[: width - 7] + "…" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:6]
    return mpl_text(text)


# Characters with a meaning anywhere in GitHub-flavoured Markdown inline text ('|' splits table
# cells; '_' only where it can open or close emphasis, not inside a word such as wmma_smem), and
# what makes a block (heading, quote, list, setext underline) at the start of a line.
_MD_SPECIAL = re.compile(r"[\\`*\[\]|~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_MD_LEADING = re.compile(r"^(\s*)(#|>|[-+=]|\d+(?=[.)](?:\s|$)))")
# Raw HTML needs '<'; '&' matters only where it would start an entity.
_MD_HTML = re.compile(r"<|&(?=#?[A-Za-z0-9]+;)")
_NEWLINES = re.compile(r"\s*[\r\n\u2028\u2029\x0b\x0c]+\s*")


def md_text(text) -> Markup:
    """Plain text as one line of Markdown that shows exactly `text`: no raw HTML (`<` and
    entity-like `&` as entities), Markdown punctuation backslash-escaped (no heading, list, link,
    emphasis, code span or table cell break can start inside it), line breaks folded to a space.
    Returns Markup so that it is never escaped twice."""
    if isinstance(text, Markup):
        return text
    one_line = _NEWLINES.sub(" ", str(text))
    escaped = _MD_SPECIAL.sub(lambda m: "\\" + m.group(), one_line)
    leading = _MD_LEADING.match(escaped)
    if leading:  # '1.' / '1)' is escaped at its punctuation, the others before the character
        pad, mark = leading.groups()
        rest = escaped[leading.end():]
        escaped = pad + (mark + "\\" + rest if mark[0].isdigit() else "\\" + mark + rest)
    return Markup(_MD_HTML.sub(lambda m: "&lt;" if m.group() == "<" else "&amp;", escaped))


def md_unentity(text: str) -> str:
    """Undo what HTML autoescaping did to Markdown where it is not needed: quotes and '>' (a
    quote only starts a line through md_text, which writes it as '\\>'); '<' and '&' stay."""
    return text.replace("&#39;", "'").replace("&#34;", '"').replace("&gt;", ">")


def md_code(text) -> Markup:
    """`text` as a Markdown code span: a fence longer than any run of backticks inside it, line
    breaks folded, and '|' escaped (GitHub splits table cells on it even inside code)."""
    text = _NEWLINES.sub(" ", str(text))
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return Markup(f"{fence}{pad}{text.replace('|', chr(92) + '|')}{pad}{fence}")


def md_fence(lines) -> str:
    """A code-block fence that no line of `lines` can close: longer than any run of backticks
    at the start of a line."""
    longest = max((len(m.group(1)) for line in lines for m in [re.match(r"\s*(`+)", line)] if m), default=0)
    return "`" * max(3, longest + 1)


__all__ = ["md_code", "md_fence", "md_text", "md_unentity", "mpl_label", "mpl_text"]
