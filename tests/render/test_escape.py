"""profiler.render.escape and the report's templates: any name shows literally, as text, in
Markdown (checked with a CommonMark parser with GitHub's tables), HTML and matplotlib."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from profiler.render.escape import md_code, md_fence, md_text, mpl_label, mpl_text

GFM = MarkdownIt("commonmark").enable("table").enable("strikethrough")
# Printable text: no control characters (CommonMark replaces NUL; others are not names).
text = st.text(st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from("\n\r|`*_[]<>&#!~\\-+=.()$"),
               max_size=60)
NASTY = ["# heading", "1. item", "- item", "> quote", "a | b", "<script>alert(1)</script>", "[x](javascript:y)",
         "`code`", "**bold**", "__sync__", "foo[abi:cxx11]", "a\n# b\n|c|", "&lt;", "&amp;", "\\", "x\\", "~~s~~",
         "===", "---", "+ x", "![i](x)", "<http://evil>", "a_b_c", "_x_", "*"]


def fold(s: str) -> str:
    """What md_text promises to show: the text with each line break (and the space around it)
    as one space."""
    return re.sub(r"\s*[\r\n\u2028\u2029\x0b\x0c]+\s*", " ", s)


def rendered_text(markdown: str) -> str:
    out = GFM.render(markdown)
    assert "<a " not in out and "<img" not in out and "<script" not in out
    return html.unescape(re.sub(r"<[^>]+>", "", out)).strip()


@given(text)
@settings(max_examples=400)
def test_md_text_shows_exactly_the_text(s):
    assert rendered_text(f"x {md_text(s)} x") == f"x {fold(s)} x".strip()


@pytest.mark.parametrize("s", NASTY)
def test_md_text_at_the_start_of_a_line(s):
    out = GFM.render(f"{md_text(s)}\n")
    assert out.startswith("<p>") and out.count("<p>") == 1, out
    assert html.unescape(re.sub(r"<[^>]+>", "", out)).strip() == fold(s).strip()


@given(text)
def test_md_code_is_one_code_span(s):
    out = GFM.render(f"x {md_code(s)} x")
    spans = re.findall(r"<code>(.*?)</code>", out, re.S)
    assert len(spans) == 1 or not fold(s).strip(" "), out


def test_md_fence_outlasts_the_code():
    lines = ["int x;", "```", "  ````` y"]
    fence = md_fence(lines)
    assert len(fence) == 6
    out = GFM.render(fence + "\n" + "\n".join(lines) + "\n" + fence + "\n")
    assert out.count("<pre>") == 1 and "y" in out


@pytest.mark.parametrize("name", [r"$\frac{$", "$x$", "a$b", "$$", "\\$", "cost: $5 and $6", "x" * 300])
def test_chart_labels_never_parse_as_mathtext(name):
    from matplotlib.figure import Figure

    fig = Figure()
    ax = fig.add_subplot()
    ax.set_title(mpl_text(name))
    ax.plot([0, 1], [0, 1], label=mpl_label(name))
    ax.legend()
    fig.canvas.draw()  # mathtext would raise on a bad expression here
    assert ax.get_title() == mpl_text(name)
    from matplotlib.text import Text

    shown = Text(text=mpl_text(name))._preprocess_math(mpl_text(name))
    assert shown == (name, False)
