"""One way to open a run: `open_run(path or paths) -> Run`, what every command and the Python
API read recorded data through (as HTA's TraceAnalysis opens a trace).

A run is any of:
- a gemmprof run directory (`run.json`, tables, `ncu/*.ncu-rep[.xz]`, maybe `bench.*`);
- a folder of plain `.ncu-rep` / `.ncu-rep.xz` files with no run.json (another program's);
- one or more report files;
- a bench table (`.csv` / `.parquet`) with its run.json beside it (`<stem>.run.json` or `run.json`).

`Run` reads lazily: nothing is opened until a table is asked for, and each table is read once.
A run directory's own tables are used when it has them; otherwise its reports are extracted
through the extraction cache (`extract/run.py`). For reports that are not in a gemmprof run the
cache lives in the user's cache folder (`$GEMMPROF_CACHE_DIR`, else `$XDG_CACHE_HOME/gemmprof`,
else `~/.cache/gemmprof`; `GEMMPROF_CACHE_DIR=off` for none): gemmprof never writes beside a
report it did not make. Without run.json the environment comes from the reports themselves
(`environment_from_kernels`).
"""

from __future__ import annotations

import hashlib
import os
import re
from functools import cached_property
from pathlib import Path
from typing import Iterable, Sequence

import pandas as pd

from .errors import GemmprofError
from .paths import check_in_path
from .runs.rundir import REPORT_SUFFIXES, RUN_JSON, RunDir, read_meta_file

CACHE_ENV = "GEMMPROF_CACHE_DIR"
CACHE_OFF = ("off", "none", "0")
BENCH_SUFFIXES = (".csv", ".parquet")
# What a diagnosis reads: asking for any of these extracts them all (the launch is opened once).
DIAGNOSIS_TABLES = ("kernels", "rules", "source", "sass", "timeline")


def user_cache_dir(env: dict[str, str] | None = None) -> Path | None:
    """Where tables extracted from reports outside a gemmprof run are cached (None: nowhere)."""
    env = os.environ if env is None else env
    chosen = env.get(CACHE_ENV)
    if chosen is not None:
        return None if chosen.strip().lower() in CACHE_OFF or not chosen.strip() else Path(chosen).expanduser()
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gemmprof"


def environment_from_kernels(kernels: pd.DataFrame) -> dict:
    """A run.json `environment` made from the reports themselves (pure): GPU name, compute
    capability, SM count and the SM and memory clocks the launches saw (medians). Driver, CUDA
    and the ncu that captured the reports are not recorded in a report's launches: left out."""
    def first(column: str):
        if column not in kernels.columns:
            return None
        values = kernels[column].dropna()
        return values.iloc[0] if len(values) else None

    def median_mhz(column: str):
        if column not in kernels.columns:
            return None
        values = pd.to_numeric(kernels[column], errors="coerce").dropna()
        return round(float(values.median()) / 1e6) if len(values) else None

    major, minor = first("cc_major"), first("cc_minor")
    env = {
        "gpu_name": first("gpu"),
        "compute_capability": f"{int(major)}.{int(minor)}" if major is not None and minor is not None else None,
        "sm_count": int(first("sm_count")) if first("sm_count") is not None else None,
        "sm_clock_mhz": median_mhz("sm_clock_hz"),
        "mem_clock_mhz": median_mhz("dram_clock_hz"),
    }
    # not in a report: said as unknown, so readers and templates need not ask whether the key exists
    return {**env, "driver": None, "cuda_runtime": None, "cublas_version": None, "ncu_version": None}


def _is_report(path: Path) -> bool:
    return path.name.endswith(REPORT_SUFFIXES) and not path.name.startswith(".")


def _holds_reports(folder: Path) -> bool:
    return folder.is_dir() and any(_is_report(p) for p in folder.iterdir())


