"""profiler.names: the one door from names to file names and links. Property tests over any
text: the slug is always a safe, bounded, flat file name; different names never share one."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from profiler.errors import GemmprofError
from profiler.names import MAX_SLUG, RESERVED, check_run_id, is_plain, safe_href, slug

SAFE = re.compile(r"[A-Za-z0-9_.+-]+")
names = st.one_of(st.text(), st.text(alphabet="./\\:-_+ab\x00", max_size=30), st.text(min_size=90, max_size=400))


def assert_safe(s: str) -> None:
    assert SAFE.fullmatch(s), s
    assert len(s) <= MAX_SLUG
    assert s not in (".", "..") and not s.startswith(".")
    assert s.lower() not in RESERVED


@given(names)
@settings(max_examples=500)
def test_slug_is_always_a_safe_flat_name(name):
    s = slug(name)
    assert_safe(s)
    assert safe_href(s + ".html") == s + ".html"  # and always a relative link to a page beside it


@given(st.lists(names, min_size=2, max_size=40, unique=True))
@settings(max_examples=300)
def test_slug_is_injective(batch):
    assert len({slug(n) for n in batch}) == len(batch)


@given(st.from_regex(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,40}", fullmatch=True))
def test_plain_names_are_kept(name):
    if name.lower() not in RESERVED:
        assert slug(name) == name and is_plain(name)


@pytest.mark.parametrize("name", ["../../x", "/etc/passwd", "..", ".", ".hidden", "a/b", "a\\b", "index", "INDEX",
                                  "summary", "", "x" * 300, "javascript:alert(1)//", "k+1"])
def test_hostile_names_get_a_hashed_slug(name):
    s = slug(name)
    assert_safe(s)
    assert "+" in s and s != name


def test_a_plain_name_never_equals_a_hashed_slug():
    # '+' only ever appears in hashed slugs, so a crafted plain name cannot take another's file
    hashed = slug("a/b")
    assert not is_plain(hashed) and slug(hashed) != hashed


@pytest.mark.parametrize("run_id", ["../../x", "/abs", ".hidden", "a/b", "r" * 300, "..", "", "x y"])
def test_run_ids_that_leave_out_are_refused(run_id):
    with pytest.raises(GemmprofError, match="--run-id"):
        check_run_id(run_id)


def test_plain_run_ids_pass():
    assert check_run_id("20261122-042216-h200") == "20261122-042216-h200"


@pytest.mark.parametrize("href", ["javascript:alert(1)", "JavaScript:alert(1)", " javascript:x", "java\tscript:x",
                                  "data:text/html,x", "file:///etc/passwd", "vbscript:x", "//evil.com/x", "\\\\evil",
                                  "/abs/page.html", "../up.html", "a/../../x", "", "\x01javascript:x"])
def test_unsafe_link_targets_are_refused(href):
    assert safe_href(href) is None


@pytest.mark.parametrize("href", ["https://docs.nvidia.com/nsight-compute/x.html#roofline", "http://example.com",
                                  "naive.html", "index.html#climb", "#stalls", "a+0123abcd.md"])
def test_safe_link_targets_pass(href):
    assert safe_href(href) == href


@given(st.text())
def test_safe_href_never_passes_a_scheme_other_than_http(text):
    href = safe_href(text)
    if href is not None:
        scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", href)
        assert scheme is None or scheme.group(1).lower() in ("http", "https")
        assert not href.startswith(("//", "/", "\\"))
