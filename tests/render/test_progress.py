"""A workflow's progress on a rich console (profiler.render.progress): lines and tables printed
as given, a bar's lines above it, and no question without a terminal."""

import io

from rich.console import Console
from rich.table import Table

from profiler.render.progress import ConsoleProgress


def recording() -> tuple[ConsoleProgress, io.StringIO]:
    out = io.StringIO()
    return ConsoleProgress(Console(file=out, width=100, force_terminal=False)), out


def test_lines_tables_and_a_bar_print_in_order():
    progress, out = recording()
    progress.say("[bold]bold[/] [x]", markup=False)
    table = Table("kernel")
    table.add_row("naive")
    progress.show(table)
    with progress.working("compiling") as say:
        say("still compiling")
    with progress.bar("bench", 2) as bar:
        bar.advance("naive 64x64x64 PASS")
        bar.say("  a finished item")
        bar.advance()
    text = out.getvalue()
    assert text.index("[bold]bold[/] [x]") < text.index("naive") < text.index("a finished item")


def test_no_terminal_no_question():
    progress, out = recording()
    assert progress.ask("Profile every launch?", "many launches") is None
    assert out.getvalue() == ""
