"""Terminal tables (profiler.render.console) on the sample run, printed on rich consoles 80 and
200 columns wide: no cell is ever cut, tables fit the width where their numbers allow; and the
console factory's width rules."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from rich.console import Console

from helpers.paths import DATA, SAMPLE_RUN
from profiler.analyze.compare import compare_bench, compare_kernels
from profiler.render.console import bench_table, compare_metrics_table, compare_table, launch_summary_table
from profiler.render.fitted_table import FittedTable
from profiler.stall_table import explain


FAST = SAMPLE_RUN.parent / "sample-h200-fast"


def printed(table, width: int) -> str:
    console = Console(record=True, width=width, file=io.StringIO())
    console.print(table)
    return console.export_text()


def sample_tables():
    bench = pd.read_parquet(SAMPLE_RUN / "bench.parquet")
    kernels = pd.read_parquet(SAMPLE_RUN / "kernels.parquet")
    slower = bench.assign(median_ms=bench["median_ms"] * 1.1, gflops=bench["gflops"] / 1.1)
    fast_kernels = pd.read_parquet(FAST / "kernels.parquet")
    skipped = bench.head(3).assign(status=["SKIP", "FAIL", "PASS"],
                                   reason=["contract: M must be a multiple of 128 (got 1000)", "max error 3e-2", None])
    return {
        "bench": bench_table(bench, "NVIDIA H200: SGEMM ladder vs cuBLAS"),
        "bench with notes": bench_table(skipped, "notes"),
        "compare": compare_table(compare_bench(bench, slower, 0.03), "sample-h200 -> 10% slower"),
        "compare metrics": compare_metrics_table(compare_kernels(kernels, fast_kernels), 0.03),
        "launches": launch_summary_table(kernels, "reports/sample-h200"),
    }


@pytest.mark.parametrize("width", [80, 200])
def test_no_cell_is_cut_and_every_line_fits(width):
    bench = pd.read_parquet(SAMPLE_RUN / "bench.parquet")
    for name, table in sample_tables().items():
        out = printed(table, width)
        assert "…" not in out, (name, out)
        assert max(len(line) for line in out.splitlines()) <= width, (name, out)
        if name == "bench":  # every number whole, on one line
            for value in bench["gflops"].dropna():
                assert f"{value:,.0f}" in out, (value, out)
            for shape in {f"{m}x{n}x{k}" for m, n, k in bench[["M", "N", "K"]].itertuples(index=False)}:
                assert shape in out


def test_layout_follows_the_width():
    tables = sample_tables()
    wide = printed(tables["bench"], 200)
    assert "┃" in wide and "cutlass128x128x8" in wide  # the full table, names whole
    narrow = printed(tables["bench"], 80)  # numbers fit side by side once borders go
    header = " ".join(narrow.splitlines()[1:4])  # a header may wrap onto a second line
    assert "┃" not in narrow and "─" in narrow and "GFLOP/s" in header
    blocks = printed(tables["compare"], 80)  # eight numeric columns do not: one block per row
    assert "\nkernel " in "\n" + blocks and "cublas-fp16" in blocks and "cutlass128x256x8" in blocks
    assert "base ms (p10–p90)" in blocks and "0.00736 (0.007197–0.00768)" in blocks
    assert "┃" in printed(tables["compare"], 200)


def test_status_words_stay_whole_in_a_log():
    skipped = pd.read_parquet(SAMPLE_RUN / "bench.parquet").head(3).assign(
        status=["SKIP", "FAIL", "PASS"],
        reason=["contract: M must be a multiple of 128 (got 1000) and some more words", "max error 3e-2", None])
    for width in (80, 120):
        words = printed(bench_table(skipped), width).split()
        assert {"SKIP", "FAIL", "PASS"} <= set(words)
        assert "note" in words  # the reasons have a column of their own, which wraps


def test_column_widths_narrow_the_widest_first():
    table = FittedTable(box=None, padding=(0, 0), show_header=False)
    table.add_column(min_width=4)  # a number column: 4 at least
    table.add_column(min_width=3)  # a text column
    table.add_row("1234", "abcdefghij")
    assert table.column_widths(20) is None  # fits as it is
    assert table.column_widths(10) == [4, 6]  # only the text column gives way
    assert table.column_widths(7) == [4, 3]
    assert table.column_widths(6) is None and table.least_width() == 7


NOTES = ["context, not verified as fp32-tc: relative error 2.93e-04 > tolerance 7.6e-06",
         "expected (the manifest says this rung fails the fp32-tc bound): relative error 2.94e-04 > tolerance 1.1e-05",
         "contract: M must be a multiple of 128 (got 1000)"]


@pytest.mark.parametrize("width", [80, 100, 120, 200])
def test_bench_notes_never_wrap_word_by_word(width):
    """A CI log at 100 columns once printed each note one word per line; a note now stays on one
    line in its column or goes below the table, numbered, and every number stays whole."""
    bench = pd.read_parquet(SAMPLE_RUN / "bench.parquet").head(4)
    rows = bench.assign(status=["CONTEXT", "FAIL", "SKIP", "PASS"], reason=[*NOTES, None])
    out = printed(bench_table(rows, "notes"), width)
    assert "…" not in out and max(len(line) for line in out.splitlines()) <= width, out
    for note in NOTES:
        assert " ".join(note.split()[:6]) in out, (note, out)  # the start of every note on one line
    for value in bench["gflops"].head(1):  # the CONTEXT row is timed: its rate is whole
        assert f"{value:,.0f}" in out, out
    lines = out.splitlines()
    body = next(i for i, line in enumerate(lines) if "──" in line or "━━" in line)  # below the header
    one_word = [line for line in lines[body:] if len(line.split()) == 1 and any(ch.isalnum() for ch in line)]
    assert not one_word, out  # no line holding a lone word: nothing wrapped word by word


def test_narrow_bench_tables_number_their_notes_and_say_what_they_left_out():
    bench = pd.read_parquet(SAMPLE_RUN / "bench.parquet").head(2).assign(status=["CONTEXT", "FAIL"], reason=NOTES[:2])
    narrow = printed(bench_table(bench, "notes"), 80)
    assert "\n1  " + NOTES[0] in "\n" + narrow and "\n2  expected (the manifest" in "\n" + narrow
    assert "left out at this width (a wider COLUMNS shows them): CV, error fp64" in narrow
    assert "% of" in narrow and "GFLOP/s" in narrow  # the row's own numbers stay
    wide = printed(bench_table(bench, "notes"), 200)
    assert NOTES[0] in wide and "left out" not in wide  # room enough: notes in their column


def test_bench_table_times_context_rows_and_shows_the_fp64_error():
    from rich.console import Console

    from profiler.render.console import bench_table

    rows = pd.DataFrame([
        {"kernel": "cublas-tf32", "tier": "fp32-tc", "M": 1024, "N": 1024, "K": 1024, "status": "CONTEXT",
         "reason": "context, not verified as fp32-tc: relative error 2.9e-04 > tolerance 7.6e-06", "median_ms": 0.0123,
         "cv": 0.01, "gflops": 174000.0, "pct_of_cublas": 700.0, "pct_of_peak": 33.0, "error": 2.9e-4, "error_fp64": 3.1e-4},
        {"kernel": "tf32x1", "tier": "fp32-tc", "M": 1024, "N": 1024, "K": 1024, "status": "FAIL",
         "reason": "expected: relative error", "error": 3.0e-4, "error_fp64": 3.2e-4},
        {"kernel": "tf32x3", "tier": "fp32-tc", "M": 1024, "N": 1024, "K": 1024, "status": "PASS", "median_ms": 0.0456,
         "cv": 0.01, "gflops": 47000.0, "pct_of_cublas": 150.0, "pct_of_peak": 9.0, "error": 1.1e-7, "error_fp64": None},
    ])
    console = Console(width=250, record=True)
    console.print(bench_table(rows))
    lines = {line.split()[1]: line for line in console.export_text().splitlines() if line.startswith("│ ")}
    assert "0.0123" in lines["cublas-tf32"] and "CONTEXT" in lines["cublas-tf32"] and "3.1e-04" in lines["cublas-tf32"]
    assert "3.2e-04" in lines["tf32x1"] and "FAIL" in lines["tf32x1"] and "0.0" not in lines["tf32x1"].split("│")[3]
    assert "0.0456" in lines["tf32x3"] and "1.1e-07" in lines["tf32x3"]


def test_terminal_tables_print_names_literally():
    from rich.console import Console

    from profiler.render.console import bench_table, compare_table

    names = ["foo[abi:cxx11]", "[/bold]x", "[red]y[/red]", "a\\"]
    bench = pd.DataFrame({"kernel": names, "M": 64, "N": 64, "K": 64, "status": "FAIL", "reason": "[/] bad",
                          "error": 1.0, "median_ms": float("nan"), "cv": float("nan")})
    nan = float("nan")
    cmp = pd.DataFrame([{"kernel": n, "M": 64, "N": 64, "K": 64, "verdict": "broken", "status_base": "PASS",
                         "status_new": "[b]FAIL", "base_ms": nan, "base_p10_ms": nan, "base_p90_ms": nan,
                         "new_ms": nan, "new_p10_ms": nan, "new_p90_ms": nan, "time_change": nan,
                         "base_gflops": nan, "new_gflops": nan, "gflops_change": nan} for n in names])
    for table in (bench_table(bench, title="[bold]GPU [x]"), compare_table(cmp, "[/]a -> b")):
        console = Console(record=True, width=250)
        console.print(table)
        out = console.export_text()
        for n in names:
            assert n in out, out
        assert "[/] bad" in out or "[b]FAIL" in out


@pytest.mark.parametrize("width", [80, 120, 200])
def test_analyze_summary_never_breaks_a_name_or_a_stall_inside_a_word(width):
    """At 80 columns `analyze` once printed 'coales/ced' and 'lg_thro/ttle': names and stalls
    (in the report's words, 'LG throttle') break only between words, and occupancy and
    conflicts give way first."""
    from profiler.analyze.roofline import kernel_names

    kernels = pd.read_parquet(SAMPLE_RUN / "kernels.parquet")
    out = printed(launch_summary_table(kernels, "sample"), width)
    assert max(len(line) for line in out.splitlines()) <= width, out
    words = out.split()
    for name in kernel_names(kernels):
        assert name[:48] in words or name[:45] + "..." in words, (name, out)
    for stall in kernels["top_stall"].dropna().unique():
        assert all(word in words for word in explain(stall).label.split()), (stall, out)
    if width == 80:
        assert "left out at this width (a wider COLUMNS shows them): occupancy" in out
    if width == 200:
        assert "occupancy" in out.splitlines()[2] and "left out" not in out  # in the header, nothing left out


@pytest.mark.ncu
def test_analyze_summary_of_a_small_run_at_80_columns_breaks_no_word():
    """profile-h200 (five launches at 512x256x128, each with an occupancy limiter) printed
    'occupa/ncy' and 'regis/ters' at 80 columns, then three lines a launch: now no word breaks,
    and the occupancy column (the first a narrow summary leaves out) goes before a stall name
    runs over two lines."""
    from profiler.extract.tables import read_reports

    kernels = read_reports([DATA / "profile-h200"], ["kernels"])["kernels"]
    out = printed(launch_summary_table(kernels, "profile-h200", launch_numbers=False), 80)  # as analyze prints it
    words = out.split()
    assert max(len(line) for line in out.splitlines()) <= 80, out
    assert all(word in words for word in ("LG", "MIO", "throttle", "long", "scoreboard")), out
    assert "left out at this width (a wider COLUMNS shows them): occupancy" in out, out
    body = out.split("─" * 80)[1].splitlines()[1:]  # under the header rule
    starts = [i for i, line in enumerate(body) if line.split() and line.split()[0] in set(kernels["kernel_key"])]
    assert len(starts) == 5 and all(b - a <= 2 for a, b in zip(starts, starts[1:])), out
    wide = printed(launch_summary_table(kernels, "profile-h200", launch_numbers=False), 200)
    assert "(registers," in wide.split() and "left out" not in wide
