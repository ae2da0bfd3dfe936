"""The only place that makes Consoles: stdout for output, stderr for everything else.

Where nothing is styled (the stream is not a terminal and `--color always` is not given), a
command gets a `PlainConsole`: it writes lines itself, as rich would write them, and loads rich
only for what it cannot write (a table, markup, a tab to expand). A call with stderr and stdout
piped then starts without rich.
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text
    from rich.theme import Theme

    from mrtr_cli.render.styled_line import JoinedLines, StyledLine

FALLBACK_WIDTH = 100
"""Width when the stream is not a terminal and COLUMNS is not set."""

STYLES = {
    "mrtr.request": "bold cyan",
    "mrtr.retry": "bold magenta",
    "mrtr.complete": "bold green",
    "mrtr.input": "bold yellow",
    "mrtr.error": "bold red",
    "mrtr.warn": "yellow",
    "mrtr.dim": "dim",
    "mrtr.key": "bold",
    "mrtr.source": "italic cyan",
    "mrtr.server": "default",
}
"""The named styles of every line mrtr prints (rich's theme)."""


@functools.cache
def theme() -> Theme:
    from rich.theme import Theme

    return Theme(STYLES)


class PlainConsole:
    """A console that shows no style: lines (a `Text`, `StyledLine` or `JoinedLines`) are written as
    their plain text, the bytes rich would write; anything else goes to the rich Console
    `make_console` would have made, made the first time it is needed."""

    is_terminal = False

    def __init__(self, stream: IO[str], color: str) -> None:
        self.file = stream
        self._color = color
        self._rich: Console | None = None

    def print(self, *objects: Any, **options: Any) -> None:
        lines = [_plain(item) for item in objects]
        if options or None in lines:
            self.rich.print(*objects, **options)
        else:
            self.file.write(" ".join(lines) + "\n")  # type: ignore[arg-type]
            self.file.flush()  # as rich does after each print: stdout and stderr stay in order

    @property
    def rich(self) -> Console:
        if self._rich is None:
            self._rich = _rich_console(self.file, self._color, terminal=False)
        return self._rich

    def __getattr__(self, name: str) -> Any:
        """Whatever else a rich Console offers (width, options, render_lines...)."""
        return getattr(self.rich, name)


AnyConsole = Union["Console", PlainConsole]


@dataclass(frozen=True)
class Consoles:
    """stdout carries only output; the timeline, prompts and diagnostics go to stderr."""

    out: AnyConsole
    err: AnyConsole


def make_console(stream: IO[str], color: str = "auto") -> AnyConsole:
    """A console on `stream` honouring `--color auto|always|never` and NO_COLOR: a rich Console when
    it shows styles (a terminal, or `--color always`), else a PlainConsole.

    Whether the stream is a terminal, and its size, are settled once here: rich would otherwise
    look them up again on every print, which a long conversation pays for on every line.
    """
    terminal = _is_terminal(stream)
    if not terminal and color != "always":
        return PlainConsole(stream, color)
    return _rich_console(stream, color, terminal)


def _rich_console(stream: IO[str], color: str, terminal: bool) -> Console:
    import shutil  # with its archive modules: not for a piped run, which makes no rich console

    from rich.console import Console

    if terminal:
        width, height = shutil.get_terminal_size((FALLBACK_WIDTH, 25))  # honours COLUMNS and LINES
    else:
        width, height = columns_from_environment() or FALLBACK_WIDTH, 25
    options: dict[str, Any] = {"file": stream, "theme": theme(), "highlight": False, "emoji": False,
                               "soft_wrap": True, "force_terminal": terminal, "width": width, "height": height}
    if color == "always":
        options.update(force_terminal=True, no_color=False)
    elif color == "never":
        options["color_system"] = None  # no escape sequences at all
    elif os.environ.get("NO_COLOR"):
        options["no_color"] = True  # no colour; bold and dim stay (no-color.org)
    return Console(**options)


def _plain(item: Any) -> str | None:
    """The line rich would write for `item` where nothing is styled; None when only rich knows
    (not a line, or a tab, which rich expands to the next multiple of 8 cells)."""
    plain = getattr(item, "plain", None)
    return plain if isinstance(plain, str) and "\t" not in plain else None


def emit_text(console: AnyConsole, text: Text | StyledLine | JoinedLines) -> None:
    """Print one line (or lines). Where rich would write it plain anyway (not a terminal, colour not
    forced), write it directly: the same bytes, without rich's layout on every line of a long timeline.
    A StyledLine becomes a Text only when rich prints it."""
    plain = None if console.is_terminal else _plain(text)
    if plain is None:
        console.print(text)
    else:
        console.file.write(plain + "\n")


SLICE = 1_000_000


def write_long(stream: IO[str], text: str) -> None:
    """Write `text` in slices: encoding a whole 50 MB string at once would copy it."""
    for start in range(0, len(text), SLICE):
        stream.write(text[start:start + SLICE])


def make_consoles(color: str = "auto") -> Consoles:
    return Consoles(make_console(sys.stdout, color), make_console(sys.stderr, color))


def columns_from_environment() -> int | None:
    """COLUMNS, when it is set to a positive whole number."""
    value = os.environ.get("COLUMNS", "")
    return int(value) if value.isdigit() and int(value) > 0 else None


def writes_to_terminal(console: AnyConsole) -> bool:
    """Whether the console's stream really is a terminal (`--color always` makes rich think so)."""
    return _is_terminal(console.file)


def _is_terminal(stream: IO[str]) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
