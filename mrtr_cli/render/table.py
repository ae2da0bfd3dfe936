"""Tables of what a server offers (`mrtr list`): names and URIs are never split.

On a terminal the table fits the terminal's width: descriptions wrap, names and URIs keep
their whole width (a line longer than the terminal is left to the terminal). Off a terminal
each row is one line and nothing wraps; when COLUMNS is set, descriptions are cut to fit it.
The cells are already safe text (`text.safe_line`).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size
from rich.console import Console
from rich.segment import Segments
from rich.table import Table
from rich.text import Text

from mrtr_cli.render.console import AnyConsole, PlainConsole, columns_from_environment, writes_to_terminal

GAP = 2
"""Spaces between two columns."""
NARROWEST_TEXT = 20
"""A text column is never made narrower than this on a terminal, nor than its longest word
(up to LONGEST_WORD): rich splits only a word longer than that."""
LONGEST_WORD = 60


@dataclass(frozen=True)
class Column:
    """A column's header and what it holds: `name` (one name or URI: never wrapped, never cut),
    `names` (a list of names: wraps between names on a terminal, never cut) or `text` (wraps on a
    terminal; cut to fit COLUMNS off one)."""

    header: str
    holds: str = "name"


def print_table(console: AnyConsole, columns: list[Column], rows: list[list[str]]) -> None:
    """The table on `console`: laid out for a terminal, or one plain line per row."""
    if writes_to_terminal(console):
        _print_for_terminal(console.rich if isinstance(console, PlainConsole) else console, columns, rows)
    else:
        for line in plain_lines(columns, rows, columns_from_environment()):
            console.file.write(line + "\n")


def plain_lines(columns: list[Column], rows: list[list[str]], width: int | None) -> list[str]:
    """A header and one line per row, aligned; text cells are cut to fit `width` (None: never)."""
    table = [[c.header for c in columns], *rows]
    widths = _longest(columns, rows)
    if width is not None:
        floors = [cell_len(c.header) if c.holds == "text" else w for c, w in zip(columns, widths)]
        widths = _fit(columns, widths, floors, width)
    return [_plain_line(row, widths) for row in table]


def _longest(columns: list[Column], rows: list[list[str]]) -> list[int]:
    return [max(cell_len(cell) for cell in [column.header, *(row[i] for row in rows)])
            for i, column in enumerate(columns)]


def _fit(columns: list[Column], widths: list[int], floors: list[int], width: int) -> list[int]:
    """Narrow the text columns, then the lists of names, down to their floors, so that a line fits
    `width` if it can."""
    excess = sum(widths) + GAP * (len(widths) - 1) - width
    fitted = list(widths)
    for holds in ("text", "names"):
        for index, column in enumerate(columns):
            if excess > 0 and column.holds == holds:
                cut = max(min(excess, fitted[index] - floors[index]), 0)
                fitted[index] -= cut
                excess -= cut
    return fitted


def _plain_line(row: list[str], widths: list[int]) -> str:
    cells = [_cut(cell, width) for cell, width in zip(row, widths)]
    padded = [cell + " " * (width - cell_len(cell)) for cell, width in zip(cells, widths)]
    return (" " * GAP).join(padded).rstrip()


def _cut(cell: str, width: int) -> str:
    if cell_len(cell) <= width:
        return cell
    return set_cell_size(cell, max(width - 1, 0)) + "…"


def _print_for_terminal(console: Console, columns: list[Column], rows: list[list[str]]) -> None:
    """Each column as wide as fits the terminal: names whole, text and lists wrapped at spaces."""
    floors = [_narrowest(column, [row[i] for row in rows]) for i, column in enumerate(columns)]
    widths = _fit(columns, _longest(columns, rows), floors, console.width)
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="mrtr.dim")
    for column, width in zip(columns, widths):
        table.add_column(column.header, width=width, overflow="fold", no_wrap=column.holds == "name")
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    total = sum(widths) + GAP * (len(widths) - 1)
    for line in console.render_lines(table, console.options.update_width(total), pad=False, new_lines=True):
        console.print(Segments(line), crop=False, end="")  # rich's print would narrow the table to the console


def _narrowest(column: Column, cells: list[str]) -> int:
    """How narrow a column may be on a terminal: a name keeps its width, a list its longest name,
    text NARROWEST_TEXT or its longest word (up to LONGEST_WORD)."""
    longest = max(cell_len(cell) for cell in [column.header, *cells])
    if column.holds == "name":
        return longest
    words = max((cell_len(word) for cell in cells for word in cell.split()), default=0)
    if column.holds == "names":
        return max(words, cell_len(column.header))
    return max(min(longest, NARROWEST_TEXT), min(words, LONGEST_WORD))
