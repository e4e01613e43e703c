"""Fit a terminal table to the width it gets without cutting a cell.

Numeric and status columns never wrap and are as wide as their longest value (a cut "204…" reads
as a wrong number); name columns break only between words; free text wraps. Short of room a
table gives way in this order: text columns narrow (widest first), notes move below the table
as numbered footnotes (a note wrapped one word per line reads as noise), the borders go, the
columns the table marks optional drop out (the table says which) while a name or text cell
would run over TEXT_LINES lines, and at last each row prints as a block of 'header  value'
lines."""

from __future__ import annotations

import copy
import dataclasses

from rich import box
from rich.markup import escape
from rich.table import Table
from rich.text import Text

# Column kinds: a number (right-aligned; may break only at a space, as between a median and its
# spread), a status word (never wrapped), a name (breaks between words only, e.g. a kernel and
# the rule that chose it), free text (wraps, long words fold), a note (free text that goes below
# the table as a footnote when it cannot stay on one line).
NUMBER, STATUS, NAME, TEXT, NOTE = "number", "status", "name", "text", "note"
TEXT_LEAST = 6  # the narrowest a text column is worth squeezing to before rows print as blocks
TEXT_LINES = 2  # a name or text cell over more lines than this: an optional column goes first, if one can


def cell_width(cell: str) -> int:
    return Text.from_markup(cell).cell_len


def longest_word(cell: str) -> int:
    return max((len(word) for word in Text.from_markup(cell).plain.split()), default=0)


class FittedTable(Table):
    """A rich Table that never loses a cell (module docstring). `notes` is the index of its
    note column (or None); `optional` the indices of the columns it may leave out, first
    dropped first."""

    notes: int | None = None
    optional: tuple[int, ...] = ()
    wrapping: frozenset = frozenset()  # the columns whose cells wrap (NAME, TEXT), by header

    def _frame_width(self) -> int:
        edges = (2 if self.show_edge else 0) + len(self.columns) - 1 if self.box else 0
        return edges + sum(self._get_padding_width(i) for i in range(len(self.columns)))

    def least_width(self) -> int:
        """The width below which some cell would have to be cut (text columns at TEXT_LEAST)."""
        return sum(c.min_width or TEXT_LEAST for c in self.columns) + self._frame_width()

    def column_widths(self, max_width: int) -> list[int] | None:
        """Widths (without padding) that fit `max_width`: each column's natural width, the widest
        narrowed first; None when the table fits as it is or cannot fit at all."""
        room = max_width - self._frame_width()
        widths = [natural_width(c) for c in self.columns]
        least = [min(c.min_width or TEXT_LEAST, w) for c, w in zip(self.columns, widths)]
        if sum(widths) <= room or sum(least) > room:
            return None
        cells = [natural_width(c, header=False) for c in self.columns]
        # Two ways to give way: the widest column first; or first the columns wider than their
        # cells only for their header (a wrapped header costs one line, a wrapped cell one a
        # row). The one that prints fewer lines wins; a tie keeps the first.
        ways = [lambda k: (widths[k] > least[k], widths[k]),
                lambda k: (widths[k] > least[k], widths[k] > cells[k], widths[k])]
        best = None
        for way in ways:
            widths = [natural_width(c) for c in self.columns]
            while sum(widths) > room:
                widths[max(range(len(widths)), key=way)] -= 1
            if best is None or self.printed_lines(widths) < self.printed_lines(best):
                best = widths
        return best

    def printed_lines(self, widths: list[int]) -> int:
        """About how many lines the table takes at `widths`: its header's and each row's tallest cell."""
        def tallest(cells) -> int:
            return max([wrapped_lines(str(cell), w) for cell, w in zip(cells, widths)], default=1)

        rows = zip(*(list(c.cells) for c in self.columns))
        return tallest(c.header for c in self.columns) + sum(tallest(row) for row in rows)

    def compact(self) -> FittedTable:
        """The same table with one space between columns and no outer border."""
        table = copy.copy(self)
        table.box, table.show_edge, table.padding = box.SIMPLE_HEAD, False, (0, 0, 0, 0)
        return table

    def __rich_console__(self, console, options):
        if not self.columns or not self.rows:
            yield from super().__rich_console__(console, options)
            return
        fallback = None  # the first that fits, though a text cell runs over TEXT_LINES lines
        for table, below in self.variants():
            for styled in (table, table.compact()):
                if styled.least_width() > options.max_width:
                    continue
                widths = styled.column_widths(options.max_width)
                if widths is not None:
                    styled = copy.copy(styled)
                    styled.columns = [dataclasses.replace(c, width=w) for c, w in zip(styled.columns, widths)]
                if widths is None or styled.text_lines(widths) <= TEXT_LINES:
                    yield from Table.__rich_console__(styled, console, options)
                    yield from below
                    return
                fallback = fallback or (styled, below)
        if fallback is not None:
            yield from Table.__rich_console__(fallback[0], console, options)
            yield from fallback[1]
            return
        yield from self._as_blocks()

    def text_lines(self, widths: list[int]) -> int:
        """The most lines a cell of a name or text column takes at `widths`."""
        return max([wrapped_lines(str(cell), widths[i]) for i, c in enumerate(self.columns)
                    if c.header in self.wrapping for cell in c.cells], default=1)

    def variants(self):
        """(table, lines printed below it), best first: the notes in their column, each on one
        line; the notes as footnotes; then without the optional columns, one more each time."""
        if self.notes is not None:
            column = self.columns[self.notes]
            yield self._with_columns([dataclasses.replace(c, min_width=natural_width(c)) if c is column else c
                                      for c in self.columns]), []
        table, below = self._footnoted()
        yield table, below
        left_out = []
        for i in self.optional:
            left_out.append(str(self.columns[i].header))
            keep = [c for k, c in enumerate(table.columns) if self.columns[k].header not in left_out]
            yield table._with_columns(keep), [*below, Text(f"left out at this width (a wider COLUMNS shows them): {', '.join(left_out)}", style="dim")]

    def _with_columns(self, columns) -> FittedTable:
        table = copy.copy(self)
        table.columns = columns
        return table

    def _footnoted(self) -> tuple[FittedTable, list]:
        """The table with each note replaced by a number, and the numbered notes (a note written
        more than once is numbered once)."""
        if self.notes is None:
            return self, []
        column = self.columns[self.notes]
        keys: dict[str, str] = {}
        for cell in column.cells:
            if cell:
                keys.setdefault(cell, str(len(keys) + 1))
        markers = [keys.get(cell, "") for cell in column.cells]
        least = max([longest_word(str(column.header)), *map(len, markers)])
        marked = dataclasses.replace(column, _cells=markers, min_width=least, overflow="fold", no_wrap=True)
        notes = Table.grid(padding=(0, 2))  # a note that wraps stays indented beside its number
        notes.add_column(justify="right", no_wrap=True)
        notes.add_column(overflow="fold")
        for note, key in keys.items():
            notes.add_row(key, note)
        return self._with_columns([marked if c is column else c for c in self.columns]), [notes] if keys else []

    def _as_blocks(self):
        if self.title:
            yield Text.from_markup(self.title, style="italic") if isinstance(self.title, str) else self.title
        headers = [str(c.header) for c in self.columns]
        for cells in zip(*(list(c.cells) for c in self.columns)):
            block = Table.grid(padding=(0, 2))
            block.add_column(style="bold", no_wrap=True)
            block.add_column(overflow="fold")
            for header, cell in zip(headers, cells):
                block.add_row(escape(header), cell)
            yield block
            yield Text("")


