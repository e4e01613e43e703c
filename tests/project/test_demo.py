"""The CI check of the demo: the report pipeline on the committed sample run, checked the way a
reader would: every HTML file parses, every image is embedded, every kernel has a page, the
summary names every kernel. Plus the plumbing around it (`make demo`, `make profile`, the GitHub
Actions workflow) read back from the files that define it."""

from __future__ import annotations

import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
from helpers.paths import REPO, SAMPLE_RUN

SAMPLE = SAMPLE_RUN
REPORT_MODULE = REPO / "profiler" / "cli" / "report.py"
WORKFLOW = REPO / ".github" / "workflows" / "gpu-profile.yml"

# Elements that must be closed explicitly; the rest may omit their end tag (p, li, td, ...).
MUST_CLOSE = {"html", "head", "body", "div", "section", "main", "article", "table", "pre", "ul", "ol", "script",
              "style", "svg", "details", "nav", "header", "footer", "figure", "a"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Checker(HTMLParser):
    """Collects <img> sources and what is wrong with the nesting of the elements that must close."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.images: list[str] = []
        self.problems: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs).get("src") or "")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs).get("src") or "")

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if tag not in self.stack:
            self.problems.append(f"</{tag}> closes nothing (line {self.getpos()[0]})")
            return
        while self.stack:  # implicitly closes optional-end elements (p, li, td ...) on the way
            top = self.stack.pop()
            if top == tag:
                break
            if top in MUST_CLOSE:
                self.problems.append(f"<{top}> not closed before </{tag}> (line {self.getpos()[0]})")

    def close(self):
        super().close()
        self.problems += [f"<{tag}> never closed" for tag in self.stack if tag in MUST_CLOSE]


def run_kernels() -> list[str]:
    """Every kernel the sample run holds, from its bench and kernels tables."""
    names = list(pd.read_parquet(SAMPLE / "bench.parquet")["kernel"])
    names += list(pd.read_parquet(SAMPLE / "kernels.parquet")["kernel_key"].dropna())
    return list(dict.fromkeys(names))


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    """`make demo`'s two commands, run on the sample into a temporary folder."""
    if not REPORT_MODULE.is_file():
        pytest.skip("gemmprof report is not there yet (profiler/cli/report.py)")
    out = tmp_path_factory.mktemp("demo")
    for args in (["report", SAMPLE, "-o", out],
                 ["roofline", SAMPLE, "-o", out / "roofline.png", "--ladder", out / "ladder.png"]):
        result = subprocess.run([sys.executable, "-m", "profiler", *map(str, args)], check=False, capture_output=True, text=True,
                                cwd=REPO, timeout=600)
        assert result.returncode == 0, f"gemmprof {args[0]} failed:\n{result.stdout}\n{result.stderr}"
    return out


def test_every_html_file_parses(demo):
    pages = sorted(demo.rglob("*.html"))
    assert (demo / "index.html") in pages
    for page in pages:
        checker = Checker()
        checker.feed(page.read_text(encoding="utf-8"))
        checker.close()
        assert checker.problems == [], f"{page.name}: {checker.problems[:5]}"


def test_every_image_is_embedded(demo):
    for page in sorted(demo.rglob("*.html")):
        checker = Checker()
        checker.feed(page.read_text(encoding="utf-8"))
        checker.close()
        outside = [src[:60] for src in checker.images if not src.startswith("data:")]
        assert outside == [], f"{page.name} links images instead of embedding them: {outside}"


def test_every_kernel_has_a_page(demo):
    missing = [k for k in run_kernels() if not (demo / f"{k}.html").is_file() or not (demo / f"{k}.md").is_file()]
    assert missing == [], f"no page (.html and .md) for {missing}"


def test_summary_lists_every_kernel(demo):
    summary = (demo / "summary.md").read_text(encoding="utf-8")
    missing = [k for k in run_kernels() if k not in summary and not (k == "cublas" and "cuBLAS" in summary)]
    assert missing == [], f"summary.md does not mention {missing}"


def test_demo_charts_are_written(demo):
    for name in ("roofline.png", "ladder.png"):
        data = (demo / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000, name


# --- the plumbing -----------------------------------------------------------------------------


def make_dry_run(target: str, *assignments: str) -> str:
    result = subprocess.run(["make", "-n", "-s", target, *assignments], check=False, capture_output=True, text=True, cwd=REPO,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.skipif(subprocess.run(["which", "make"], check=False, capture_output=True).returncode != 0, reason="no make")
def test_make_demo_and_profile_commands():
    demo = make_dry_run("demo")  # the sample run as the package finds it: the checkout's own here
    assert f"gemmprof report {SAMPLE_RUN} -o reports/demo" in demo
    assert f"gemmprof roofline {SAMPLE_RUN} -o reports/demo/roofline.png" in demo
    profile = make_dry_run("profile", "RUN_ID=ci-1")
    steps = [line for line in profile.splitlines() if "gemmprof " in line]
    assert [line.split("gemmprof ")[1].split()[0] for line in steps] == ["bench", "profile", "report", "roofline"]
    assert all("ci-1" in line for line in steps)  # one run id for every step
    assert "--kernel all" in steps[1]


def test_workflow_profiles_uploads_summarises_and_compares():
    text = WORKFLOW.read_text()
    for needle in ("self-hosted", "gpu", "make profile", "actions/upload-artifact", "GITHUB_STEP_SUMMARY",
                   "summary.md", "gemmprof compare", "reports/sample-h200", "set -o pipefail"):
        assert needle in text, needle
    assert "\t" not in text  # YAML forbids tabs for indentation
    # the summary and the upload run even when the comparison failed the job
    for step in ("Job summary", "Upload the report"):
        block = text.split(step, 1)[1].split("- name:", 1)[0]
        assert "if: always()" in block, step
