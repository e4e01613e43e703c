"""Where the `ncu` tests find real reports, and ncu's own raw CSV export of each.

Committed fixtures are captured by `gemmprof profile --xz` into tests/data/profile-h200/ as
`<kernel>_<M>x<N>x<K>.ncu-rep.xz`, each with `ncu --import <report> --page raw --csv` as
`<same stem>.raw.csv`: a member of the folder's `raw.csv.tar.xz` (how the committed ones are kept),
or a file beside the report (`.raw.csv.xz` or `.raw.csv`). The naive rung's report is a link to
the package's own copy of it (profiler/extract/warm.ncu-rep.xz, which warms the reader), so the
tree holds it once. Set GEMMPROF_TEST_REPORTS to another
folder (or several, separated by os.pathsep) to run the same tests over other reports.
"""

from __future__ import annotations

import csv
import functools
import io
import lzma
import os
import re
import tarfile
from dataclasses import dataclass
from pathlib import Path
import textwrap

import pytest

from helpers.paths import DATA

ENV_REPORTS = "GEMMPROF_TEST_REPORTS"
DEFAULT_DIR = DATA / "profile-h200"
SUFFIXES = (".ncu-rep.xz", ".ncu-rep")
RAW_ARCHIVE = "raw.csv.tar.xz"  # ncu's raw exports of a folder's reports, one `<stem>.raw.csv` each
_STEM = re.compile(r"^(?P<kernel>.+)_(?P<M>\d+)x(?P<N>\d+)x(?P<K>\d+)$")


@dataclass(frozen=True)
class Fixture:
    report: Path
    raw_csv: Path | None  # the export's file, or the archive that holds it as `raw_member`
    raw_member: str | None = None

    @property
    def stem(self) -> str:
        name = self.report.name
        for suffix in SUFFIXES:
            if name.endswith(suffix):
                return name[: -len(suffix)]
        return name

    @property
    def shape(self) -> tuple[int, int, int] | None:
        """(M, N, K) from the file name, as `gemmprof profile` names reports."""
        match = _STEM.match(self.stem)
        return (int(match["M"]), int(match["N"]), int(match["K"])) if match else None

    @property
    def kernel_key(self) -> str | None:
        match = _STEM.match(self.stem)
        return match["kernel"] if match else None


def fixture_dirs() -> list[Path]:
    env = os.environ.get(ENV_REPORTS)
    return [Path(p) for p in env.split(os.pathsep) if p] if env else [DEFAULT_DIR]


@functools.cache
def fixtures() -> tuple[Fixture, ...]:
    found = []
    for folder in fixture_dirs():
        if not folder.is_dir():
            continue
        archive = folder / RAW_ARCHIVE
        packed = set(tarfile.open(archive, "r:xz").getnames()) if archive.is_file() else set()
        for path in sorted(folder.iterdir()):
            if path.name.endswith(SUFFIXES) and not path.name.startswith("."):
                stem = Fixture(path, None).stem
                raw = next((r for r in (path.with_name(stem + ".raw.csv.xz"), path.with_name(stem + ".raw.csv")) if r.is_file()), None)
                if raw is None and stem + ".raw.csv" in packed:
                    found.append(Fixture(path, archive, stem + ".raw.csv"))
                else:
                    found.append(Fixture(path, raw))
    return tuple(found)


def no_fixtures_reason() -> str:
    where = ", ".join(map(str, fixture_dirs()))
    return (
        f"no .ncu-rep(.xz) reports in {where}: capture them with `gemmprof profile --xz` into "
        f"tests/data/profile-h200/, or point {ENV_REPORTS} at a folder of reports"
    )


@dataclass(frozen=True)
class RawExport:
    """ncu's `--page raw --csv`: first row names, second row units, then one row per launch."""

    names: list[str]
    units: list[str]
    rows: list[list[str]]

    def column(self, name: str) -> int:
        return self.names.index(name)


def read_raw_csv(path: Path, member: str | None = None) -> RawExport:
    """ncu's raw export from its file (`.raw.csv` or `.raw.csv.xz`), or from the member of that name
    of a `raw.csv.tar.xz`."""
    if member is not None:
        with tarfile.open(path, "r:xz") as archive, archive.extractfile(member) as data:
            rows = list(csv.reader(io.TextIOWrapper(data, encoding="utf-8", newline="")))
    else:
        opener = lzma.open if path.name.endswith(".xz") else open
        with opener(path, "rt", newline="") as f:
            rows = list(csv.reader(f))
    return RawExport(rows[0], rows[1], rows[2:])


# tests/data/tf32-h100: the fp32-tc rungs (tf32x1, tf32x3, tf32x3wg) at 4096^3 on an H100.
TF32_RUN = DATA / "tf32-h100"


@functools.cache
def opened_copy(run_dir: Path):
    """A committed run opened as `gemmprof report` opens it, from a copy (its extraction cache
    stays out of the repository; a rendered report/ folder is not copied)."""
    import shutil
    import tempfile

    from profiler.run import open_run

    copy = Path(tempfile.mkdtemp(prefix="gemmprof-run-")) / run_dir.name
    shutil.copytree(run_dir, copy, ignore=shutil.ignore_patterns("report"))
    return open_run(copy)


def tf32_run():
    """The tf32-h100 run, opened from a copy."""
    return opened_copy(TF32_RUN)


@functools.cache
def tf32_diagnosis():
    """The tf32-h100 run diagnosed against the ladder's manifest."""
    from profiler.catalogue.manifest import load_manifest

    return tf32_run().diagnose(manifest=load_manifest())


def install_fake_ncu(tmp_path, monkeypatch, script: str, fixtures: Path, allow_gpu: bool = True, **environment) -> Path:
    """Put a stand-in `ncu` (a Python `script`, formatted with {python} and {fixtures}) where
    gemmprof looks for ncu, cache extraction in `tmp_path`, and report a fake H200 as the GPU
    (`allow_gpu` False: fail if the command asks for CuPy). Returns the stand-in's path."""
    import stat
    import sys

    import profiler.measure.provenance as provenance

    exe = tmp_path / "ncu"
    exe.write_text(script.format(python=sys.executable, fixtures=str(fixtures)))
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("GEMMPROF_NCU", str(exe))
    monkeypatch.setenv("GEMMPROF_CACHE_DIR", str(tmp_path / "cache"))
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    real = provenance.collect_environment

    def fake_h200_environment(ncu=None, need_gpu=False, nvml_only=False):
        assert allow_gpu or not need_gpu  # a program's profile needs no CuPy in gemmprof itself
        env = real(ncu=ncu)
        env.update(gpu_name="NVIDIA H200 (fake)", arch="sm_90", gpu_slug="h200", compute_capability="9.0", driver="580.1")
        return env

    monkeypatch.setattr(provenance, "collect_environment", fake_h200_environment)
    return exe


# The ladder's stand-in ncu (`gemmprof profile -k ...` without a GPU): writes a real report captured
# on the H200 where --export points; FAKE_NCU_MODE=perm|none act out ncu's two refusals.
LADDER_FAKE_NCU = textwrap.dedent(
    """\
    #!{python}
    # Stand-in for ncu: writes a real report captured on the H200 where --export points.
    import json, lzma, os, sys
    args = sys.argv[1:]
    mode = os.environ.get("FAKE_NCU_MODE", "ok")
    if args == ["--version"]:
        print("Version 2025.3.1.0 (fake)"); sys.exit(0)
    if mode == "perm":
        print("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters")
        sys.exit(1)
    base = args[args.index("--export") + 1]
    job = json.loads(args[args.index("--job") + 1])
    if mode == "none":
        print("==WARNING== No kernels were profiled."); sys.exit(0)
    fixtures = {fixtures!r}
    name = job["kernel"] if os.path.exists(os.path.join(fixtures, job["kernel"] + "_512x256x128.ncu-rep.xz")) else "naive"
    with lzma.open(os.path.join(fixtures, name + "_512x256x128.ncu-rep.xz")) as src, open(base + ".ncu-rep", "wb") as dst:
        dst.write(src.read())
    print('==PROF== Profiling "sgemm_' + name + '" - 0: 0%....50%....100% - 38 passes')
    print("GEMMPROF_TARGET " + json.dumps({{"kernel": job["kernel"], "M": job["M"], "N": job["N"], "K": job["K"],
          "status": "PASS", "reason": "", "error": 1e-7, "environment": {{"cuda_runtime": "13.2", "cublas_version": "13.1.0"}}}}))
    """
)


