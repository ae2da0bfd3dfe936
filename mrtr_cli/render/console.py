"""The only place that makes rich Consoles: stdout for output, stderr for everything else."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from typing import IO, Any

from rich.console import Console
from rich.text import Text
from rich.theme import Theme

from mrtr_cli.render.styled_line import JoinedLines, StyledLine

FALLBACK_WIDTH = 100
"""Width when the stream is not a terminal and COLUMNS is not set."""

THEME = Theme({
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
})


@dataclass(frozen=True)
class Consoles:
    """stdout carries only output; the timeline, prompts and diagnostics go to stderr."""

    out: Console
    err: Console


def make_console(stream: IO[str], color: str = "auto") -> Console:
    """A Console on `stream` honouring `--color auto|always|never` and NO_COLOR.

    Whether the stream is a terminal, and its size, are settled once here: rich would otherwise
    look them up again on every print, which a long conversation pays for on every line.
    """
    terminal = _is_terminal(stream)
    if terminal:
        width, height = shutil.get_terminal_size((FALLBACK_WIDTH, 25))  # honours COLUMNS and LINES
    else:
        width, height = columns_from_environment() or FALLBACK_WIDTH, 25
    options: dict[str, Any] = {"file": stream, "theme": THEME, "highlight": False, "emoji": False,
                               "soft_wrap": True, "force_terminal": terminal, "width": width, "height": height}
    if color == "always":
        options.update(force_terminal=True, no_color=False)
    elif color == "never":
        options["color_system"] = None  # no escape sequences at all
    elif os.environ.get("NO_COLOR"):
        options["no_color"] = True  # no colour; bold and dim stay (no-color.org)
    return Console(**options)


def emit_text(console: Console, text: Text | StyledLine | JoinedLines) -> None:
    """Print one line (or lines). Where rich would write it plain anyway (not a terminal, colour not
    forced), write it directly: the same bytes, without rich's layout on every line of a long timeline.
    A StyledLine becomes a Text only when rich prints it."""
    if console.is_terminal:
        console.print(text)
    else:
        console.file.write(text.plain + "\n")


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


def writes_to_terminal(console: Console) -> bool:
    """Whether the console's stream really is a terminal (`--color always` makes rich think so)."""
    return _is_terminal(console.file)


def _is_terminal(stream: IO[str]) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
