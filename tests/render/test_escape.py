"""profiler.render.escape and the report's templates: any name shows literally, as text, in
Markdown (checked with a CommonMark parser with GitHub's tables), HTML and matplotlib."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from profiler.names import slug
from profiler.render.escape import md_code, md_fence, md_text, mpl_label, mpl_text
from profiler.render.templating import environment

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


@given(st.lists(text, min_size=1, max_size=4))
@settings(max_examples=200)
def test_md_table_cells_stay_cells(cells):
    from profiler.render.markup import md_cell

    row = "| " + " | ".join(md_cell(c) for c in cells) + " |"
    table = "| " + " | ".join("h" for _ in cells) + " |\n|" + "---|" * len(cells) + "\n" + row + "\n"
    out = GFM.render(table)
    got = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td>(.*?)</td>", out, re.S)]
    assert got == [fold(c).strip() for c in cells]


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


@given(text)
@settings(max_examples=200)
def test_report_links_show_the_name_and_point_at_its_slug(name):
    if not name:
        return
    md = environment("md").from_string('{% import "md.j2" as f %}{{ f.link(name, name) }}').render(name=name)
    out = GFM.render(md)
    hrefs = re.findall(r'href="([^"]*)"', out)
    assert hrefs == [f"{slug(name)}.md"], out
    assert html.unescape(re.sub(r"<[^>]+>", "", out)).strip() == fold(name).strip()

    page = environment("html").from_string('{% import "html.j2" as f %}{{ f.link(name, name) }}').render(name=name)
    links = Links()
    links.feed(page)
    assert links.hrefs == [f"{slug(name)}.html"] and "".join(links.text) == name


class Links(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.hrefs, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.hrefs += [v for k, v in attrs if k == "href"]

    def handle_data(self, data):
        self.text.append(data)


@pytest.mark.parametrize("fmt", ["html", "md"])
def test_ncu_rule_links_only_to_the_web(fmt):
    convert = environment(fmt).filters["ncu"]
    out = str(convert("See @url:bad:javascript:alert(1)@, @url:ok:https://docs.nvidia.com/x@ and @section:S:Shown@."))
    assert "https://docs.nvidia.com/x" in out and "bad" in out and "Shown" in out
    if fmt == "html":
        assert re.findall(r'href="([^"]*)"', out) == ["https://docs.nvidia.com/x"]
    else:
        assert re.findall(r"(?<!\\)\]\(([^)]*)\)", out) == ["https://docs.nvidia.com/x"]


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
