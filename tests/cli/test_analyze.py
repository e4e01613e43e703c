"""`gemmprof analyze` on the fixture reports: the content of what it prints and writes."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest
from helpers.analyze_cli import run
from helpers.ncu_fixtures import fixtures, no_fixtures_reason

from profiler.render.console import summary_headers, summary_rows
from profiler.errors import GemmprofError
from profiler.extract.tables import read_tables
from profiler.stall_table import explain

FIXTURES = fixtures()
pytestmark = [pytest.mark.ncu, pytest.mark.skipif(not FIXTURES, reason=no_fixtures_reason())]


def smallest():
    return min(FIXTURES, key=lambda f: f.report.stat().st_size)


def test_json_is_the_kernels_table():
    paths = [f.report for f in FIXTURES]
    result = run(*paths, "--json")
    assert result.exit_code == 0, result.output
    records = json.loads(result.stdout)
    expected = pd.concat([read_tables(p, ["kernels"])["kernels"] for p in paths], ignore_index=True)
    assert isinstance(records, list) and len(records) == len(expected)
    assert [r["kernel"] for r in records] == expected["kernel"].tolist()
    assert [r["report"] for r in records] == expected["report"].tolist()
    assert set(records[0]) == set(expected.columns)
    for record, (_, row) in zip(records, expected.iterrows()):
        assert record["duration_ns"] == row["duration_ns"]
        assert record["fp32_flop"] == row["fp32_flop"]
        assert record["M"] is None if pd.isna(row["M"]) else record["M"] == row["M"]


def test_csv_is_the_kernels_table_as_ncu_prints_csv():
    """`--csv` is a flag, as ncu's is: the kernels table on stdout, nothing else; with --json, an
    error (one line, as every GemmprofError is printed)."""
    import io

    paths = [f.report for f in FIXTURES]
    result = run(*paths, "--csv")
    assert result.exit_code == 0, result.output
    table = pd.read_csv(io.StringIO(result.stdout))
    expected = pd.concat([read_tables(p, ["kernels"])["kernels"] for p in paths], ignore_index=True)
    assert table["kernel"].tolist() == expected["kernel"].tolist()
    assert table["duration_ns"].tolist() == expected["duration_ns"].tolist()
    both = run(paths[0], "--csv", "--json")
    assert isinstance(both.exception, GemmprofError) and "give one" in str(both.exception)


def test_summary_table_names_each_launch():
    fixture = smallest()
    result = run(fixture.report)
    assert result.exit_code == 0, result.output
    kernels = read_tables(fixture.report, ["kernels"])["kernels"]
    for header in ("GFLOP/s", "occupancy", "top stall"):
        assert header in result.stdout
    for _, row in kernels.iterrows():
        name = row["kernel_key"] if isinstance(row["kernel_key"], str) else row["function"]
        assert name[:40] in result.stdout
        assert explain(row["top_stall"]).label in result.stdout  # the report's words, not ncu's key


def test_summary_rows_formatting():
    kernels = read_tables(smallest().report, ["kernels"])["kernels"]
    rows = summary_rows(kernels)
    assert len(rows) == len(kernels) and all(len(r) == len(summary_headers()) for r in rows)
    row, first = rows[0], kernels.iloc[0]
    assert row[3] == f"{first['duration_ns'] / 1e3:,.1f}"
    assert row[4] == f"{first['achieved_flops'] / 1e9:,.0f}"
    assert row[9].startswith(explain(first["top_stall"]).label + " ")


def test_csv_and_parquet_exports(tmp_path):
    fixture = smallest()
    result = run(fixture.report, "--csv-dir", tmp_path / "csv", "--parquet-dir", tmp_path / "pq")
    assert result.exit_code == 0, result.output
    expected = read_tables(fixture.report)
    for name, frame in expected.items():
        written = pd.read_csv(tmp_path / "csv" / f"{name}.csv")
        assert len(written) == len(frame), name
        assert (written["report"] == str(fixture.report)).all()
        back = pd.read_parquet(tmp_path / "pq" / f"{name}.parquet")
        assert len(back) == len(frame)
    kernels = pd.read_parquet(tmp_path / "pq" / "kernels.parquet")
    assert kernels["fp32_flop"].tolist() == expected["kernels"]["fp32_flop"].tolist()


def test_folder_of_reports(tmp_path):
    fixture = smallest()
    (tmp_path / "ncu").mkdir()
    (tmp_path / "ncu" / fixture.report.name).write_bytes(fixture.report.read_bytes())
    result = run(tmp_path, "--json")
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)) == len(read_tables(fixture.report, ["kernels"])["kernels"])


def test_bad_file_is_a_gemmprof_error(tmp_path):
    bad = tmp_path / "bad.ncu-rep"
    bad.write_text("not a report")
    result = run(bad)
    assert isinstance(result.exception, GemmprofError)
    assert str(bad) in str(result.exception)


def test_bad_file_prints_one_line(tmp_path):
    """Through the real entry point: one line on stderr, no traceback."""
    try:
        import profiler.cli  # noqa: F401  (every command module must import)
    except Exception as exc:  # pragma: no cover - another command's module is broken
        pytest.skip(f"profiler.cli does not import: {exc}")
    bad = tmp_path / "bad.ncu-rep"
    bad.write_bytes(b"")
    proc = subprocess.run([sys.executable, "-m", "profiler", "analyze", str(bad)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and str(bad) in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr
