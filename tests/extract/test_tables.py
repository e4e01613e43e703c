"""Extraction from real reports (`ncu` tier: every report the fixture folder holds) and the pure
helpers of the reader (plain tier)."""

from __future__ import annotations

import functools
import lzma
import math
import re

import numpy as np
import pandas as pd
import pytest

from helpers.ncu_fixtures import fixtures, no_fixtures_reason, read_raw_csv
from profiler.errors import GemmprofError
from profiler import metrics as mt
from profiler.extract.tables import lines_from_sass, read_tables
from profiler.extract.units import unit_factor

FIXTURES = fixtures()
REPORTS = pytest.mark.parametrize(
    "fixture",
    FIXTURES or [pytest.param(None, marks=pytest.mark.skip(reason=no_fixtures_reason()))],
    ids=lambda f: f.stem if f else "none",
)
# Kernels that must show no shared-memory bank conflicts (naive and coalesced use no shared memory).
CONFLICT_FREE = ("naive", "coalesced")
# Header columns of ncu's raw export that are not metrics.
RAW_HEADER = 13
# ncu's CSV scales '%/byte' as if it were bytes: '%/Kbyte' holds the value divided by 1000.
CSV_UNIT_QUIRKS = {("%/Kbyte", "%/byte"): 1e3}
_NUMBER = re.compile(r"^-?[\d,]*\.?\d*(?:[eE][+-]?\d+)?$")


@functools.cache
def tables_of(path) -> dict[str, pd.DataFrame]:
    return read_tables(path)


def shape_of(fixture, row) -> tuple[int, int, int]:
    """M, N, K from the NVTX range; reports from before the shape was in it: from the name."""
    if not pd.isna(row["M"]):
        if fixture.shape:
            assert (row["M"], row["N"], row["K"]) == fixture.shape
        return int(row["M"]), int(row["N"]), int(row["K"])
    assert fixture.shape, f"{fixture.report.name}: no shape in NVTX nor in the file name"
    return fixture.shape


def csv_value(text: str, csv_unit: str, our_unit: str) -> tuple[float, float]:
    """A raw-export cell in `our_unit`, and the rounding tolerance its printed digits leave."""
    factor = CSV_UNIT_QUIRKS.get((csv_unit, our_unit)) or unit_factor(csv_unit, our_unit)
    plain = text.replace(",", "")
    decimals = len(plain.split(".")[1]) if "." in plain and "e" not in plain.lower() else 0
    return float(plain) * factor, 0.5 * 10.0**-decimals * factor


def assert_close(ours: float, text: str, csv_unit: str, our_unit: str, what: str) -> None:
    if text in ("", "n/a", "nan", "no data"):
        assert ours is None or (isinstance(ours, float) and math.isnan(ours)) or text == "nan", (what, ours, text)
        return
    expected, rounding = csv_value(text, csv_unit, our_unit)
    assert abs(ours - expected) <= rounding * (1 + 1e-9) + 1e-12 * abs(expected), (what, ours, text, csv_unit)


# ---------------------------------------------------------------------------------------------
# ncu tier: real reports


@pytest.mark.ncu
@REPORTS
def test_metrics_equal_raw_csv(fixture):
    """Every metric of the long table equals ncu's own raw export, launch by launch."""
    if fixture.raw_csv is None:
        pytest.skip(f"no {fixture.stem}.raw.csv(.xz) beside the report or in its folder's raw.csv.tar.xz")
    raw = read_raw_csv(fixture.raw_csv, fixture.raw_member)
    long = tables_of(fixture.report)["metrics"]
    assert len(raw.rows) == long["launch"].nunique()
    ours = {(launch, name): (value, text, unit) for launch, name, value, text, unit in
            zip(long["launch"], long["name"], long["value"], long["text"], long["unit"])}
    compared = 0
    for row in raw.rows:
        launch = int(row[raw.column("ID")])
        for i in range(RAW_HEADER, len(raw.names)):
            name, text = raw.names[i], row[i]
            assert (launch, name) in ours, name
            value, mine, unit = ours[launch, name]
            if not _NUMBER.match(text) or text == "":
                if text in ("", "n/a", "nan", "no data"):
                    assert math.isnan(value), (name, value, text)
                else:
                    assert mine == text, (name, mine, text)
                continue
            assert_close(value, text, raw.units[i], unit, f"launch {launch} {name}")
            compared += 1
    assert compared > 1000 * len(raw.rows)


