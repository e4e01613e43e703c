"""Fuzz and hostility suite (hypothesis): random and corrupted run.json, bench and kernels tables,
profile.jsonl lines and manifests fed to the commands that need no GPU (compare, report, dispatch,
roofline) and to the manifest parser. The property: the command ends with an exit code of its
documented set and a GemmprofError (one line) at worst, never a traceback.

Kept small (max_examples modest, no deadline) so the whole file runs in well under a minute.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from helpers.paths import SAMPLE_RUN
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from profiler.cli import app
from profiler.errors import GemmprofError
from profiler.catalogue.dispatchers import parse_dispatchers
from profiler.catalogue.expressions import evaluate
from profiler.catalogue.kernel_paths import MANIFEST_PATH
from profiler.catalogue.manifest import load_manifest
from profiler.catalogue.manifest_parse import parse_manifest

FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
# `report` renders charts (about a second a run): few examples, and no shrinking of a failure.
SLOW = settings(FUZZ, phases=(Phase.explicit, Phase.reuse, Phase.generate))

# Exit codes each command documents: compare 0/1 (regression)/2 (usage)/3 (run not trusted);
# the others 0, or 2 for a GemmprofError.
EXITS = {"compare": {0, 1, 2, 3}, "report": {0, 2}, "dispatch": {0, 2}, "roofline": {0, 2}}

META = json.loads((SAMPLE_RUN / "run.json").read_text())
BENCH = pd.read_parquet(SAMPLE_RUN / "bench.parquet")
SMALL_BENCH = BENCH[BENCH["kernel"].isin(["cublas", "naive", "smem"])].reset_index(drop=True)
KERNELS = pd.read_parquet(SAMPLE_RUN / "kernels.parquet").head(3)


def run_cli(command: str, *args) -> int:
    """Exit code of `gemmprof COMMAND ARGS` in process; fails on anything but a clean exit or a
    GemmprofError (what `main` prints as one line)."""
    result = CliRunner().invoke(app, [command, *map(str, args)])
    exc = result.exception
    if isinstance(exc, GemmprofError):
        code = exc.exit_code
        assert "\n" not in exc.message, exc.message
    elif exc is None or isinstance(exc, SystemExit):
        code = result.exit_code
    else:
        raise AssertionError(f"gemmprof {command} raised {exc!r}\n{result.output}") from exc
    assert "Traceback" not in result.output
    assert code in EXITS[command], (code, result.output)
    return code


# --- values -------------------------------------------------------------------------------------

json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                         st.floats(allow_nan=False), st.text(max_size=20))
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=12)
cells = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(),
                  st.sampled_from(["", "nan", "inf", "-1", "0", "PASS", "FAIL", "SKIP", "1e400", "abc", "[/bold]x"]),
                  st.text(max_size=12))


@st.composite
def run_json(draw) -> bytes:
    """A run.json: the sample's with fields replaced, removed or added, or any JSON value, or bytes."""
    kind = draw(st.sampled_from(["mutate", "mutate", "mutate", "any", "bytes"]))
    if kind == "bytes":
        return draw(st.binary(max_size=200))
    if kind == "any":
        return json.dumps(draw(json_values)).encode()
    meta = json.loads(json.dumps(META))
    for _ in range(draw(st.integers(1, 4))):
        where = meta if draw(st.booleans()) or not isinstance(meta.get("environment"), dict) else meta["environment"]
        key = draw(st.sampled_from(sorted(where) + ["extra"]))
        if draw(st.booleans()):
            where.pop(key, None)
        else:
            where[key] = draw(json_values)
    text = json.dumps(meta)
    if draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]  # cut short
    return text.encode()


@st.composite
def mutated_table(draw, base: pd.DataFrame) -> pd.DataFrame:
    """`base` with columns dropped, cells replaced by hostile values, or rows removed."""
    frame = base.copy()
    for _ in range(draw(st.integers(1, 4))):
        action = draw(st.sampled_from(["cell", "cell", "column", "drop", "rows"]))
        column = draw(st.sampled_from(list(frame.columns))) if len(frame.columns) else None
        if column is None:
            break
        if action == "drop":
            frame = frame.drop(columns=column)
        elif action == "rows":
            frame = frame.head(draw(st.integers(0, len(frame))))
        elif len(frame):
            frame[column] = frame[column].astype(object)
            if action == "column":
                frame[column] = draw(cells)
            else:
                frame.loc[frame.index[draw(st.integers(0, len(frame) - 1))], column] = draw(cells)
    return frame


