"""`--help`, laid out with plain strings: the usage line, the command's help, and its panels.

typer's rich help imported rich.markdown and rich.traceback and laid out a rich table per panel,
most of what `mrtr --help` cost. This draws the same panels (box characters, the same columns and
wording) from a `HelpPage`: fast_paths/fast_help.py makes it from the command and option tables
(every `--help`), cli/help_page.py from the click command (the help typer still shows, with a usage
error). On a terminal the parts are styled as typer styled them, with escape sequences written
here; elsewhere the text is plain. Nothing of rich (or click) is imported.
"""

from __future__ import annotations

import os
import re
import sys
import textwrap
from typing import IO, NamedTuple

from mrtr_cli.exit_codes import pipe_closed

ARGUMENTS, OPTIONS, COMMANDS = "Arguments", "Options", "Commands"
"""The panels every help page has (where it has their rows), in this order."""

Part = tuple[str, str]
"""A piece of a line and its style: words from STYLES, space-separated ("" for none)."""
Line = list[Part]


class Row(NamedTuple):
    """One option, argument or command: the cells of the narrow columns, then the help items."""

    cells: tuple[Part, ...]
    help: tuple[Part, ...]


class Panel(NamedTuple):
    title: str
    rows: list[Row]


class HelpPage(NamedTuple):
    usage: str
    description: str
    details: str
    panels: list[Panel]


STYLES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}
"""The SGR code of each style word."""
COLOURS = {"red", "green", "yellow", "cyan"}
HIGHLIGHTS = re.compile(r"(?<!\w)(?:(?P<option>--[\w-]+)|(?P<switch>-\w+))(?![a-zA-Z0-9])|(?P<types><[^>]+>)")
"""Option names and <types> in help text, styled as typer's highlighter styled them."""
HIGHLIGHT_STYLES = {"option": "bold cyan", "switch": "bold green", "types": "bold yellow"}
GAP = "  "
"""Between the columns of a panel."""
NARROWEST_HELP = 40
"""The help column's least width, where the terminal allows: narrower, a narrow column folds."""
NARROWEST_CELL = 8
MARGIN = " "


def show(page: HelpPage) -> int:
    """`--help`: the page on stdout and its last empty line; the exit code, 141 when stdout's reader
    went away (`mrtr --help | head -1`), as for any command (docs/exit-codes.md)."""
    try:
        write(page, sys.stdout, ending="\n")
    except BrokenPipeError:
        return pipe_closed()
    return 0


def split_help(text: str) -> tuple[str, str]:
    """A command's help as its page shows it: the first paragraph on one line, then the rest."""
    description, _, details = text.partition("\f")[0].partition("\n\n")
    return description.replace("\n", " ").strip(), details


def argument_name(name: str, metavar: str | None) -> str:
    """How the help names a positional argument: its metavar, else its name in capitals (`TOOL`)."""
    return metavar or name.upper()


def argument_usage(name: str, metavar: str | None, required: bool, many: bool) -> str:
    """How the usage line shows a positional argument: `TOOL`, `[URL]`, `TRANSCRIPT.yaml...`."""
    shown = argument_name(name, metavar)
    if not required and not shown.startswith("["):
        shown = f"[{shown}]"
    return shown + "..." if many and not shown.rstrip("]").endswith("...") else shown


def bounds(low: float | None, high: float | None) -> str:
    """A number's bounds as its help item: `[at least 0]`, `[0.001 to 1000000]`."""
    if high is None:
        return f"[at least {_number(low)}]"
    return f"[{_number(low)} to {_number(high)}]"


def _number(value: float | None) -> str:
    return str(int(value)) if isinstance(value, (int, float)) and float(value).is_integer() else f"{value:g}"


def usage(command_path: str, pieces: list[str]) -> str:
    """The usage line as click writes it: `Usage: mrtr call [OPTIONS] {tool}`, wrapped at the width
    click takes (the terminal's, at most 80, less 2, at least 50), continued under the arguments."""
    width = max(min(_click_columns(), 80) - 2, 50)
    prefix = f"Usage: {command_path} "
    if not pieces:
        return prefix.rstrip(" ")
    if width >= len(prefix) + 20:
        return _UsageWrapper(width, initial_indent=prefix, subsequent_indent=" " * len(prefix)).fill(" ".join(pieces))
    indent = " " * (len("Usage: ") + 4)
    return prefix + "\n" + _UsageWrapper(width, initial_indent=indent, subsequent_indent=indent).fill(" ".join(pieces))


def _click_columns() -> int:
    """The terminal's width as click reads it (shutil.get_terminal_size, whose import costs more
    than the help): COLUMNS, else stdout's terminal, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns or 80  # the run's stdout (an Environment's, in-process)
    except (AttributeError, ValueError, OSError):
        return 80


class _UsageWrapper(textwrap.TextWrapper):
    """click's wrapper: whitespace kept, a word too long for the line cut where the line ends."""

    def __init__(self, width: int, initial_indent: str, subsequent_indent: str) -> None:
        super().__init__(width, initial_indent=initial_indent, subsequent_indent=subsequent_indent,
                         replace_whitespace=False)

    def _handle_long_word(self, reversed_chunks: list[str], cur_line: list[str], cur_len: int, width: int) -> None:
        space_left = max(width - cur_len, 1)
        cur_line.append(reversed_chunks[-1][:space_left])
        reversed_chunks[-1] = reversed_chunks[-1][space_left:]