@pytest.mark.ncu
@REPORTS
def test_kernels_equal_raw_csv(fixture):
    """Each kernels column taken from a metric equals the raw export after unit conversion."""
    if fixture.raw_csv is None:
        pytest.skip(f"no {fixture.stem}.raw.csv(.xz) beside the report or in its folder's raw.csv.tar.xz")
    raw = read_raw_csv(fixture.raw_csv, fixture.raw_member)
    kernels = tables_of(fixture.report)["kernels"].set_index("launch")
    for row in raw.rows:
        launch = int(row[raw.column("ID")])
        ours = kernels.loc[launch]
        assert ours["function"] == row[raw.column("Kernel Name")]
        assert ours["grid"] == row[raw.column("Grid Size")]
        assert ours["block"] == row[raw.column("Block Size")]
        for metric in mt.metrics_at(mt.LAUNCH):
            if metric.ncu not in raw.names:
                assert pd.isna(ours[metric.column]), metric.column  # absent from the report: missing
                continue
            i = raw.column(metric.ncu)
            if metric.dtype == "str":
                assert ours[metric.column] == row[i]
                continue
            value = ours[metric.column]
            assert_close(np.nan if pd.isna(value) else float(value), row[i], raw.units[i], metric.unit, metric.column)


@pytest.mark.ncu
@REPORTS
def test_invariants(fixture):
    kernels = tables_of(fixture.report)["kernels"]
    assert len(kernels) >= 1
    assert kernels["launch"].tolist() == list(range(len(kernels)))
    assert (kernels["report"] == str(fixture.report)).all()
    for _, row in kernels.iterrows():
        assert row["duration_ns"] > 0 and row["sm_clock_hz"] > 0
        flop = row["fp32_flop"] + row["fp64_flop"] + (0 if pd.isna(row["tensor_flop"]) else row["tensor_flop"])
        assert row["achieved_flops"] == pytest.approx(flop / (row["duration_ns"] * 1e-9), rel=1e-9)
        if row["tensor_flop"] == 0:
            assert row["achieved_flops"] == pytest.approx(row["fp32_flop"] / (row["duration_ns"] * 1e-9), rel=1e-9)
            assert row["achieved_flops"] <= row["peak_fp32_flops"]
        assert row["dram_bytes"] / (row["duration_ns"] * 1e-9) <= row["peak_dram_bytes_per_s"]
        assert row["peak_fp32_flops"] == pytest.approx(
            2 * row["ffma_per_cycle_peak"] * row["sm_clock_hz"], rel=1e-12)
        assert row["occupancy_limiter"] in (None, np.nan) or set(row["occupancy_limiter"].split(", ")) <= {
            "registers", "shared memory", "warps", "blocks", "barriers"}
        assert row["achieved_occupancy_pct"] <= row["theoretical_occupancy_pct"] + 1e-9
        # The per-cycle fallback of fp32_flop gives back the exact counts where both exist.
        for op in ("ffma", "fadd", "fmul"):
            exact, rate = row[f"{op}_thread_inst"], row[f"{op}_thread_inst_per_cycle"]
            if not pd.isna(exact) and not pd.isna(rate):
                assert round(rate * row["smsp_cycles"]) == exact, op
        key = row["kernel_key"] if isinstance(row["kernel_key"], str) else fixture.kernel_key
        if key == "naive":
            # Main loop: exactly 2*M*N*K. The epilogue C = alpha*acc + beta*C adds at most one
            # FMUL and one FFMA per element of C: 0 to 3 FLOP per element, exactly.
            M, N, K = shape_of(fixture, row)
            extra = row["fp32_flop"] - 2 * M * N * K
            assert extra in {0, M * N, 2 * M * N, 3 * M * N}, extra
        if key in CONFLICT_FREE:
            assert row["shared_load_bank_conflicts"] == 0
            assert row["shared_store_bank_conflicts"] == 0
            assert row["shared_mem_per_block"] == 0