def write_table(frame: pd.DataFrame, path: Path, fmt: str) -> None:
    if fmt == "csv":
        frame.to_csv(path.with_suffix(".csv"), index=False)
        return
    try:
        frame.to_parquet(path.with_suffix(".parquet"), index=False)
    except Exception:  # mixed object columns parquet cannot store: as text, as a CSV would
        frame.astype(str).to_parquet(path.with_suffix(".parquet"), index=False)


def corrupt(path: Path, data: st.DataObject) -> None:
    """Cut a file short or overwrite some of its bytes."""
    raw = bytearray(path.read_bytes())
    if data.draw(st.booleans()):
        del raw[data.draw(st.integers(0, len(raw))):]
    else:
        for _ in range(data.draw(st.integers(1, 8))):
            if raw:
                raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    path.write_bytes(bytes(raw))


def make_run(meta: bytes | None = None, bench: pd.DataFrame | None = SMALL_BENCH, fmt: str = "csv",
             kernels: pd.DataFrame | None = None, profile_log: str | None = None) -> Path:
    root = Path(tempfile.mkdtemp(prefix="gemmprof-fuzz-"))
    run = root / "run"
    run.mkdir()
    (run / "run.json").write_bytes(meta if meta is not None else json.dumps(META).encode())
    if bench is not None:
        write_table(bench, run / "bench", fmt)
    if kernels is not None:
        write_table(kernels, run / "kernels", fmt)
    if profile_log is not None:
        (run / "profile.jsonl").write_text(profile_log)
    return run


@pytest.fixture(autouse=True)
def _clean_temporary_runs():
    yield
    for folder in Path(tempfile.gettempdir()).glob("gemmprof-fuzz-*"):
        shutil.rmtree(folder, ignore_errors=True)


# --- run.json -----------------------------------------------------------------------------------


@settings(FUZZ, max_examples=60)
@given(meta=run_json(), base_side=st.booleans())
def test_compare_survives_any_run_json(meta, base_side):
    run = make_run(meta)
    pair = (run, SAMPLE_RUN) if base_side else (SAMPLE_RUN, run)
    code = run_cli("compare", *pair)
    if code == 0:  # only a run.json that still checks out can pass
        assert json.loads(meta)["schema_version"] == 1


@settings(FUZZ, max_examples=40)
@given(meta=run_json())
def test_dispatch_survives_any_run_json(meta):
    run_cli("dispatch", make_run(meta))


@settings(SLOW, max_examples=6)
@given(meta=run_json())
def test_report_survives_any_run_json(meta):
    run = make_run(meta)
    run_cli("report", run, "-o", run / "out")


# --- bench tables -------------------------------------------------------------------------------


@settings(FUZZ, max_examples=60)
@given(bench=mutated_table(SMALL_BENCH), fmt=st.sampled_from(["csv", "parquet"]), base_side=st.booleans())
def test_compare_survives_mutated_bench_tables(bench, fmt, base_side):
    run = make_run(bench=bench, fmt=fmt)
    run_cli("compare", *((run, SAMPLE_RUN) if base_side else (SAMPLE_RUN, run)))


@settings(FUZZ, max_examples=30)
@given(data=st.data(), fmt=st.sampled_from(["csv", "parquet"]), which=st.sampled_from(["bench", "run.json"]))
def test_compare_survives_corrupted_files(data, fmt, which):
    run = make_run(fmt=fmt)
    corrupt(run / ("run.json" if which == "run.json" else f"bench.{fmt}"), data)
    run_cli("compare", SAMPLE_RUN, run)


@settings(FUZZ, max_examples=25)
@given(bench=mutated_table(SMALL_BENCH), fmt=st.sampled_from(["csv", "parquet"]))
def test_dispatch_survives_mutated_bench_tables(bench, fmt):
    run_cli("dispatch", make_run(bench=bench, fmt=fmt))


