"""render/fitted_table.py: a table gives way in order (notes to footnotes, then optional columns)
and never cuts a cell."""

import io

from rich.console import Console

from profiler.render.fitted_table import NAME, NOTE, NUMBER, filled_table


def printed(table, width: int) -> str:
    console = Console(record=True, width=width, file=io.StringIO())
    console.print(table)
    return console.export_text()


def table():
    rows = [["alpha -> beta", "12,345", "0.5%", "a note that is long enough to need a line of its own"],
            ["gamma", "678", "1.5%", "a note that is long enough to need a line of its own"],
            ["delta", "9", "", ""]]
    return filled_table("t", [("name", NAME), ("rate", NUMBER), ("spread", NUMBER), ("note", NOTE)], rows,
                        optional=("spread",))


def test_wide_enough_the_notes_stay_in_their_column():
    out = printed(table(), 120)
    assert out.count("a note that is long enough to need a line of its own") == 2 and "left out" not in out


def test_narrower_a_note_written_twice_becomes_one_footnote():
    out = printed(table(), 40)
    assert out.count("a note that is long enough") == 1 and "\n1  a note" in "\n" + out
    assert "spread" in out and "left out" not in out


def test_narrower_still_the_optional_column_goes_and_the_table_says_so():
    out = printed(table(), 22)
    assert "spread" not in out.split("left out")[0] and "0.5%" not in out
    assert "left out at this width (a wider COLUMNS shows them): spread" in " ".join(out.split())
    assert "12,345" in out and "alpha" in out and "beta" in out  # numbers and names whole
    assert max(len(line) for line in out.splitlines()) <= 22


def test_short_of_room_a_long_header_wraps_before_every_row_does():
    """A number column wide only for its header gives way first when that prints fewer lines:
    its header wraps once, where narrowing the widest (text) column would wrap every row."""
    rows = [[f"k{i}", str(i), "long scoreboard 1.2 and some more words"] for i in range(6)]
    t = filled_table("t", [("name", NAME), ("a header of many words", NUMBER), ("stall", NAME)], rows)
    out = printed(t, 62)
    assert all(f"k{i}" in line and "more words" in line for i, line in
               enumerate(line for line in out.splitlines() if line.lstrip("│ ").startswith("k")))
    assert max(len(line) for line in out.splitlines()) <= 62


def test_a_name_column_that_would_run_over_two_lines_lets_an_optional_column_go_first():
    rows = [["kernel", "12,345", "long scoreboard 1.2"]] * 3
    t = filled_table("t", [("name", NAME), ("DRAM MB", NUMBER), ("top stall", NAME)], rows, optional=("DRAM MB",))
    out = printed(t, 26)  # with DRAM MB: 'long / scoreboard / 1.2'
    assert "left out at this width (a wider COLUMNS shows them): DRAM MB" in " ".join(out.split())
    assert out.count("long scoreboard 1.2") == 3 and max(len(line) for line in out.splitlines()) <= 26
