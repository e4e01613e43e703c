"""Output folders written whole (report, analyze --csv-dir/--parquet-dir): an interrupted write leaves the
old output untouched, a finished one leaves no page of an earlier run, and a folder gemmprof did not
write is never emptied."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.paths import DATA, SAMPLE_RUN
from typer.testing import CliRunner

from profiler.cli import app
from profiler.errors import GemmprofError
from profiler.outdir import MARKER, ours, replace_dir, write_files


def pages(folder, names):
    def fill(tmp):
        for name in names:
            (tmp / name).write_text(name)
    return fill


def test_replace_removes_pages_of_earlier_runs(tmp_path):
    out = tmp_path / "report"
    replace_dir(out, pages(out, ["index.html", "summary.md", "gone.html"]))
    replace_dir(out, pages(out, ["index.html", "summary.md", "kept.html"]))
    assert sorted(p.name for p in out.iterdir()) == sorted([MARKER, "index.html", "summary.md", "kept.html"])
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary folder left


def test_an_interrupted_write_leaves_the_old_output_whole(tmp_path):
    out = tmp_path / "report"
    replace_dir(out, pages(out, ["index.html", "a.html"]))

    def dies(tmp):
        (tmp / "index.html").write_text("new")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        replace_dir(out, dies)
    assert (out / "index.html").read_text() == "index.html" and (out / "a.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


def test_a_folder_gemmprof_did_not_write_is_never_emptied(tmp_path):
    mine = tmp_path / "docs"
    mine.mkdir()
    (mine / "notes.md").write_text("mine")
    assert not ours(mine, ("index.html", "summary.md"))
    with pytest.raises(GemmprofError, match="did not write"):
        replace_dir(mine, pages(mine, ["index.html"]))
    write_files(mine, pages(mine, ["index.html"]))  # beside the user's files, each renamed in
    assert sorted(p.name for p in mine.iterdir()) == ["index.html", "notes.md"]


def test_an_unmarked_earlier_report_is_recognised(tmp_path):
    old = tmp_path / "report"
    old.mkdir()
    for name in ("index.html", "summary.md", "stale.html", "stale.md"):
        (old / name).write_text("old")
    assert ours(old, ("index.html", "summary.md")) and not ours(old, ("kernels.csv",))


def test_report_into_an_earlier_report_drops_its_stale_pages(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(SAMPLE_RUN, run, ignore=shutil.ignore_patterns("ncu", "sass.parquet", "metrics.parquet"))
    out = tmp_path / "out"
    out.mkdir()
    for name in ("index.html", "summary.md", "oldkernel.html", "oldkernel.md"):
        (out / name).write_text("from an earlier run")
    result = CliRunner().invoke(app, ["report", str(run), "-o", str(out)])
    assert result.exit_code == 0, result.output
    names = {p.name for p in out.iterdir()}
    assert "oldkernel.html" not in names and "naive.html" in names and MARKER in names
    assert "from an earlier run" not in (out / "index.html").read_text()


@pytest.mark.ncu
def test_analyze_exports_into_a_run_directory_keep_its_files(tmp_path):
    run = tmp_path / "run"
    (run / "ncu").mkdir(parents=True)
    (run / "run.json").write_text('{"schema_version": 1}')
    report = DATA / "profile-h200" / "naive_512x256x128.ncu-rep.xz"
    shutil.copy(report, run / "ncu" / report.name)
    (run / "kernels.csv").write_text("stale")
    result = CliRunner().invoke(app, ["analyze", str(run), "--parquet-dir", str(run), "--csv-dir", str(run)])
    assert result.exit_code == 0, result.output
    assert (run / "run.json").is_file() and (run / "ncu" / report.name).is_file()
    assert (run / "kernels.parquet").is_file() and (run / "kernels.csv").read_text() != "stale"
    assert not [p for p in run.iterdir() if p.name.startswith(".")]


def test_a_write_that_fails_midway_is_one_line_naming_the_target(tmp_path):
    def vanishes(folder):
        shutil.rmtree(folder)
        (folder / "index.html").write_text("x")

    with pytest.raises(GemmprofError, match=f"cannot write {tmp_path / 'out'}"):
        replace_dir(tmp_path / "out", vanishes)
    with pytest.raises(GemmprofError, match="cannot write /proc/forbidden"):
        replace_dir(Path("/proc/forbidden"), pages(None, ["index.html"]))

