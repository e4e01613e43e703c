"""`gemmprof report` on the real sample run: every page, self-contained, the summary for CI, the
facts the data shows; wrong input gives one line, never a traceback. Also the kernel figures."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

from helpers.paths import SAMPLE_RUN
from profiler.cli.report import report
from profiler.catalogue.manifest import load_manifest
from profiler.numbers import fmt_num

SAMPLE = SAMPLE_RUN
pytestmark = pytest.mark.skipif(not (SAMPLE / "kernels.parquet").is_file(), reason="sample run not present")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def app() -> typer.Typer:
    cli = typer.Typer()
    cli.command("report")(report)
    cli.command("other")(lambda: None)  # two commands: typer keeps the command name
    return cli


class Page(HTMLParser):
    """Parses a page, checking that every element closes in order; collects images and links."""

    def __init__(self):
        super().__init__()
        self.stack, self.images, self.links, self.errors, self.text = [], [], [], [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs.get("src", ""))
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text())
    page.close()
    assert not page.errors and page.stack == [], (path.name, page.errors[:3], page.stack)
    return page


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("report")
    result = CliRunner().invoke(app(), ["report", str(SAMPLE), "-o", str(folder)])
    assert result.exit_code == 0, result.output
    assert "blocktile2d" in result.output and "2-way bank conflicts" in result.output
    return folder


def kernels_of_the_run() -> list[str]:
    kernels = pd.read_parquet(SAMPLE / "kernels.parquet")
    bench = pd.read_parquet(SAMPLE / "bench.parquet")
    return sorted(set(kernels["kernel_key"]) | set(bench["kernel"]))


def test_every_kernel_has_both_pages(out):
    for name in kernels_of_the_run():
        assert (out / f"{name}.html").is_file() and (out / f"{name}.md").is_file(), name
    assert (out / "index.html").is_file() and (out / "summary.md").is_file()


def test_html_parses_and_is_self_contained(out):
    for path in out.glob("*.html"):
        page = parse(path)
        assert page.images, path.name  # every page has at least one figure
        for src in page.images:
            assert src.startswith("data:image/"), (path.name, src[:40])
        for href in page.links:  # links stay inside the report, or go to the web
            assert href.startswith(("#", "http://", "https://")) or (out / href).is_file(), (path.name, href)
    text = (out / "naive.html").read_text()
    assert "<link" not in text and "<script" not in text and "src=\"http" not in text


def test_index_links_every_kernel_page(out):
    page = parse(out / "index.html")
    assert {f"{n}.html" for n in kernels_of_the_run()} <= set(page.links)


@pytest.mark.skipif(importlib.util.find_spec("profiler.render.roofline_chart") is None, reason="charts module not present")
def test_index_embeds_the_charts(out):
    # the roofline, and one ladder per precision tier of the sample (FP32 and the FP16 tensor-core tier)
    page = parse(out / "index.html")
    assert len([s for s in page.images if s.startswith("data:image/png;base64,")]) == 3


def table_rows(markdown: str) -> dict[str, list[str]]:
    rows = {}
    for line in markdown.splitlines():
        if line.startswith("| [") and "](" in line:
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            name = re.match(r"\[([^\]]+)\]", cells[0]).group(1)
            rows.setdefault(name, cells)  # the first table is the summary
    return rows


def test_summary_md_fits_a_ci_job_summary(out):
    text = (out / "summary.md").read_text()
    assert len(text.encode()) < 64 * 1024 and "data:" not in text and "<" not in text.replace("<-", "")
    rows = table_rows(text)
    bench = pd.read_parquet(SAMPLE / "bench.parquet")
    at = bench[bench["M"] == 2048].set_index("kernel")
    for name in kernels_of_the_run():
        cells = rows[name]
        assert cells[0] == f"[{name}]({name}.md)"  # relative to the report folder
        assert cells[1] == f"{at.loc[name, 'gflops']:,.0f}"
        assert cells[2].endswith("%") and cells[5] == "✅ PASS"
    assert rows["naive"][3] == "global memory (L1/LSU)" and rows["naive"][4] == "uncoalesced global loads"
    assert rows["blocktile2d"][4] == "2-way bank conflicts on shared loads"
    assert rows["cublas"][2] == "100%" and rows["cublas"][3] == "FP32 pipe"


def test_kernel_pages_say_what_the_data_shows(out):
    b2d = (out / "blocktile2d.md").read_text()
    assert "Bound by shared memory / MIO: 2-way bank conflicts on shared loads" in b2d
    assert "`for (int j = 0; j < TN; ++j) b[j] = Bs[d][tCol * TN + j];`" in b2d  # the line causing them
    assert "| shared-load bank conflicts | none -> 2-way |" in b2d
    vectorized = (out / "vectorized.md").read_text()
    assert "| shared-load bank conflicts | 2-way -> none |" in vectorized
    naive = " ".join(parse(out / "naive.html").text)
    assert "uncoalesced" in naive and "4,228x" in naive and "acc += a[k] * b[(size_t)k * N];" in naive
    warptile = (out / "warptile.md").read_text()
    assert "| shared load | 50.3 M | 0 | 0% | none |" in warptile
    assert "Achieved **24%** of a theoretical **25%**" in warptile and "capped by **registers**" in warptile
    cublas = (out / "cublas.md").read_text()
    assert "No line information" in cublas and "at the compute roof" in cublas


def test_markdown_tables_are_well_formed(out):
    for path in out.glob("*.md"):
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            if line.startswith("|:") or line.startswith("|-"):
                columns = line.count("|") - 1
                header = lines[i - 1]
                assert header.count("|") - header.count("\\|") - 1 == columns, (path.name, header)
                j = i + 1
                while j < len(lines) and lines[j].startswith("|"):
                    assert lines[j].count("|") - lines[j].count("\\|") - 1 == columns, (path.name, lines[j])
                    j += 1


# ---------------------------------------------------------------------------------------------
# Wrong input: one line, never a traceback


# ---------------------------------------------------------------------------------------------
# Kernel figures (Agg, inspected as Figures)


def test_power_capped_rows_carry_the_throttle_marker(out):
    # the bench table's `throttled` column holds numpy bools: every capped PASS row is marked '*'
    bench = pd.read_parquet(SAMPLE / "bench.parquet")
    capped = bench[(bench["status"] == "PASS") & bench["throttled"].fillna(False).astype(bool)]
    assert len(capped) > 0
    index = (out / "index.html").read_text()
    for gflops in capped["gflops"]:
        assert fmt_num(gflops) + "*" in index, gflops


def test_diagnosis_json_names_each_rungs_predecessor(out):
    kernels = {k["kernel"]: k for k in json.loads((out / "diagnosis.json").read_text())["kernels"]}
    specs = {s.name: s for s in load_manifest()}
    for name, record in kernels.items():
        if name in specs:
            assert record["predecessor"] == specs[name].predecessor, name
    assert kernels["texld128x128x8"]["predecessor"] == "cutlass128x128x8"
    assert kernels["cublas"]["predecessor"] is None


def test_diagnosis_json_writes_speeds_that_are_not_finite_as_null():
    """A kernels table whose time is 0 (damaged by hand, found by the fuzz test of `report`) makes
    an infinite speed: JSON has no such number, so the record says null, not a traceback."""
    import numpy as np

    from profiler.analyze.diagnosis_record import Diagnosis, RunDiagnosis
    from profiler.render.report import diagnosis_json

    d = Diagnosis("naive", gflops=np.inf, pct_cublas=-np.inf, executed_gflops=np.nan, executed_per_gemm_flop=1.5)
    record = json.loads(diagnosis_json(RunDiagnosis([d], pd.DataFrame(), pd.DataFrame(), None, {})))["kernels"][0]
    assert record["gflops"] is None and record["pct_cublas"] is None and record["executed_gflops"] is None
    assert record["executed_per_gemm_flop"] == 1.5


@pytest.mark.ncu
def test_tf32_page_reads_the_gemms_rate_the_tf32_peak_and_the_tiers_rung(tmp_path):
    from helpers.ncu_fixtures import TF32_RUN

    run = tmp_path / "run"
    shutil.copytree(TF32_RUN, run)
    result = CliRunner().invoke(app(), ["report", str(run), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "out" / "tf32x3wg.md").read_text()
    assert page.startswith("[run index]") and "# tf32x3wg (fp32-tc rung 3)" in page and "rung 25" not in page
    assert "GFLOP/s: **82,435 (ncu: 2MNK / time)**" in page  # 2 * 4096^3 / 1.67 ms, not the 249,268 executed
    assert "FLOP/s executed: **247 T on the tensor cores, 3x the GEMM's 2MNK**" in page
    assert "of TF32 peak" in page and "of FP16 peak" not in page
    assert "epilogue-bound" not in page


def test_the_climb_lists_rungs_not_the_references(out):
    index = (out / "index.md").read_text() if (out / "index.md").is_file() else (out / "index.html").read_text()
    climb = index[index.index("The climb"):]
    assert "spread128x256x8" in climb and "regbank128x256x8" in climb
    assert "cublas over" not in climb and "cublas</a> over" not in climb


@pytest.mark.ncu
def test_a_foreign_page_states_its_clock_its_roof_and_its_batch(tmp_path):
    """The foreign corpus's cuBLAS run: the batched BF16 product's page names the batch in its
    least traffic, every % of peak carries the clock it ran at, and no page of a library kernel
    tells the user to cap registers they do not compile."""
    from helpers.paths import DATA

    run = tmp_path / "torch"
    shutil.copytree(DATA / "foreign-h200" / "torch", run, ignore=shutil.ignore_patterns("extract", "report"))
    result = CliRunner().invoke(app(), ["report", str(run), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    pages = {p.name: p.read_text() for p in (tmp_path / "out").glob("nvjet*.md")}
    bmm = next(text for text in pages.values() if "bmm batch=4096" in text or "4096 products of" in text)
    assert "for 4096 products of 128x128x128" in bmm and "memory-bound by nature" in bmm
    assert all(re.search(r"of (FP16|TF32) peak at \d\.\d+ GHz", text) for text in pages.values())
    assert not any("maxrregcount" in text for text in pages.values())


@pytest.mark.ncu
def test_a_cause_held_below_its_memory_roof_names_the_roof_beside_it(tmp_path):
    from helpers.paths import DATA
    from profiler.catalogue.kernel_paths import PROBES_MANIFEST

    run = tmp_path / "probes"
    shutil.copytree(DATA / "probes-h100", run, ignore=shutil.ignore_patterns("extract", "report"))
    result = CliRunner().invoke(app(), ["report", str(run), "-o", str(tmp_path / "out"),
                                        "--manifest", str(PROBES_MANIFEST)])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "out" / "probe-lone-loads.md").read_text()
    assert "global loads outside the main loop wait one or two at a time" in page
    assert "Its roof is DRAM bandwidth:" in page


@pytest.mark.ncu
def test_a_tail_wave_shows_on_the_timeline(tmp_path):
    """probe-tail (133 blocks of one wave's size on 132 SMs): its page's timeline reads the tail."""
    from helpers.paths import DATA
    from profiler.catalogue.kernel_paths import PROBES_MANIFEST

    run = tmp_path / "probes"
    shutil.copytree(DATA / "probes-h100", run, ignore=shutil.ignore_patterns("extract", "report"))
    result = CliRunner().invoke(app(), ["report", str(run), "-o", str(tmp_path / "out"), "--manifest", str(PROBES_MANIFEST)])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "out" / "probe-tail.md").read_text()
    assert "## Over the launch" in page and "The timeline ends in a tail: for the last 50% of the launch" in page
    html = (tmp_path / "out" / "probe-tail.html").read_text()
    assert "the launch&#39;s timeline" in html or "the launch's timeline" in html


def test_a_rung_shows_ncus_estimates_for_the_rung_below_beside_the_measured_gain(out):
    page = (out / "coalesced.md").read_text()
    assert re.search(r"ncu's estimates for naive: [^.]*L1TEX Global Load Access Pattern \(\+\d+%\)", page)
    assert re.search(r"Measured, coalesced against it at the same shape: \+\d+% \(faster\)", page)


def test_a_suite_run_is_titled_by_its_suite_with_its_summary_and_heatmap():
    """A suite's report was titled with one shape and never showed the suite's geometric mean:
    now the title names the suite, a table ranks its kernels and a heatmap shows every shape."""
    from profiler.analyze.diagnosis import diagnose_run
    from profiler.render.report import report_files

    shapes = [(512, 512, 512), (16, 4096, 4096), (128, 128, 65536)]
    rows = [{"kernel": kernel, "tier": "fp32", "M": m, "N": n, "K": k, "status": "PASS", "gflops": 1000.0 * pct,
             "median_ms": 1.0, "pct_of_cublas": pct}
            for kernel, pcts in (("vectorized", (40.0, 30.0, 20.0)), ("best", (110.0, 95.0, 90.0)),
                                 ("cublas", (100.0, 100.0, 100.0)))
            for (m, n, k), pct in zip(shapes, pcts)]
    bench = pd.DataFrame(rows)
    run = diagnose_run({"bench": bench}, load_manifest(), {"suite": {"name": "decode", "shapes": shapes}})
    files = dict(report_files(run, bench=bench))
    summary = files["summary.md"]
    assert summary.startswith("# SGEMM ladder: GPU, suite decode (3 shapes)")
    suite_rows = table_rows(summary.split("## The suite")[1])
    assert list(suite_rows)[:2] == ["best", "vectorized"]
    assert suite_rows["best"][1:5] == ["fp32", "98%", "90%", "128x128x65536"]
    assert 'alt="% of cuBLAS of each kernel at each shape of the suite (fp32)"' in files["index.html"]
    assert "<title>gemmprof report: GPU, suite decode</title>" in files["index.html"]


def test_a_run_is_headed_by_its_tier_s_ladder():
    """An FP16 run is no SGEMM ladder: the heading names the tier its kernels share, or none."""
    from profiler.analyze.diagnosis import diagnose_run
    from profiler.render.report import report_files

    def heading(kernels_tiers, meta=None):
        rows = [{"kernel": k, "tier": t, "M": 512, "N": 512, "K": 512, "status": "PASS", "gflops": 1000.0,
                 "median_ms": 1.0, "pct_of_cublas": 50.0} for k, t in kernels_tiers]
        bench = pd.DataFrame(rows)
        files = dict(report_files(diagnose_run({"bench": bench}, load_manifest(), meta or {}), bench=bench))
        return files["summary.md"].splitlines()[0]

    assert heading([("vectorized", "fp32")]).startswith("# SGEMM ladder: ")
    assert heading([("skinny_any", "fp16"), ("wgmma_staged128", "fp16")]).startswith("# FP16 tensor-core ladder: ")
    assert heading([("vectorized", "fp32"), ("skinny_any", "fp16")]).startswith("# GEMM ladders: ")
    # a dispatcher alone over a suite: the tier of its rows
    suite = {"suite": {"name": "odd", "shapes": [(512, 512, 512)]}}
    assert heading([("best-fp16", "fp16")], suite).startswith("# FP16 tensor-core ladder: GPU, suite odd")


def test_a_dispatchers_page_says_which_kernel_to_profile_for_a_verdict(tmp_path):
    """A dispatcher is not a kernel ncu can run (`profile -k best` is an unknown kernel): its page
    names the kernel it ran at the shape its numbers come from, and the command that profiles it."""
    run = tmp_path / "run"
    shutil.copytree(SAMPLE, run)
    bench = pd.read_parquet(run / "bench.parquet")
    row = bench[bench["kernel"] == "vectorized"].iloc[[-1]].assign(kernel="best", dispatched_to="vectorized",
                                                                   dispatch_rule="rule 3: always")
    pd.concat([bench, row], ignore_index=True).to_parquet(run / "bench.parquet")
    M, N, K = (int(row.iloc[0][d]) for d in "MNK")
    result = CliRunner().invoke(app(), ["report", str(run), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "out" / "best.md").read_text()
    assert f"best is a dispatcher: at {M}x{N}x{K} it ran `vectorized`" in page
    assert f"`gemmprof profile -k vectorized --mnk {M} {N} {K}`" in page and "profile -k best" not in page
    parse(tmp_path / "out" / "best.html")


def test_a_page_without_a_profile_gives_a_command_that_profiles_it(tmp_path):
    """A rung's page says `profile -k NAME`; a cuBLAS yardstick's says `-k cublas` with its tier
    (there is no kernel `cublas-fp16`); a context row (cuBLAS FAST_TF32) is never profiled, and its
    page says so instead of a command that would fail."""
    from profiler.render.views import profile_command

    assert profile_command("tf32x3sk") == "gemmprof profile -k tf32x3sk"
    assert profile_command("cublas") == "gemmprof profile -k cublas"
    assert profile_command("cublas-fp16") == "gemmprof profile -k cublas --tier fp16"
    assert profile_command("cublas-tf32") is None
    run = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "2026-11-28-h100" / "tcsk" / "default"
    result = CliRunner().invoke(app(), ["report", str(run), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    pages = {k: (tmp_path / "out" / f"{k}.md").read_text() for k in ("cublas", "cublas-tf32", "tf32x3sk")}
    assert "`gemmprof profile -k tf32x3sk`" in pages["tf32x3sk"] and "`gemmprof profile -k cublas`" in pages["cublas"]
    assert "gemmprof profile" not in pages["cublas-tf32"] and "never profiled" in pages["cublas-tf32"]
