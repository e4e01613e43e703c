"""Markdown table cells (profiler.render.markup) stay one cell whatever the text."""

from __future__ import annotations

import html
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt


GFM = MarkdownIt("commonmark").enable("table").enable("strikethrough")

# Printable text: no control characters (CommonMark replaces NUL; others are not names).
text = st.text(st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from("\n\r|`*_[]<>&#!~\\-+=.()$"),
               max_size=60)


def fold(s: str) -> str:
    """What md_text promises to show: the text with each line break (and the space around it)
    as one space."""
    return re.sub(r"\s*[\r\n\u2028\u2029\x0b\x0c]+\s*", " ", s)


@given(st.lists(text, min_size=1, max_size=4))
@settings(max_examples=200)
def test_md_table_cells_stay_cells(cells):
    from profiler.render.markup import md_cell

    row = "| " + " | ".join(md_cell(c) for c in cells) + " |"
    table = "| " + " | ".join("h" for _ in cells) + " |\n|" + "---|" * len(cells) + "\n" + row + "\n"
    out = GFM.render(table)
    got = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td>(.*?)</td>", out, re.S)]
    assert got == [fold(c).strip() for c in cells]