def wrapped_lines(cell: str, width: int) -> int:
    """How many lines `cell` takes wrapped at `width` (words longer than the width fold)."""
    lines, used = 1, 0
    for word in Text.from_markup(cell).plain.split():
        size = len(word)
        if used and used + 1 + size > width:
            lines, used = lines + 1, 0
        if size > width:
            lines += (size - 1) // width
            used = size % width or width
        else:
            used += size + (1 if used else 0)
    return lines


def natural_width(column, header: bool = True) -> int:
    """A column's width with no cell wrapped: its widest cell or (with `header`) header."""
    return max([cell_width(str(column.header)) if header else 0] + [cell_width(x) if isinstance(x, str) else 0 for x in column.cells])


def filled_table(title: str, columns: list[tuple[str, str]], rows: list[list[str]], optional: tuple[str, ...] = (),
                 **options) -> FittedTable:
    """A table of `columns` ((header, kind) pairs) and `rows` (rich markup cells) whose cells are
    never cut: number columns break only at spaces, name columns only between words, status
    columns not at all (minimum width: their longest word or cell, header words included), so
    that rich, short of room, shrinks and folds the text columns instead. `optional` names the
    columns that may be left out at narrow widths, first named first left out."""
    table = FittedTable(title=title, title_justify="left", **options)
    for i, (header, kind) in enumerate(columns):
        words = [len(word) for word in header.split()]
        if kind in (TEXT, NOTE):
            least = min(TEXT_LEAST, max([cell_width(r[i]) for r in rows] + words))
            table.add_column(header, justify="left", overflow="fold", min_width=least)
        elif kind in (NUMBER, NAME):
            least = max([longest_word(r[i]) for r in rows] + words)
            table.add_column(header, justify="right" if kind == NUMBER else "left", overflow="fold", min_width=least)
        else:
            least = max([cell_width(r[i]) for r in rows] + words)
            table.add_column(header, justify="left", no_wrap=True, min_width=least)
        if kind == NOTE:
            table.notes = i
    table.wrapping = frozenset(header for header, kind in columns if kind in (NAME, TEXT))
    table.optional = tuple(i for name in optional for i, (header, _) in enumerate(columns) if header == name)
    for row in rows:
        table.add_row(*row)
    return table