def write(page: HelpPage, stream: IO[str], ending: str = "") -> None:
    """Write the help to `stream`, then `ending`, in one write; styled when `stream` is a terminal
    that shows styles."""
    styled = _shows_styles(stream)
    no_colour = bool(os.environ.get("NO_COLOR"))
    text = "".join(_line_text(line, styled, no_colour) + "\n" for line in lay_out(page, help_width(stream)))
    stream.write(text + ending)
    stream.flush()


def lay_out(page: HelpPage, width: int) -> list[Line]:
    """The lines of the help page at `width` columns."""
    lines: list[Line] = [[]]
    for usage in page.usage.splitlines():
        lines.append(_usage_line(usage))
    lines.append([])
    if page.description:
        lines.extend(_paragraphs(page.description, "", width - 2))
        if page.details:
            lines.append([])
            lines.extend(_paragraphs(page.details, "dim", width - 2))
        lines.append([])
    for panel in page.panels:
        lines.extend(_panel(panel, width))
    return lines


def help_width(stream: IO[str]) -> int:
    """The width rich gave typer's help: TERMINAL_WIDTH, else COLUMNS, else a terminal's, else 80."""
    for name in ("TERMINAL_WIDTH", "COLUMNS"):
        value = os.environ.get(name, "")
        if value.isdigit() and int(value) > 0:
            return int(value)
    if _is_dumb_terminal():
        return 80
    for descriptor in (0, 1, 2):  # as rich looks: stdin, stdout, stderr
        try:
            return os.get_terminal_size(descriptor).columns or 80
        except (OSError, ValueError):
            continue
    return 80


def _usage_line(usage: str) -> Line:
    label, found, rest = usage.partition("Usage: ")
    if not found:
        return [(MARGIN, ""), (usage, "bold")]
    return [(MARGIN, ""), (label, "bold"), ("Usage: ", "bold yellow"), (rest, "bold")]


def _paragraphs(text: str, style: str, width: int) -> list[Line]:
    lines: list[Line] = []
    for source in text.split("\n"):
        wrapped = _wrap(source, width) if source.strip() else [""]
        lines.extend([(MARGIN, "")] + _highlighted(line, style) for line in wrapped)
    return lines


def _panel(panel: Panel, width: int) -> list[Line]:
    """A box titled with the panel's name, one row per option, argument or command."""
    inner = width - 4
    top = f"╭─ {panel.title} " + "─" * max(inner - len(panel.title) - 1, 0) + "╮"
    lines: list[Line] = [[(top, "dim")]]
    for content in _table(panel.rows, inner):
        padding = " " * max(inner - sum(len(text) for text, _ in content), 0)
        lines.append([("│ ", "dim"), *content, (padding + " ", ""), ("│", "dim")])
    lines.append([("╰" + "─" * (width - 2) + "╯", "dim")])
    return lines


def _table(rows: list[Row], inner: int) -> list[Line]:
    """The rows as columns: each narrow column as wide as its widest cell (empty ones left out),
    the help wrapped in what is left; when that is too little, the metavar column folds at "|",
    and when that is still too little, the rows too wide for a readable help column (a long option
    name, a long metavar) each take a line of their own, their help starting on the next."""
    widths, help_width = _column_widths(rows, inner)
    spilled: list[Row] = []
    if help_width < _wanted_help(rows, inner):
        widths, spilled = _spilled_widths(rows, inner - _wanted_help(rows, inner))
        help_width = inner - _span(widths)
    shown = [column for column, width in enumerate(widths) if width]
    lines: list[Line] = []
    for row in rows:
        if any(row is spilt for spilt in spilled):
            lines.extend(_spilled_row(row, inner, help_width))
            continue
        cells = [(_fold(row.cells[column][0], widths[column]), row.cells[column][1]) for column in shown]
        helps = _help_lines(row.help, help_width)
        for number in range(max([len(helps)] + [len(folded) for folded, _ in cells])):
            line = [part for (folded, style), column in zip(cells, shown)
                    for part in _cell_line(folded, number, widths[column], style)]
            lines.append(line + (helps[number] if number < len(helps) else []))
    return lines