class Run:
    """A recorded run, opened by `open_run`. Tables are read on first use and kept.

    `.path` the run directory, folder or (first) report; `.meta` its run.json, or for reports an
    environment read from them; `.bench` (None when not benchmarked); `.kernels`, `.rules`,
    `.source`, `.sass`, `.metrics` (None when absent); `.profile_log`; `.diagnose()`."""

    def __init__(self, path: Path, *, run_dir: RunDir | None = None, reports: Sequence[Path] = (),
                 meta_file: Path | None = None, bench_file: Path | None = None, from_reports: bool = False):
        self.path = Path(path)
        self.from_reports = from_reports  # read the reports even where the run has tables (analyze)
        self.run_dir = run_dir
        self.reports = tuple(reports)
        self._meta_file = meta_file
        self._bench_file = bench_file
        self._tables: dict[str, pd.DataFrame | None] = {}

    def __repr__(self) -> str:
        kind = "gemmprof run" if self.is_gemmprof_run else f"{len(self.reports)} report(s)"
        return f"<Run {self.path} ({kind})>"

    @property
    def is_gemmprof_run(self) -> bool:
        """Written by gemmprof (has a run.json): kernel names and shapes come from its NVTX ranges."""
        return self.run_dir is not None or self._meta_file is not None

    # -- what the run is ------------------------------------------------------------------------
    @cached_property
    def meta(self) -> dict:
        """run.json (schema checked), else `{"environment": ...}` read from the reports."""
        if self.run_dir is not None:
            return self.run_dir.meta()
        if self._meta_file is not None:
            return read_meta_file(self._meta_file)
        kernels = self.kernels
        return {"kind": "reports", "source": "the reports themselves (no run.json)",
                "reports": [str(p) for p in self.reports],
                "environment": environment_from_kernels(kernels) if kernels is not None else {}}

    @cached_property
    def bench(self) -> pd.DataFrame | None:
        """The bench table (timings against cuBLAS), None when the run was not benchmarked."""
        if self._bench_file is not None:
            from .runs.schema import check_table, read_frame

            return check_table("bench", read_frame(self._bench_file), str(self._bench_file))
        if self.run_dir is not None and self.run_dir.has_table("bench"):
            return self.run_dir.read_table("bench")
        return None

    @cached_property
    def profile_log(self) -> pd.DataFrame | None:
        """profile.jsonl (ncu commands, verification when profiled), None when absent."""
        return self.run_dir.read_profile_log() if self.run_dir is not None else None

    # -- the tables -----------------------------------------------------------------------------
    @property
    def kernels(self) -> pd.DataFrame | None:
        return self.table("kernels")

    @property
    def rules(self) -> pd.DataFrame | None:
        return self.table("rules")

    @property
    def source(self) -> pd.DataFrame | None:
        return self.table("source")

    @property
    def sass(self) -> pd.DataFrame | None:
        return self.table("sass")

    @property
    def metrics(self) -> pd.DataFrame | None:
        return self.table("metrics")

    def table(self, name: str) -> pd.DataFrame | None:
        """One table (kernels, rules, source, sass, metrics, bench), None when the run lacks it."""
        if name == "bench":
            return self.bench
        if name not in self._tables:
            self._load(name)
        return self._tables.get(name)

    def tables(self, names: Iterable[str]) -> dict[str, pd.DataFrame]:
        """The named tables the run has, by name."""
        out = {name: self.table(name) for name in names}
        return {name: frame for name, frame in out.items() if frame is not None}

    def _load(self, name: str) -> None:
        from .extract.tables import TABLES

        if name not in TABLES:
            raise GemmprofError(f"no table {name!r}", f"choose from {', '.join(TABLES)} or bench")
        if self.run_dir is not None and self.run_dir.has_table(name) and not (self.from_reports and self.reports):
            self._tables[name] = self.run_dir.read_table(name)
            return
        if not self.reports:
            self._tables[name] = None
            return
        # One pass over the reports for everything a diagnosis needs (or everything, for metrics).
        wanted = ("kernels",) if name == "kernels" else DIAGNOSIS_TABLES if name in DIAGNOSIS_TABLES else TABLES
        wanted = tuple(t for t in wanted if t not in self._tables)
        parts: dict[str, list[pd.DataFrame]] = {t: [] for t in wanted}
        for report in self.reports:
            for table, frame in self._extract(report, wanted).items():
                parts[table].append(frame)
        for table, frames in parts.items():
            self._tables[table] = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0] if frames else None

    def _extract(self, report: Path, tables: tuple[str, ...]) -> dict[str, pd.DataFrame]:
        from .extract.run import CACHE_DIR, extract_report

        if self.run_dir is not None and report.parent == self.run_dir.path / "ncu":
            return extract_report(report, tables)  # the run's own extract/ folder
        root = user_cache_dir()
        frames = None
        if root is not None:
            where = hashlib.sha256(str(report.resolve()).encode()).hexdigest()[:16]
            try:
                frames = extract_report(report, tables, cache=root / CACHE_DIR / f"{where}-{report.name}")
            except OSError:  # a read-only or full cache folder: read without caching
                frames = None
        if frames is None:
            frames = extract_report(report, tables, cache=None)
        for frame in frames.values():  # a report of its own names its launches by the path given
            frame["report"] = str(report)
        return frames

    # -- what is made of it ---------------------------------------------------------------------
    def diagnose(self, manifest=None, mnk: Iterable = ()):
        """Diagnose every kernel (`analyze.diagnosis.RunDiagnosis`). `manifest`: the kernel specs
        (default: the ladder plus $GEMMPROF_MANIFEST); `mnk`: shapes for launches the reports do not
        name, as `analyze.gemm_shape.ShapeRule`s, (M, N, K) tuples or 'REGEX=MxNxK' strings."""
        from .analyze.diagnosis import diagnose_run
        from .analyze.gemm_shape import fill_shapes
        from .catalogue.manifest import load_manifest

        rules = self._rules(mnk)
        tables = self.tables(("kernels", "rules", "source", "sass"))
        own = self.run_dir is not None and self.run_dir.has_table("kernels") and not (self.from_reports and self.reports)
        if not own or self.run_dir.has_table("timeline"):  # a run written before timelines: not read again for one
            tables.update(self.tables(("timeline",)))
        if self.bench is not None:
            tables["bench"] = self.bench
        if "kernels" in tables:
            tables["kernels"] = fill_shapes(tables["kernels"], rules)
        specs = load_manifest() if manifest is None else manifest
        return diagnose_run(tables, specs, self.meta, self.profile_log)

    def sweep(self, mnk: Iterable = ()) -> pd.DataFrame:
        """One row per profiled launch, its verdict beside its numbers: config (the index in a
        function's sweep: `gemmprof.profile_function`), kernel, shape, time, GFLOP/s, % of peak
        and the SM clock it was measured at, bound, cause, problem."""
        from .analyze.diagnosis import launch_verdicts
        from .analyze.gemm_shape import fill_shapes

        tables = self.tables(("kernels", "rules", "source", "sass"))
        tables["kernels"] = fill_shapes(self.require_kernels(), self._rules(mnk))
        rows = launch_verdicts(tables)
        shape = [f"{m}x{n}x{k}" if not pd.isna(m) else None for m, n, k in zip(rows["M"], rows["N"], rows["K"])]
        return pd.DataFrame({
            "config": rows["config"], "kernel": rows["name"], "shape": shape,
            "time_us": rows["duration_ns"] / 1e3, "gflops": rows["gflops"], "peak_pct": rows["peak_pct"],
            "sm_ghz": rows["sm_clock_hz"] / 1e9, "bound": rows["bound"], "cause": rows["cause"], "problem": rows["problem"],
        }).sort_values(["config", "time_us"], ascending=[True, False], na_position="last", kind="stable").reset_index(drop=True)

    @staticmethod
    def _rules(mnk: Iterable) -> list:
        from .analyze.gemm_shape import ShapeRule, parse_shape_rule

        return [r if isinstance(r, ShapeRule) else parse_shape_rule(r) if isinstance(r, str)
                else ShapeRule(tuple(int(v) for v in r)) for r in mnk]

    def roofline(self, title: str | None = None):
        """The hierarchical roofline of the profiled launches, as a matplotlib Figure (not saved)."""
        from .render.roofline_chart import roofline_figure

        kernels = self.require_kernels()
        return roofline_figure(kernels, title=title)

    def ladder(self, tier: str = "fp32"):
        """The ladder chart (GFLOP/s and % of cuBLAS against size) of the bench sweep, a Figure."""
        from .render.ladder_chart import ladder_figure

        if self.bench is None:
            raise GemmprofError(f"{self.path} has no bench table", "run gemmprof bench into it first")
        return ladder_figure(self.bench, tier=tier)

    def suite(self, tier: str = "fp32"):
        """The heatmap of a suite run (`bench --suite`): each kernel's % of cuBLAS at each shape,
        a Figure."""
        from .analyze.suite import suite_of_run
        from .render.suite_chart import suite_figure

        suite = suite_of_run(self.bench, self.meta)
        if suite is None:
            raise GemmprofError(f"{self.path} is not a suite run", "run gemmprof bench --suite NAME into it first")
        return suite_figure(self.bench, suite.shapes, f"suite {suite.name}, {tier}: % of cuBLAS", tier)

    def require_kernels(self) -> pd.DataFrame:
        """The kernels table, or a GemmprofError saying why there is none."""
        kernels = self.kernels
        if kernels is None:
            if self.run_dir is not None:
                raise GemmprofError(f"run {self.path} has no kernels table and no Nsight Compute reports",
                                    f"profile it first: gemmprof profile --kernel all --run-id {self.path.name}")
            raise GemmprofError(f"{self.path} holds no profiled launches")
        if kernels.empty:
            raise GemmprofError(f"no profiled launches in {self.path}",
                                "the reports hold no kernel launches: profile with gemmprof profile")
        return kernels


