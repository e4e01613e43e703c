"""The report's templates (profiler.render.templating): links show the name and point only where they
may."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from profiler.names import slug
from profiler.render.templating import environment

GFM = MarkdownIt("commonmark").enable("table").enable("strikethrough")

# Printable text: no control characters (CommonMark replaces NUL; others are not names).
text = st.text(st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from("\n\r|`*_[]<>&#!~\\-+=.()$"),
               max_size=60)


def fold(s: str) -> str:
    """What md_text promises to show: the text with each line break (and the space around it)
    as one space."""
    return re.sub(r"\s*[\r\n\u2028\u2029\x0b\x0c]+\s*", " ", s)


class Links(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.hrefs, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.hrefs += [v for k, v in attrs if k == "href"]

    def handle_data(self, data):
        self.text.append(data)


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


@pytest.mark.parametrize("fmt", ["html", "md"])
def test_ncu_rule_links_only_to_the_web(fmt):
    convert = environment(fmt).filters["ncu"]
    out = str(convert("See @url:bad:javascript:alert(1)@, @url:ok:https://docs.nvidia.com/x@ and @section:S:Shown@."))
    assert "https://docs.nvidia.com/x" in out and "bad" in out and "Shown" in out
    if fmt == "html":
        assert re.findall(r'href="([^"]*)"', out) == ["https://docs.nvidia.com/x"]
    else:
        assert re.findall(r"(?<!\\)\]\(([^)]*)\)", out) == ["https://docs.nvidia.com/x"]
