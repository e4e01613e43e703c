"""The one console every command prints on, and the progress bar of a work list. Kept apart
from the tables (`console`), which need pandas: a command's first line should not wait for it."""

from __future__ import annotations

import os

from rich.console import Console

# A pipe or a CI log has no width of its own: rich would assume 80 (wrapping wide tables needlessly)
# and a fixed 200 is wider than logs are read in.
LOG_WIDTH = 120


def make_console(stderr: bool = False) -> Console:
    """The console every command prints on: COLUMNS when set (the user's or the CI's choice, in
    a pipe too), else a terminal's own width, else LOG_WIDTH."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return Console(stderr=stderr, width=int(columns))
    console = Console(stderr=stderr)
    return console if console.is_terminal else Console(stderr=stderr, width=LOG_WIDTH)


def progress_bar(console: Console):
    """The progress bar of a command's work list (bench's rows, profile's reports, build's
    kernels): what it is at, a bar, done of total, time so far. Lines printed through its
    console (`progress.console.print`, one a finished item) scroll above it."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console)