@pytest.mark.ncu
@REPORTS
def test_rules(fixture):
    rules = tables_of(fixture.report)["rules"]
    kernels = tables_of(fixture.report)["kernels"]
    assert len(rules) > 0
    assert set(rules["launch"]) <= set(kernels["launch"])
    assert rules["rule_id"].notna().all() and rules["section"].notna().all()
    assert set(rules["message_type"].dropna()) <= {"none", "ok", "optimization", "warning", "error"}
    speedups = rules.dropna(subset=["estimated_speedup_pct"])
    assert ((speedups["estimated_speedup_pct"] >= 0) & (speedups["estimated_speedup_pct"] <= 100)).all()
    assert set(speedups["speedup_type"]) <= {"local", "global", "unknown"}


@pytest.mark.ncu
@REPORTS
def test_sass_and_source_add_up(fixture):
    """Per-instruction counters sum to the launch totals; per-line sums equal per-instruction."""
    t = tables_of(fixture.report)
    sass, source, long = t["sass"], t["source"], t["metrics"]
    assert len(sass) > 0
    assert sass["pc"].is_unique if sass["launch"].nunique() == 1 else True
    totals = long.set_index(["launch", "name"])["value"]
    for metric in mt.metrics_at(mt.INSTRUCTION):
        per_launch = sass.groupby("launch")[metric.column].sum(min_count=1)
        for launch, value in per_launch.items():
            key = (launch, metric.ncu)
            if key in totals.index and not math.isnan(totals[key]) and not math.isnan(value):
                assert value == totals[key], (metric.column, launch)
    numeric = [m.column for m in mt.metrics_at(mt.INSTRUCTION)]
    assert source[numeric].sum().equals(sass[numeric].sum())
    assert source["instructions"].sum() == len(sass)
    assert sass["sass"].map(lambda s: isinstance(s, str) and s != "").all()
    # Where the kernel was built with -lineinfo and its source imported, lines carry their code.
    with_lines = source.dropna(subset=["line"])
    if len(with_lines):
        assert with_lines["code"].notna().any()
        top = with_lines.sort_values("samples", ascending=False).iloc[0]
        assert top["samples"] > 0


# ---------------------------------------------------------------------------------------------
# Bad input: one GemmprofError naming the file, never a traceback from ncu_report


