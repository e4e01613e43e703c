"""Validation at the door: each broken input of issue 12 is one line naming the file and the field,
through the real commands (report, roofline, compare), never a traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from helpers.paths import SAMPLE_RUN
from typer.testing import CliRunner

from profiler.cli import app
from profiler.errors import GemmprofError
from profiler.runs.schema import check_run_meta, check_table

BENCH = pd.read_parquet(SAMPLE_RUN / "bench.parquet")


def invoke(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, (GemmprofError, SystemExit)):
        raise AssertionError(f"traceback: {result.exception!r}\n{result.output}") from result.exception
    return result


def error_of(result) -> str:
    assert isinstance(result.exception, GemmprofError), result.output
    return str(result.exception)


def bench_run(path: Path, meta: bytes | str | None = None, bench: pd.DataFrame | None = None) -> Path:
    path.mkdir(parents=True)
    (path / "run.json").write_bytes(meta.encode() if isinstance(meta, str) else meta or
                                     json.dumps({"schema_version": 1, "environment": {"gpu_name": "NVIDIA H200"}}).encode())
    (bench if bench is not None else BENCH.head(6)).to_csv(path / "bench.csv", index=False)
    return path


@pytest.mark.parametrize("meta, fragment", [
    ("[1, 2]", "top level must be a JSON object, not a list"),
    ('{"schema_version": 1, "environment": "H200"}', "field 'environment' must be an object, not a text"),
    (b'{"schema_version": 1, "kind": "\xff\xfe"}', "not UTF-8"),
    ('{"schema_version": true}', "field 'schema_version' must be an integer, not a true/false"),
    ('{"schema_version": 1, "environment": {"gpu_name": 7}}', "'environment.gpu_name' must be a text"),
    ('{"schema_version": 1, "complete": "yes"}', "'complete' must be a true/false"),
])
@pytest.mark.parametrize("command", ["report", "compare", "dispatch"])
def test_bad_run_json_is_one_line_naming_file_and_field(tmp_path, meta, fragment, command):
    run = bench_run(tmp_path / "r", meta)
    args = {"report": ["report", run, "-o", tmp_path / "out"], "compare": ["compare", SAMPLE_RUN, run],
            "dispatch": ["dispatch", run]}[command]
    message = error_of(invoke(*args))
    assert fragment in message and str(run / "run.json") in message


def kernels_run(tmp_path, kernels: pd.DataFrame) -> Path:
    run = tmp_path / "k"
    run.mkdir()
    shutil.copy(SAMPLE_RUN / "run.json", run / "run.json")
    kernels.to_csv(run / "kernels.csv", index=False)
    return run


@pytest.mark.parametrize("command", ["report", "roofline"])
def test_kernels_table_without_duration(tmp_path, command):
    kernels = pd.read_parquet(SAMPLE_RUN / "kernels.parquet").drop(columns="duration_ns")
    run = kernels_run(tmp_path, kernels)
    args = ["report", run, "-o", tmp_path / "o"] if command == "report" else ["roofline", run, "-o", tmp_path / "r.png"]
    message = error_of(invoke(*args))
    assert "no column 'duration_ns'" in message and "kernels.csv" in message


@pytest.mark.parametrize("command", ["report", "roofline"])
def test_kernels_table_with_strings(tmp_path, command):
    kernels = pd.read_parquet(SAMPLE_RUN / "kernels.parquet")
    kernels["duration_ns"] = kernels["duration_ns"].astype(object)
    kernels.loc[kernels.index[1], "duration_ns"] = "fast"
    run = kernels_run(tmp_path, kernels)
    args = ["report", run, "-o", tmp_path / "o"] if command == "report" else ["roofline", run, "-o", tmp_path / "r.png"]
    message = error_of(invoke(*args))
    assert "column 'duration_ns' holds a non-number ('fast' in row 2)" in message


def test_truncated_parquet_names_the_file(tmp_path):
    run = kernels_run(tmp_path, pd.read_parquet(SAMPLE_RUN / "kernels.parquet").head(2))
    data = (SAMPLE_RUN / "kernels.parquet").read_bytes()
    (run / "kernels.parquet").write_bytes(data[: len(data) // 2])
    message = error_of(invoke("roofline", run, "-o", tmp_path / "r.png"))
    assert str(run / "kernels.parquet") in message and "cannot be read" in message


def test_parquet_text_that_is_not_utf8_names_the_file(tmp_path):
    """pyarrow reads such a column without complaint and fails on its first use, inside the
    analysis; reading the table must be where it fails."""
    from profiler.runs.schema import read_frame

    path = tmp_path / "bench.parquet"
    pd.DataFrame({"kernel": ["naive", "smem"], "time_ms": [1.0, 2.0]}).to_parquet(path, compression=None, write_statistics=False)
    data = path.read_bytes()
    assert data.count(b"naive") == 1  # uncompressed, no statistics: the value lies in the file once, as it is
    path.write_bytes(data.replace(b"naive", b"\xffaive"))
    with pytest.raises(GemmprofError, match="bench.parquet cannot be read"):
        read_frame(path)


def test_empty_csv_names_the_file(tmp_path):
    run = kernels_run(tmp_path, pd.DataFrame())
    (run / "kernels.csv").write_text("")
    message = error_of(invoke("roofline", run, "-o", tmp_path / "r.png"))
    assert message.startswith(f"{run / 'kernels.csv'} is empty")


def test_a_bad_profile_log_line_is_skipped_with_a_warning(tmp_path):
    run = tmp_path / "p"
    shutil.copytree(SAMPLE_RUN, run, ignore=shutil.ignore_patterns("ncu", "sass.parquet", "metrics.parquet"))
    lines = (run / "profile.jsonl").read_text().splitlines()
    lines.insert(1, '{"kernel": "naive", "report": ')
    lines.insert(3, '["not", "an", "object"]')
    (run / "profile.jsonl").write_text("\n".join(lines) + "\n")
    from profiler.errors import GemmprofWarning

    with pytest.warns(GemmprofWarning, match=r"profile.jsonl:(2|4)"):
        result = CliRunner().invoke(app, ["report", str(run), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "index.html").is_file()


def test_profile_log_reader_names_file_and_line(tmp_path):
    from profiler.errors import GemmprofWarning
    from profiler.runs.rundir import RunDir

    (tmp_path / "profile.jsonl").write_text('{"kernel": "a", "report": "ncu/a.ncu-rep"}\n{oops\n{"kernel": 5, "report": "x"}\n')
    with pytest.warns(GemmprofWarning) as caught:
        log = RunDir(tmp_path).read_profile_log()
    assert log["kernel"].tolist() == ["a"]
    messages = [str(w.message) for w in caught]
    assert any("profile.jsonl:2: not valid JSON" in m for m in messages)
    assert any("profile.jsonl:3: field 'kernel' must be a text" in m for m in messages)


def test_check_table_types_and_leaves_typed_columns_alone():
    typed = check_table("bench", BENCH, "b")
    assert typed["M"].dtype == BENCH["M"].dtype and typed["median_ms"].dtype == "float64"
    text = BENCH.head(2).astype(str)
    assert check_table("bench", text, "b")["median_ms"].dtype == "float64"  # '1.5' from a CSV of strings
    with pytest.raises(GemmprofError, match="must be above zero"):
        check_table("bench", BENCH.head(2).assign(median_ms=[-1.0, 1.0]), "b")
    with pytest.raises(GemmprofError, match="whole numbers"):
        check_table("bench", BENCH.head(2).assign(M=[1.5, 2.0]), "b")
    assert check_table("rules", pd.DataFrame({"x": ["a"]}), "r").equals(pd.DataFrame({"x": ["a"]}))


def test_check_run_meta_accepts_the_samples():
    for run in (SAMPLE_RUN, SAMPLE_RUN.parent / "sample-h200-fast"):
        check_run_meta(json.loads((run / "run.json").read_text()), str(run))