@pytest.fixture
def fake_ncu(tmp_path, monkeypatch):
    import profiler.measure.device as device

    monkeypatch.setattr(device, "require_cupy", lambda: None)
    return install_fake_ncu(tmp_path, monkeypatch, LADDER_FAKE_NCU, DATA / "profile-h200")


# The stand-in ncu of `gemmprof profile -- CMD`: runs the program for real (its exit code and output
# are the program's), claims FAKE_LAUNCHES launches (FAKE_COUNT_LAUNCHES when counting them), writes
# a real captured report where --export points, and logs each command line it was given to
# FAKE_NCU_LOG.
PROGRAM_FAKE_NCU = textwrap.dedent(
    """\
    #!{python}
    # Stand-in for ncu: runs the program after the options, then writes a real report.
    import json, lzma, os, subprocess, sys
    args = sys.argv[1:]
    if args == ["--version"]:
        print("Version 2025.3.1.0 (fake)"); sys.exit(0)
    with open(os.environ["FAKE_NCU_LOG"], "a") as log:
        log.write(json.dumps(args) + "\\n")
    if os.environ.get("FAKE_NCU_MODE") == "perm":
        print("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters")
        sys.exit(1)
    WITH_VALUE = {{"--set", "--clock-control", "--import-source", "--target-processes", "--export", "--metrics",
                  "--nvtx-include", "--kernel-name", "--launch-skip", "--launch-count", "--replay-mode", "--cache-control"}}
    i = 0
    while i < len(args) and args[i].startswith("--"):
        i += 2 if args[i] in WITH_VALUE else 1
    program = args[i:]
    counting = "--export" not in args
    launches = int(os.environ.get("FAKE_COUNT_LAUNCHES" if counting else "FAKE_LAUNCHES", "3"))
    for n in range(launches):
        print('==PROF== Profiling "sgemm_naive" - ' + str(n) + ': 0%....50%....100% - ' + ("1 pass" if counting else "38 passes"), flush=True)
    if os.environ.get("FAKE_REPORT_FIRST") and not counting:  # as if ncu had saved a launch, then got a signal
        base = args[args.index("--export") + 1]
        with lzma.open(os.path.join({fixtures!r}, "naive_512x256x128.ncu-rep.xz")) as src, open(base + ".ncu-rep", "wb") as dst:
            dst.write(src.read())
    code = subprocess.run(program).returncode
    if launches and not counting:
        base = args[args.index("--export") + 1]
        with lzma.open(os.path.join({fixtures!r}, "naive_512x256x128.ncu-rep.xz")) as src, open(base + ".ncu-rep", "wb") as dst:
            dst.write(src.read())
    if code:
        print("==ERROR== The application returned an error code (" + str(code) + ").")
    if not launches:
        print("==WARNING== No kernels were profiled.")
    sys.exit(code)
    """
)


def install_program_ncu(tmp_path, monkeypatch) -> Path:
    """PROGRAM_FAKE_NCU where gemmprof looks for ncu, logging to tmp_path/ncu-calls.jsonl."""
    return install_fake_ncu(tmp_path, monkeypatch, PROGRAM_FAKE_NCU, DATA / "profile-h200", allow_gpu=False,
                            FAKE_NCU_LOG=str(tmp_path / "ncu-calls.jsonl"))
