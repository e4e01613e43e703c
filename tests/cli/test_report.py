"""`gemmprof report` end to end: what it says for inputs that are not a full run, and which run it
picks by default."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

from helpers.paths import DATA
from helpers.paths import SAMPLE_RUN
from profiler.cli.report import report
from profiler.runs.rundir import REPO_ROOT

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


def gemmprof(*args, cwd=None, timeout=600) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    return subprocess.run([sys.executable, "-m", "profiler", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd or REPO_ROOT, timeout=timeout)


def one_line_error(result, *words):
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("gemmprof: error:"), lines
    for word in words:
        assert word in lines[0]


def test_no_such_directory(tmp_path):
    one_line_error(gemmprof("report", tmp_path / "nothing"), "no such file or directory")


def test_a_directory_that_is_not_a_run(tmp_path):
    one_line_error(gemmprof("report", tmp_path), "not a gemmprof run")


def test_a_run_with_no_kernels(tmp_path):
    shutil.copy(SAMPLE / "run.json", tmp_path / "run.json")
    one_line_error(gemmprof("report", tmp_path), "no kernels")


def test_a_profile_with_no_launches_is_a_marked_warning(tmp_path):
    shutil.copy(SAMPLE / "run.json", tmp_path / "run.json")
    pd.read_parquet(SAMPLE / "kernels.parquet").iloc[0:0].to_parquet(tmp_path / "kernels.parquet")
    result = gemmprof("report", tmp_path, "-o", tmp_path / "out")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "warning" in result.stdout and "no profiled kernels" in result.stdout
    page = (tmp_path / "out" / "index.html").read_text()
    assert 'class="warning"' in page and "no profiled kernels" in page
    assert "⚠️" in (tmp_path / "out" / "summary.md").read_text()


def test_a_bench_only_run(tmp_path):
    meta = json.loads((SAMPLE / "run.json").read_text())
    (tmp_path / "run.json").write_text(json.dumps(meta))
    pd.read_parquet(SAMPLE / "bench.parquet").to_csv(tmp_path / "bench.csv", index=False)
    result = CliRunner().invoke(app(), ["report", str(tmp_path)])
    assert result.exit_code == 0, result.output
    out = tmp_path / "report"  # the default: RUN_DIR/report
    for name in kernels_of_the_run():
        parse(out / f"{name}.html")
        assert "gemmprof profile -k" in (out / f"{name}.md").read_text() or name == "cublas"
    assert "not profiled" in (out / "summary.md").read_text()


def test_newest_run_is_the_default(tmp_path, monkeypatch):
    from profiler.runs.rundir import newest_run

    for name, mtime in (("old", 1_000_000), ("new", 2_000_000)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "run.json").write_text("{}")
        os.utime(tmp_path / name / "run.json", (mtime, mtime))
    assert newest_run(tmp_path) == tmp_path / "new"


PROGRAM_RUN = DATA / "program-h100"  # `gemmprof profile -- python3 tests/programs/cupy_and_own_kernel.py`


# gemmprof's own reports treated as foreign (no run.json beside them); cuBLAS is a kernel no
# manifest names, the probes are not in the default manifest.
PROBE_REPORTS = ["cublas_2048x2048x2048", "probe-tail_896x2432x4096", "probe-bank-conflicts_2048x2048x2048"]


def copy_probes(folder: Path) -> Path:
    folder.mkdir()
    for stem in PROBE_REPORTS:
        shutil.copy(DATA / "probes-h100" / "ncu" / f"{stem}.ncu-rep", folder)
    return folder


def _report_of(tmp_path, *inputs):
    out = tmp_path / "out"
    result = gemmprof("report", *inputs, "-o", out)
    assert result.returncode == 0, result.stderr
    diagnosis = json.loads((out / "diagnosis.json").read_text())
    return out, {d["kernel"]: d for d in diagnosis["kernels"]}


@pytest.mark.ncu
def test_report_on_reports_without_a_run(tmp_path):
    folder = copy_probes(tmp_path / "reports")
    out = tmp_path / "out"
    result = gemmprof("report", folder, "-o", out)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{s}.ncu-rep" for s in PROBE_REPORTS)
    data = json.loads((out / "diagnosis.json").read_text())
    by = {k["kernel"]: k for k in data["kernels"]}
    assert set(by) == {"cublas", "probe-tail", "probe-bank-conflicts"}
    assert by["probe-tail"]["cause"] == "tail" and by["probe-tail"]["shape"] == [896, 2432, 4096]
    assert by["probe-bank-conflicts"]["cause"] == "bank_conflicts"
    # the same shape as the cuBLAS launch: % of cuBLAS from the times; another shape: none
    assert by["probe-bank-conflicts"]["pct_cublas"] is not None and by["probe-tail"]["pct_cublas"] is None
    page = (out / "probe-tail.html").read_text()
    assert "GEMM minimum" in page and "2MNK / time" in page and "NVIDIA H100" in (out / "index.html").read_text()


@pytest.mark.ncu
def test_report_shape_unknown_then_given(tmp_path):
    report = DATA / "many-h200" / "many_20launches.ncu-rep.xz"
    result = gemmprof("report", report, "-o", tmp_path / "a")
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "a" / "sgemm_naive.html").read_text()
    assert "shape unknown: pass --mnk" in page and "2MNK / time" not in page
    assert json.loads((tmp_path / "a" / "diagnosis.json").read_text())["kernels"][0]["shape"] is None
    given = gemmprof("report", report, "--mnk-for", "naive=64x64x64", "--json")
    assert given.returncode == 0, given.stderr
    shapes = {k["kernel"]: k["shape"] for k in json.loads(given.stdout)["kernels"]}
    assert shapes == {"sgemm_naive": [64, 64, 64], "sgemm_coalesced": None, "sgemm_smem": None}


def test_report_default_output_is_not_beside_a_foreign_report(tmp_path):
    from profiler.cli.report import FOREIGN_OUT

    assert not FOREIGN_OUT.is_absolute() and FOREIGN_OUT.name == "gemmprof-report"


@pytest.mark.parametrize("content, message", [(b"", "empty"), (b"NVR\0" + b"\0" * 64, "")])
def test_report_of_a_broken_or_empty_report_is_one_line(tmp_path, content, message):
    bad = tmp_path / "x.ncu-rep"
    bad.write_bytes(content)
    result = gemmprof("report", bad, "-o", tmp_path / "out")
    ours = [line for line in result.stderr.splitlines() if line.startswith("gemmprof")]  # ncu_report logs too
    assert result.returncode == 2 and len(ours) == 1 and ours[0].startswith("gemmprof: error:"), result.stderr
    assert message in ours[0] and "Traceback" not in result.stderr


def test_report_of_a_profiled_program_reads_the_shape_from_its_nvtx_range(tmp_path):
    run = tmp_path / "program"
    shutil.copytree(PROGRAM_RUN, run)
    out, kernels = _report_of(tmp_path, run)
    assert (out / "index.html").is_file() and len(kernels) == 3
    gemms = [d for name, d in kernels.items() if name.startswith("sm80_xmma_gemm")]
    assert len(gemms) == 2 and all(d["shape"] == [512, 512, 512] for d in gemms)  # 'app/gemm 512x512x512'
    assert kernels["scale_rows"]["shape"] is None  # in 'app/scale': no shape, none guessed
    page = (out / "scale_rows.md").read_text()
    assert "shape unknown" in page
    for name in kernels:
        assert any(p.suffix == ".html" and p.name.startswith(name[:40]) for p in out.iterdir()), name


def test_report_of_a_plain_report_from_another_program(tmp_path):
    report = tmp_path / "theirs.ncu-rep"
    shutil.copy(PROGRAM_RUN / "ncu" / "cupy_and_own_kernel.ncu-rep", report)
    out, kernels = _report_of(tmp_path, report)
    assert (out / "index.html").is_file() and (out / "scale_rows.html").is_file()
    assert "scale_rows" in kernels and all(d["cause"] for d in kernels.values())
