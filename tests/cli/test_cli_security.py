"""Issue 12, security: hostile names in a run (NVTX keys, run.json, ncu rule messages) and
hostile options must never write outside the output folder, never become a live link, never
break the Markdown summary or the terminal, never crash a chart. Each test runs the real CLI on
a copy of the committed sample run with the names replaced."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from helpers.paths import DATA, REPO, SAMPLE_RUN
from helpers.processes import interruptible
from profiler.errors import GemmprofError
from profiler.outdir import MARKER
from profiler.subprocess_env import child_env

pytestmark = pytest.mark.skipif(not (SAMPLE_RUN / "kernels.parquet").is_file(), reason="sample run not present")
# A real report of one launch (naive at 512x256x128, H200), for the commands that read reports.
NAIVE_REPORT = DATA / "profile-h200" / "naive_512x256x128.ncu-rep.xz"

# Kernel of the sample run -> the hostile name it gets (one attack each).
HOSTILE = {
    "naive": "../../../../escape/PWNED",
    "coalesced": "javascript:alert(1)//",
    "smem": "[/bold]x|<img src=x onerror=alert(1)>\n# injected heading",
    "blocktile1d": "foo[abi:cxx11]",
    "blocktile2d": r"$\frac{$",
    "vectorized": "k" * 300,
    "warptile": "index",
}
KEEP = [*HOSTILE, "cublas"]
EVIL_URL = "@url:click me:javascript:alert(document.cookie)@"


def gemmprof(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = child_env()
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "profiler", *args], capture_output=True, text=True, env=env,
                          timeout=300, cwd=cwd)


def no_traceback(r: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in r.stdout + r.stderr, r.stdout[-3000:] + r.stderr[-3000:]


def hostile_run(root: Path) -> Path:
    """The sample run cut to a few kernels, those renamed as in HOSTILE, one rule message
    carrying a javascript: link, and a GPU name with Markdown and HTML in it."""
    run = root / "a" / "b" / "run"
    shutil.copytree(SAMPLE_RUN, run, ignore=shutil.ignore_patterns("ncu"))
    for table in ("kernels", "bench", "rules", "source", "sass", "metrics"):
        pq = run / f"{table}.parquet"
        if not pq.is_file():
            continue
        df = pd.read_parquet(pq)
        key = "kernel_key" if "kernel_key" in df else "kernel"
        if table == "bench":
            df = df[df["kernel"].isin(KEEP)]
        elif "report" in df:
            df = df[df["report"].str.extract(r"ncu/(.+)_\d+x", expand=False).isin(KEEP)]
        for col in {key, "kernel"} & set(df.columns):
            if table != "kernels" or col == "kernel_key":
                df[col] = df[col].replace(HOSTILE)
        if table == "rules":
            df = df.copy()
            df.loc[df.index[0], "message"] = f"See {EVIL_URL} and @url:docs:https://docs.nvidia.com/x@."
        df.to_parquet(pq, index=False)
        (run / f"{table}.csv").unlink(missing_ok=True)
    meta = json.loads((run / "run.json").read_text())
    meta["environment"]["gpu_name"] = "H200 | evil\n## pwned <script>alert(1)</script> [x](javascript:y)"
    (run / "run.json").write_text(json.dumps(meta))
    log = run / "profile.jsonl"
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    log.write_text("".join(json.dumps(r) + "\n" for r in lines if r["kernel"] in KEEP))
    return run


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    run = hostile_run(root)
    out = root / "a" / "b" / "out"
    r = gemmprof("report", str(run), "-o", str(out))
    return root, run, out, r


def test_report_of_hostile_names_succeeds(rendered):
    root, run, out, r = rendered
    no_traceback(r)
    assert r.returncode == 0, r.stderr


def test_no_file_outside_the_output_folder(rendered):
    root, run, out, r = rendered
    before = {p for p in root.rglob("*") if not p.is_relative_to(out)}
    written = set(root.rglob("*")) - before
    assert written and all(p.is_relative_to(out) for p in written)
    assert not (root / "escape").exists() and not (root.parent / "escape").exists()
    assert {p.parent for p in out.rglob("*")} == {out}  # flat: no name made a sub-folder
    # one page per kernel (plus index.html): the one named "index" got a page of its own
    assert len(list(out.glob("*.html"))) == len(KEEP) + 1
    assert len(list(out.glob("*.md"))) == len(KEEP) + 1
    for p in out.iterdir():  # no hidden file but the marker that says gemmprof owns the folder
        assert len(p.name) < 120 and (not p.name.startswith(".") or p.name == MARKER)


def test_no_javascript_link_in_any_page(rendered):
    _, _, out, _ = rendered
    assert (out / "index.html").is_file() and (out / "summary.md").is_file()
    for page in out.glob("*.html"):
        html = page.read_text()
        hrefs = re.findall(r"""href\s*=\s*["']([^"']*)["']""", html, re.IGNORECASE)
        assert hrefs
        for href in hrefs:
            assert href.startswith(("https://", "http://", "#")) or re.fullmatch(r"[A-Za-z0-9_.+-]+\.html(#.*)?", href), href
        assert "<script" not in html.lower() and "<img src=x" not in html
    for page in out.glob("*.md"):
        targets = re.findall(r"(?<!\\)\]\(([^)]*)\)", page.read_text())  # links, not escaped text
        for target in targets:
            assert target.startswith(("https://", "http://", "#")) or re.fullmatch(r"[A-Za-z0-9_.+-]+\.md", target), target


def test_the_ncu_javascript_link_is_text(rendered):
    _, _, out, _ = rendered
    pages = "".join(p.read_text() for p in out.glob("*.html"))
    assert "click me" in pages and 'href="https://docs.nvidia.com/x"' in pages


def test_summary_md_structure_intact(rendered):
    _, _, out, _ = rendered
    md = (out / "summary.md").read_text()
    headings = [line for line in md.splitlines() if line.startswith("#")]
    assert not any(re.match(r"#+\s*(pwned|injected)", h) for h in headings), headings
    assert any(h.startswith("# SGEMM ladder: H200 \\| evil ## pwned") for h in headings)  # one line, escaped
    assert "<script" not in md and "<img" not in md
    # every row of the summary table has as many cells as its header
    rows = [line for line in md.splitlines() if line.startswith("|")]
    widths = {len(re.split(r"(?<!\\)\|", line)) for line in rows[:2 + len(KEEP)]}
    assert len(widths) == 1, rows[:4]
    assert "foo\\[abi:cxx11\\]" in md


def test_terminal_output_keeps_the_literal_name(rendered):
    _, _, _, r = rendered
    assert "foo[abi:cxx11]" in r.stdout
    assert "[/bold]x" in r.stdout


def test_kernel_page_of_the_mathtext_name_has_its_figures(rendered):
    _, _, out, _ = rendered
    from profiler.names import slug

    page = (out / f"{slug(HOSTILE['blocktile2d'])}.html").read_text()
    assert page.count("data:image/png;base64,") >= 1


# ---------------------------------------------------------------------------------------------
# Options that name places


@pytest.mark.parametrize("command", ["bench", "profile"])
@pytest.mark.parametrize("run_id", ["../../x", "/tmp/abs", ".hidden", "a/b", "r" * 300, ".."])
def test_run_id_cannot_leave_out(tmp_path, command, run_id):
    r = gemmprof(command, "--run-id", run_id, "--out", str(tmp_path / "reports"))
    no_traceback(r)
    assert r.returncode == 2
    assert "--run-id" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not any(tmp_path.parent.glob("x")) and not list(tmp_path.rglob("*"))


def test_report_onto_a_file_is_one_line(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(SAMPLE_RUN, run, ignore=shutil.ignore_patterns("ncu"))
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    for target in (blocker, blocker / "under"):
        r = gemmprof("report", str(run), "-o", str(target))
        no_traceback(r)
        assert r.returncode == 2 and "-o" in r.stderr and "file" in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
    assert blocker.read_text() == "x"


def test_report_with_no_run_never_writes_into_the_checkout(tmp_path):
    samples = SAMPLE_RUN.parent
    before = {p: p.stat().st_mtime_ns for p in samples.rglob("*")}
    r = gemmprof("report", cwd=tmp_path)
    no_traceback(r)
    assert r.returncode == 2 and "no run directory found" in r.stderr
    assert {p: p.stat().st_mtime_ns for p in samples.rglob("*")} == before


def test_report_with_no_run_reads_reports_here(tmp_path):
    shutil.copytree(SAMPLE_RUN, tmp_path / "reports" / "mine", ignore=shutil.ignore_patterns("ncu"))
    r = gemmprof("report", cwd=tmp_path)
    no_traceback(r)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "reports" / "mine" / "report" / "index.html").is_file()


# ---------------------------------------------------------------------------------------------
# .xz reports: header first, size limit, no temporary files left on any way out


def xz_bomb(path: Path, header: bytes = b"NVR\0", streams: int = 96) -> Path:
    """A small .xz that unpacks to `streams` x 64 MiB (concatenated xz streams), starting with
    `header`."""
    import lzma

    zeros = lzma.compress(bytes(64 << 20), preset=0)
    with open(path, "wb") as f:
        f.write(lzma.compress(header + bytes((64 << 20) - len(header)), preset=0))
        for _ in range(streams - 1):
            f.write(zeros)
    return path


@pytest.fixture(scope="module")
def bomb(tmp_path_factory) -> Path:
    return xz_bomb(tmp_path_factory.mktemp("xz") / "big.ncu-rep.xz")


def run_with_tmp(tmp: Path, *args: str, extra_env: dict | None = None) -> subprocess.CompletedProcess:
    tmp.mkdir(exist_ok=True)
    env = child_env()
    env.update({"TMPDIR": str(tmp), **(extra_env or {})})
    return subprocess.run([sys.executable, "-m", "profiler", *args], capture_output=True, text=True, env=env,
                          timeout=300, cwd=REPO, preexec_fn=_small_files)


def _small_files() -> None:
    """No file the child writes may pass 256 MiB: an unpacking that does not stop early fails."""
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 20, 256 << 20))


def test_xz_without_a_report_header_stops_at_the_first_chunk(tmp_path):
    fake = xz_bomb(tmp_path / "fake.ncu-rep.xz", header=b"ELF!", streams=64)  # 4 GiB of not-a-report
    r = run_with_tmp(tmp_path / "tmp", "analyze", str(fake))
    no_traceback(r)
    assert r.returncode == 2 and "not an Nsight Compute report" in r.stderr, r.stderr
    assert not list((tmp_path / "tmp").iterdir())


def test_xz_past_the_size_limit_is_refused(tmp_path, bomb):
    r = run_with_tmp(tmp_path / "tmp", "analyze", str(bomb), extra_env={"GEMMPROF_MAX_UNPACKED_BYTES": str(200 << 20)})
    no_traceback(r)
    assert r.returncode == 2 and "unpacks to more than" in r.stderr and "GEMMPROF_MAX_UNPACKED_BYTES" in r.stderr
    assert not list((tmp_path / "tmp").iterdir())


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_while_unpacking_leaves_no_temp_files(tmp_path, bomb, sig, code):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = child_env()
    env["TMPDIR"] = str(tmp)
    p = subprocess.Popen([sys.executable, "-m", "profiler", "analyze", str(bomb)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env, cwd=REPO, preexec_fn=interruptible)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(f.is_file() and f.stat().st_size > (64 << 20) for f in tmp.rglob("*")):
        time.sleep(0.05)  # wait until it is unpacking
    p.send_signal(sig)
    out, err = p.communicate(timeout=60)
    assert p.returncode == code, (p.returncode, err[-2000:])
    assert err.strip() == "gemmprof: interrupted"
    assert not list(tmp.iterdir())


# ---------------------------------------------------------------------------------------------
# dispatch --write and the manifest

INJECTION = ('H200"\n[[kernel]]\nname = "evil"\nfile = "naive.cu"\nentry = "sgemm_naive"\ntier = "fp32"\n'
             'idea = "x"\ngrid = [1, 1, 1]\nblock = [1, 1, 1]\nnvcc_flags = ["-ccbin=/tmp/evil"]\n'
             '[[dispatch]]\nname = "best2"\ntier = "fp32"\nidea = "')


@pytest.fixture
def manifest_copy(monkeypatch, tmp_path):
    import profiler.cli.dispatch  # noqa: F401
    import profiler.catalogue.kernel_paths as kernel_paths
    import profiler.catalogue.dispatchers as dispatchers

    # the whole folder: a manifest's .cu files are relative to it (and revalidation reads them)
    folder = shutil.copytree(kernel_paths.MANIFEST_PATH.parent, tmp_path / "kernels", ignore=shutil.ignore_patterns("probes", "experiments"))
    copy = folder / "ladder.toml"
    dispatchers.clear_caches()
    monkeypatch.setattr(kernel_paths, "MANIFEST_PATH", copy)
    yield copy
    dispatchers.clear_caches()


def hostile_bench_run(tmp_path: Path) -> Path:
    run = tmp_path / 'run" x'  # the run path is pasted into the entry too (derived_from)
    shutil.copytree(SAMPLE_RUN, run, ignore=shutil.ignore_patterns("ncu"))
    meta = json.loads((run / "run.json").read_text())
    meta["environment"]["gpu_name"] = INJECTION
    (run / "run.json").write_text(json.dumps(meta))
    return run


def test_dispatch_write_cannot_inject_a_kernel(manifest_copy, tmp_path):
    import tomllib

    from typer.testing import CliRunner

    from profiler.cli import app

    before = tomllib.loads(manifest_copy.read_text())
    result = CliRunner().invoke(app, ["dispatch", str(hostile_bench_run(tmp_path)), "--write"])
    after = tomllib.loads(manifest_copy.read_text())
    assert [k["name"] for k in after["kernel"]] == [k["name"] for k in before["kernel"]]
    assert "-ccbin=/tmp/evil" not in json.dumps(after["kernel"])
    assert result.exit_code == 0, result.output
    (best,) = [d for d in after["dispatch"] if d["name"] == "best"]
    assert best["idea"].endswith(INJECTION) and best["derived_from"].endswith('run" x')
    assert [d["name"] for d in after["dispatch"]] == [d["name"] for d in before["dispatch"]]  # none added
    assert "# Dispatchers: one name" in manifest_copy.read_text()  # comments kept


def test_dispatch_write_restores_the_manifest_when_the_written_file_is_invalid(manifest_copy, monkeypatch):
    import profiler.runs.rundir as rundir
    from typer.testing import CliRunner

    from profiler.cli import app

    original = manifest_copy.read_text()
    real = rundir.write_atomic
    calls = []

    def tampered(path, data):  # the first write lands corrupted (another writer, a bad disk)
        calls.append(path)
        real(path, data + "\n[[kernel]]\nname = 'broken'\n" if len(calls) == 1 else data)

    monkeypatch.setattr(rundir, "write_atomic", tampered)
    result = CliRunner().invoke(app, ["dispatch", str(SAMPLE_RUN), "--name", "other", "--write"])
    assert isinstance(result.exception, GemmprofError), result.output
    assert manifest_copy.read_text() == original


@pytest.mark.parametrize("args", [
    ["roofline", str(SAMPLE_RUN), "-o", "{file}/x.png"],
    ["roofline", str(SAMPLE_RUN), "-o", "{tmp}/r.png", "--ladder", "{file}/l.png"],
    ["analyze", str(NAIVE_REPORT), "--csv-dir", "{file}"],
    ["analyze", str(NAIVE_REPORT), "--parquet-dir", "{file}/sub"],
])
def test_outputs_onto_or_under_a_file_are_one_line(tmp_path, args):
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    r = gemmprof(*(a.format(file=blocker, tmp=tmp_path) for a in args))
    no_traceback(r)
    assert r.returncode == 2 and "is a file" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert blocker.read_text() == "x"