def _wanted_help(rows: list[Row], inner: int) -> int:
    """The help column's least readable width: NARROWEST_HELP, or less when the panel is narrow or
    its help short."""
    longest = max(len(" ".join(text for text, _ in row.help)) for row in rows)
    return min(NARROWEST_HELP, inner // 2, longest)


def _span(widths: list[int]) -> int:
    """The width the narrow columns take, with their gaps."""
    return sum(width + len(GAP) for width in widths if width)


def _spilled_widths(rows: list[Row], room: int) -> tuple[list[int], list[Row]]:
    """Column widths that fit in `room`, and the rows left out of them: the widest row goes first,
    until the rest fit."""
    kept, spilled = list(rows), []  # type: list[Row], list[Row]
    while kept:
        widths = [max(len(row.cells[column][0]) for row in kept) for column in range(len(rows[0].cells))]
        if _span(widths) <= room:
            return widths, spilled
        widest = max(kept, key=lambda row: _span([len(text) for text, _ in row.cells]))
        kept.remove(widest)
        spilled.append(widest)
    return [0] * len(rows[0].cells), spilled


def _spilled_row(row: Row, inner: int, help_width: int) -> list[Line]:
    """A row left out of the columns: its cells one after the other, its help in the help column, from
    the same line when the cells end before it, else from the next."""
    line: Line = []
    for text, style in (cell for cell in row.cells if cell[0]):
        line.extend([(text, style), (GAP, "")])
    used, start = sum(len(text) for text, _ in line), inner - help_width
    helps = _help_lines(row.help, help_width)
    if used <= start:
        return [line + [(" " * (start - used), "")] + helps[0]] + _indented(helps[1:], start)
    if used > inner:  # a metavar wider than the panel: its choices fold
        folded = [[(piece, row.cells[-1][1])] for piece in _fold(row.cells[-1][0], inner)]
        return [line[:-4] + folded[0]] + folded[1:] + _indented(helps, start)
    return [line] + _indented(helps, start)


def _indented(lines: list[Line], width: int) -> list[Line]:
    return [[(" " * width, "")] + line for line in lines]


def _column_widths(rows: list[Row], inner: int) -> tuple[list[int], int]:
    """The width of each narrow column (0: left out) and of the help column."""
    widths = [max(len(row.cells[column][0]) for row in rows) for column in range(len(rows[0].cells))]
    help_width = inner - _span(widths)
    wanted = _wanted_help(rows, inner)
    if help_width < wanted and widths[-1]:
        narrowed = max(widths[-1] - (wanted - help_width), _least_fold(rows), NARROWEST_CELL)
        help_width += widths[-1] - narrowed
        widths[-1] = narrowed
    return widths, max(help_width, NARROWEST_CELL)


def _least_fold(rows: list[Row]) -> int:
    """How narrow the last narrow column (the metavars) can fold: to its longest piece between "|"s.
    Option names never fold."""
    return max(len(piece) for row in rows for piece in row.cells[-1][0].split("|"))


def _cell_line(folded: list[str], number: int, width: int, style: str) -> Line:
    text = folded[number] if number < len(folded) else ""
    return [(text, style), (" " * (width - len(text)) + GAP, "")]


def _fold(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width`, broken after a "|" where one is near."""
    lines = []
    while len(text) > width > 0:
        cut = text.rfind("|", 0, width) + 1 or width
        lines.append(text[:cut])
        text = text[cut:]
    return lines + [text]


def _help_lines(items: tuple[Part, ...], width: int) -> list[Line]:
    """The help items on one line when they fit, else each wrapped on lines of its own; the notes
    after the help (`[at least 0]`, `[default: 10]`) share a line when they fit on one."""
    joined = " ".join(text for text, _ in items)
    if len(joined) <= width:
        return [_items_line(items)]
    notes = items[1:]
    if len(items) > 2 and len(" ".join(text for text, _ in notes)) <= width:
        return [_highlighted(line, items[0][1]) for line in _wrap(items[0][0], width)] + [_items_line(notes)]
    lines: list[Line] = []
    for text, style in items:
        lines.extend(_highlighted(line, style) for line in _wrap(text, width))
    return lines or [[]]


def _items_line(items: tuple[Part, ...]) -> Line:
    line: Line = []
    for number, (text, style) in enumerate(items):
        line.extend(([(" ", "")] if number else []) + _highlighted(text, style))
    return line


def _wrap(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width, break_on_hyphens=False) or [""]


def _highlighted(text: str, style: str) -> Line:
    """`text` in `style`, option names and <types> in theirs."""
    line: Line = []
    start = 0
    for match in HIGHLIGHTS.finditer(text):
        line.extend([(text[start:match.start()], style), (match.group(), HIGHLIGHT_STYLES[match.lastgroup or ""])])
        start = match.end()
    line.append((text[start:], style))
    return line


def _line_text(line: Line, styled: bool, no_colour: bool) -> str:
    text = "".join(_styled(part, style, no_colour) if styled and style else part for part, style in line)
    return text.rstrip()


def _styled(text: str, style: str, no_colour: bool) -> str:
    """`text` between SGR escape sequences for `style` (colours dropped under NO_COLOR)."""
    codes = [STYLES[word] for word in style.split() if not (no_colour and word in COLOURS)]
    return f"\x1b[{';'.join(codes)}m{text}\x1b[0m" if codes and text else text


def _shows_styles(stream: IO[str]) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not _is_dumb_terminal()


def _is_dumb_terminal() -> bool:
    return os.environ.get("TERM", "").lower() in ("dumb", "unknown")