def open_run(paths: str | os.PathLike | Iterable[str | os.PathLike], from_reports: bool = False) -> Run:
    """Open a run directory, a folder of reports, report files, or a bench table with its run.json.

    Several paths must all be reports or folders of reports (one run directory alone keeps its
    run.json, bench and profile log). `from_reports`: a run directory's tables are read from its
    reports (through the cache), not from its table files: what `analyze` exports. Every way this
    can go wrong is a GemmprofError."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [Path(p) for p in paths]
    if not paths:
        raise GemmprofError("no run named", "pass a run directory, a folder of reports or .ncu-rep files")
    for path in paths:
        check_in_path(path)
    if len(paths) == 1:
        run = _open_one(paths[0])
        run.from_reports = from_reports
        return run
    reports: list[Path] = []
    for path in paths:
        if path.is_dir() and (path / RUN_JSON).is_file():
            RunDir(path).meta()  # the schema version is checked even where only reports are read
        reports.extend(_reports_of(path))
    return Run(paths[0], reports=_unique(reports))


def _open_one(path: Path) -> Run:
    if path.is_dir() and (path / RUN_JSON).is_file():
        run = RunDir(path)
        run.meta()  # checks the schema version now, not at the first table
        # its reports: in ncu/, where gemmprof writes them, else beside run.json (a run kept flat,
        # as the captured fixtures in tests/data are)
        folder = path / "ncu" if _holds_reports(path / "ncu") else path
        return Run(path, run_dir=run, reports=_reports_in(folder))
    if path.is_dir():
        if not (_holds_reports(path) or _holds_reports(path / "ncu")):
            raise GemmprofError(f"{path} is not a gemmprof run (no {RUN_JSON}) and holds no .ncu-rep reports",
                                "pass a run directory written by gemmprof profile, or .ncu-rep files")
        return Run(path, reports=_reports_of(path))
    if path.name.endswith(BENCH_SUFFIXES):
        meta_file = next((m for m in (path.with_suffix(".run.json"), path.parent / RUN_JSON) if m.is_file()), None)
        if meta_file is None:
            raise GemmprofError(f"{path} has no run.json beside it ({path.with_suffix('.run.json').name} or {RUN_JSON})",
                                "pass the run directory")
        return Run(path, meta_file=meta_file, bench_file=path)
    return Run(path, reports=_reports_of(path))


def _reports_of(path: Path) -> list[Path]:
    from .extract.tables import find_reports

    if path.is_file() and not path.name.endswith(REPORT_SUFFIXES):
        raise GemmprofError(f"{path} is neither a run directory nor an Nsight Compute report",
                            "pass a run directory or .ncu-rep / .ncu-rep.xz files")
    return find_reports([path])


def _reports_in(folder: Path) -> list[Path]:
    """The reports directly in `folder` (none for a folder that holds none)."""
    from .extract.tables import find_reports

    return find_reports(sorted(p for p in folder.iterdir() if _is_report(p))) if _holds_reports(folder) else []


def _unique(reports: list[Path]) -> list[Path]:
    return list(dict.fromkeys(reports))


def score_verdicts(truth_files: Iterable[str | os.PathLike] = (), probe_runs: Iterable[str | os.PathLike] = (),
                   manifest=None) -> list:
    """Grade the diagnosis against what is known (`analyze.accuracy`): every case of each truth
    table (its `run` relative to the table) and every planted probe profiled in `probe_runs` (the
    cause from the probes' manifest). Returns one `accuracy.Grade` per case, in order."""
    from .analyze.accuracy import grade, parse_truth, probe_truths, verdict_words
    from .catalogue.kernel_paths import PROBES_MANIFEST
    from .catalogue.manifest import load_manifest

    specs = (load_manifest() + load_manifest(PROBES_MANIFEST)) if manifest is None else manifest
    jobs: list[tuple[Path, list]] = []
    for table in map(Path, truth_files):
        try:
            text = table.read_text()
        except OSError as exc:
            raise GemmprofError(f"cannot read the truth table {table}: {exc.strerror or exc}") from None
        by_run: dict[Path, list] = {}
        for truth in parse_truth(text, str(table)):
            by_run.setdefault(table.parent / truth.run, []).append(truth)
        jobs += list(by_run.items())
    planted = {s.name: s.planted for s in specs if s.planted}
    jobs += [(Path(run), probe_truths(planted)) for run in probe_runs]
    grades = []
    for path, truths in jobs:
        diagnosis = open_run(path).diagnose(manifest=specs)
        for truth in truths:
            d = _diagnosis_for(diagnosis.kernels, truth)
            if d is None and not truth.range:
                continue  # a probe this run did not profile
            v = d.verdict if d is not None else None
            grades.append(grade(truth, v.cause if v else None, v.ranked if v else (),
                                verdict_words(v.problem, v.summary, v.cure) if v else ""))
    return grades


def _diagnosis_for(kernels, truth):
    """The diagnosis of the truth's launch: the one whose NVTX range starts with `truth.range`,
    else (no range) the kernel of its name."""
    for d in kernels:
        nvtx = (d.launch or {}).get("nvtx")
        function = str((d.launch or {}).get("function") or d.name)
        if truth.kernel and not re.search(truth.kernel, function):
            continue
        if truth.range and isinstance(nvtx, str) and nvtx.startswith(truth.range):
            return d
        if not truth.range and d.name == truth.name and d.profiled:
            return d
    return None
