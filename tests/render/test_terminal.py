"""The console every command prints on and the progress bar of a work list
(profiler.render.terminal): the width a command prints at, and a bar that says where it is."""

from __future__ import annotations

import io

from rich.console import Console

from profiler.render.terminal import LOG_WIDTH, make_console, progress_bar


def test_make_console_widths(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert make_console().width == 80 and make_console(stderr=True).width == 80
    monkeypatch.setenv("COLUMNS", "200")
    assert make_console().width == 200
    monkeypatch.delenv("COLUMNS")
    console = make_console()  # under pytest stdout is captured: a pipe, as in a CI log
    assert console.is_terminal or console.width == LOG_WIDTH
    monkeypatch.setenv("COLUMNS", "wide")  # nonsense is ignored
    assert make_console().width == LOG_WIDTH or make_console().is_terminal
    assert make_console(stderr=True).stderr


def test_the_progress_bar_says_what_it_is_at_done_of_total():
    out = io.StringIO()
    with progress_bar(Console(file=out, width=100, force_terminal=False)) as bar:
        task = bar.add_task("[2/3] vectorized under ncu", total=3)
        bar.advance(task, 2)
        bar.refresh()
    text = out.getvalue()
    assert "[2/3] vectorized under ncu" in text and "2/3" in text.replace("[2/3]", "")