@settings(SLOW, max_examples=6)
@given(bench=mutated_table(SMALL_BENCH), fmt=st.sampled_from(["csv", "parquet"]))
def test_report_survives_mutated_bench_tables(bench, fmt):
    run = make_run(bench=bench, fmt=fmt)
    run_cli("report", run, "-o", run / "out")


# --- kernels tables -----------------------------------------------------------------------------


@settings(FUZZ, max_examples=10)
@given(kernels=mutated_table(KERNELS), fmt=st.sampled_from(["csv", "parquet"]))
def test_roofline_survives_mutated_kernels_tables(kernels, fmt):
    run = make_run(bench=None, kernels=kernels, fmt=fmt)
    run_cli("roofline", run, "-o", run / "r.png")


@settings(SLOW, max_examples=3)
@given(kernels=mutated_table(KERNELS))
def test_report_survives_mutated_kernels_tables(kernels):
    run = make_run(bench=None, kernels=kernels)
    run_cli("report", run, "-o", run / "out")


# --- profile.jsonl ------------------------------------------------------------------------------

log_lines = st.one_of(st.text(max_size=40).filter(lambda s: "\n" not in s and "\r" not in s),
                      json_values.map(json.dumps),
                      st.fixed_dictionaries({"kernel": json_values, "report": json_values, "status": json_values}).map(json.dumps))


@settings(FUZZ, max_examples=60)
@given(lines=st.lists(log_lines, max_size=6))
def test_profile_log_reader_survives_any_lines(lines):
    import warnings

    from profiler.runs.rundir import RunDir

    run = make_run(profile_log="\n".join(lines) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        log = RunDir(run).read_profile_log()
    assert log is not None and (log.empty or {"kernel", "report"} <= set(log.columns))


@settings(SLOW, max_examples=3)
@given(lines=st.lists(log_lines, min_size=1, max_size=4))
def test_report_survives_a_hostile_profile_log(lines):
    run = make_run(profile_log="\n".join(lines) + "\n")
    run_cli("report", run, "-o", run / "out")


# --- manifests ----------------------------------------------------------------------------------

LADDER = MANIFEST_PATH.read_text()
LADDER_LINES = LADDER.splitlines()
toml_values = st.one_of(st.integers(-10, 10**6), st.booleans(), st.floats(allow_nan=False, allow_infinity=False),
                        st.sampled_from(['"M"', '"cdiv(M, 0)"', '"(M"', '"' + "+".join(["M"] * 1500) + '"', "[]",
                                         "[1, 2, 3, 4]", '["M", "N"]', "{}", '{M = "x"}', '"M // (N - 1024)"', '"__import__"']),
                        st.text(max_size=10).map(json.dumps))


@st.composite
def manifests(draw) -> str:
    """The real ladder with lines removed, or values replaced by hostile ones."""
    lines = list(LADDER_LINES)
    for _ in range(draw(st.integers(1, 5))):
        i = draw(st.integers(0, len(lines) - 1))
        if draw(st.booleans()) or "=" not in lines[i]:
            del lines[i]
        else:
            key = lines[i].split("=", 1)[0]
            lines[i] = f"{key}= {draw(toml_values)}"
    return "\n".join(lines) + "\n"


@settings(FUZZ, max_examples=150)
@given(text=manifests())
def test_manifest_parser_raises_only_one_line_errors(text):
    try:
        kernels = parse_manifest(text)
        parse_dispatchers(text, kernels)
    except GemmprofError as exc:
        assert "\n" not in exc.message.strip() or "TOML" in exc.message  # tomllib's message may span lines


expression_tokens = st.sampled_from(["M", "N", "K", "1", "0", "32", "+", "-", "*", "//", "%", "(", ")", ",", "cdiv",
                                     "min", "max", "<", "<=", "==", "and", "or", " ", "**", "x", "lambda", "."])


@settings(FUZZ, max_examples=300)
@given(tokens=st.lists(expression_tokens, max_size=40), shape=st.tuples(*[st.integers(1, 4096)] * 3))
def test_evaluate_fails_only_with_value_error(tokens, shape):
    try:
        value = evaluate("".join(tokens), *shape)
    except ValueError:
        return
    assert isinstance(value, int)


def test_the_real_manifest_still_parses():
    assert parse_manifest(LADDER) and load_manifest()
    assert not math.isnan(len(parse_dispatchers(LADDER, parse_manifest(LADDER))))