def _damaged(tmp_path, fixture):
    data = fixture.report.read_bytes()
    if fixture.report.name.endswith(".xz"):
        data = lzma.decompress(data)
    # Damage that breaks the file's structure: the first record and the tail. (Bytes changed
    # inside a string or a cubin leave a well-formed file that no reader can tell from a good one:
    # the format has no checksum.)
    corrupt_head, corrupt_tail = bytearray(data), bytearray(data)
    corrupt_head[20:84] = bytes(64)
    corrupt_tail[-2000:-1936] = bytes(64)
    files = {
        "empty.ncu-rep": b"",
        "truncated.ncu-rep": data[: len(data) // 2],
        "truncated-end.ncu-rep": data[:-100],
        "corrupt-head.ncu-rep": bytes(corrupt_head),
        "corrupt-tail.ncu-rep": bytes(corrupt_tail),
        "not-a-report.ncu-rep": b"==PROF== this is a log, not a report\n" * 10,
        "magic-only.ncu-rep": data[:4],
        "truncated.ncu-rep.xz": lzma.compress(data[:100_000])[:5000],
        "garbage.ncu-rep.xz": b"\xfd7zXZ\x00" + b"\x01" * 100,
    }
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    return sorted(tmp_path / name for name in files) + [tmp_path / "missing.ncu-rep", tmp_path]


@pytest.mark.ncu
@pytest.mark.skipif(not FIXTURES, reason=no_fixtures_reason())
def test_bad_files_raise_one_error_naming_the_file(tmp_path):
    smallest = min(FIXTURES, key=lambda f: f.report.stat().st_size)
    for path in _damaged(tmp_path, smallest):
        with pytest.raises(GemmprofError) as caught:
            read_tables(path, ["kernels", "rules", "source"])
        assert str(path) in str(caught.value), (path, caught.value)
        assert "\n" not in str(caught.value)


@pytest.mark.ncu
@pytest.mark.skipif(not FIXTURES, reason=no_fixtures_reason())
def test_xz_and_plain_read_the_same(tmp_path):
    fixture = min(FIXTURES, key=lambda f: f.report.stat().st_size)
    data = fixture.report.read_bytes()
    if fixture.report.name.endswith(".xz"):
        plain = tmp_path / fixture.report.name[: -len(".xz")]
        plain.write_bytes(lzma.decompress(data))
    else:
        plain = fixture.report
    a = read_tables(plain, ["kernels"])["kernels"].drop(columns="report")
    b = read_tables(fixture.report, ["kernels"])["kernels"].drop(columns="report")
    pd.testing.assert_frame_equal(a, b)


# ---------------------------------------------------------------------------------------------
# Plain tier: pure helpers


def test_lines_from_sass_sums_per_line():
    numeric = [m.column for m in mt.metrics_at(mt.INSTRUCTION)]
    rows = []
    for pc, line, executed, samples in [(0, 7, 10, 1), (16, 7, 20, 2), (32, 9, 5, 0), (48, None, 1, 4)]:
        row = {c: 0.0 for c in numeric}
        row.update(launch=0, kernel="k", pc=pc, offset=pc, sass="NOP", file=None if line is None else "k.cu",
                   line=line, inst_executed=float(executed), samples=float(samples))
        rows.append(row)
    sass = pd.DataFrame(rows)
    sass["line"] = sass["line"].astype("Int64")
    out = lines_from_sass(sass, {("k.cu", 7): "acc += a * b;"})
    assert list(out["line"].astype("float").fillna(-1)) == [7, 9, -1]
    assert list(out["inst_executed"]) == [30, 5, 1]
    assert list(out["samples"]) == [3, 0, 4]
    assert list(out["instructions"]) == [2, 1, 1]
    assert out["code"].tolist() == ["acc += a * b;", None, None]
    assert lines_from_sass(sass.iloc[:0]).empty


@pytest.mark.ncu
@pytest.mark.skipif(not FIXTURES, reason=no_fixtures_reason())
def test_child_processes_read_the_same(monkeypatch, tmp_path):
    """Reading in worker processes (shares of a big report; or a fresh process where only the
    ncu_report bundled with ncu exists and numpy is loaded) gives the same tables and errors."""
    import profiler.extract.tables as tables

    fixture = min(FIXTURES, key=lambda f: f.report.stat().st_size)
    direct = read_tables(fixture.report)
    monkeypatch.setattr(tables, "must_isolate", lambda: True)
    isolated = tables.read_tables(fixture.report)
    for name, frame in direct.items():
        pd.testing.assert_frame_equal(frame, isolated[name])
    data = fixture.report.read_bytes()
    bad = tmp_path / "half.ncu-rep"
    bad.write_bytes((lzma.decompress(data) if fixture.report.name.endswith(".xz") else data)[:200_000])
    with pytest.raises(GemmprofError, match=re.escape(str(bad))):
        tables.read_tables(bad)
    monkeypatch.setattr(tables, "must_isolate", lambda: False)
    monkeypatch.setattr(tables, "LAUNCHES_PER_WORKER", 1)
    monkeypatch.setattr(tables, "PARALLEL_MIN_LAUNCHES", 1)
    if len(direct["kernels"]) >= 2:
        shared = tables.read_tables(fixture.report, workers=2)
        for name, frame in direct.items():
            pd.testing.assert_frame_equal(frame, shared[name])


@pytest.mark.ncu
@pytest.mark.skipif(not FIXTURES, reason=no_fixtures_reason())
def test_accessors_match_the_methods():
    """The reader's fast path (the extension's own functions) reads what the methods read."""
    from profiler.extract.ncu_reader import accessors, open_report

    fixture = min(FIXTURES, key=lambda f: f.report.stat().st_size)
    access = accessors()
    try:
        report = open_report(fixture.report)
    except GemmprofError as exc:  # only the bundled ncu_report, loaded after numpy: no in-process reads
        pytest.skip(str(exc))
    with report:
        action = next(report.launches()).action
        for name in action.metric_names()[:300]:
            m, fast = action.metric_by_name(name), access.metric_by_name(action, name)
            assert access.kind(fast) == m.kind() and access.unit(fast) == m.unit(), name
            assert access.has_value(fast) == m.has_value(), name
            if m.kind() == m.ValueKind_STRING:
                assert access.as_string(fast) == m.as_string()
            elif m.has_value():
                same = access.as_double(fast) == m.as_double() or math.isnan(m.as_double())
                assert same and access.as_uint64(fast) == m.as_uint64(), name


@pytest.mark.ncu
def test_the_timeline_of_a_full_set_report():
    """ncu's PM sampling, in `--set full`: one row per interval, the pipes, memory and SMs of
    metrics.TIMELINE; the warp states only with `profile --timeline` (timelines-h200), read at
    the nearest of their own samples."""
    from helpers.paths import DATA

    from profiler import metrics as mt
    from profiler.extract.tables import read_tables

    full = [s.column for s in mt.TIMELINE if not s.column.startswith("stalled_")]
    warps = [s.column for s in mt.TIMELINE if s.column.startswith("stalled_")]
    t = read_tables(DATA / "probes-h100" / "ncu" / "probe-tail_896x2432x4096.ncu-rep", ["timeline"])["timeline"]
    assert list(t.columns) == mt.TIMELINE_COLUMNS and len(t) > 500
    assert t["t_ns"].iloc[0] == 0 and t["t_ns"].is_monotonic_increasing
    assert t[full].notna().all().all() and t[warps].isna().all().all()
    t = read_tables(DATA / "timelines-h200" / "ncu" / "probe-tail_896x2432x4096.ncu-rep", ["timeline"])["timeline"]
    assert t[full].notna().all().all() and t[warps].notna().mean().min() > 0.95


@pytest.mark.ncu
def test_cluster_launches_read_how_many_clusters_the_gpu_holds():
    """cuBLAS's decode kernel and wgmma_decode run clusters of two (H200, 64x4096x4096): the table
    reads their size and the 66 clusters the GPU holds at once, and counts waves of clusters, here
    as many as ncu's of blocks (64 clusters, 128 blocks); a launch without clusters reads 0 and
    ncu's waves."""
    from helpers.paths import DATA

    decode = DATA / "foreign-h200" / "cublas-decode" / "ncu"
    for name in ("cublas-fp16_64x4096x4096.ncu-rep", "wgmma_decode_r12_64x4096x4096.ncu-rep"):
        row = read_tables(decode / name, ["kernels"])["kernels"].iloc[0]
        assert (row["cluster_size"], row["cluster_max_active"]) == (2, 66), name
        assert row["launch_waves"] == pytest.approx(row["waves_per_sm"]) == pytest.approx(128 / 132)
    row = read_tables(DATA / "profile-h200" / "smem_512x256x128.ncu-rep.xz", ["kernels"])["kernels"].iloc[0]
    assert (row["cluster_size"], row["cluster_max_active"]) == (0, 0)
    assert row["launch_waves"] == row["waves_per_sm"]
