"""A timeline line as its parts and their styles: plain text at once, a rich `Text` only when a
terminal shows it.

Building a `Text` for every line costs a long conversation more than everything else it prints,
and where stderr is not a terminal only the plain text is written. A `StyledLine` keeps the parts
and builds the very `Text` the timeline built before (same base style, same appends) when rich
asks for it (`__rich__`), so a terminal gets the same bytes.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Optional

if TYPE_CHECKING:
    from rich.text import Text

CONTROL_CODES = re.compile("[\x07\x08\x0b\x0c\r]")
"""Bell, backspace, vertical tab, form feed, carriage return: rich's `Text` drops them, so does `plain`."""


class StyledLine:
    """Text with a base style (for the whole line) and parts appended in styles of their own."""

    __slots__ = ("style", "texts", "styles")

    def __init__(self, text: str = "", style: str = "") -> None:
        self.style = style
        self.texts = [text]
        """The parts' text, the plain line once joined."""
        self.styles: list[Optional[str]] = [None]
        """Each part's own style (None: the base style alone)."""

    def append(self, text: str, style: Optional[str] = None) -> StyledLine:
        self.texts.append(text)
        self.styles.append(style)
        return self

    @property
    def plain(self) -> str:
        text = "".join(self.texts)
        return text if text.isprintable() else CONTROL_CODES.sub("", text)  # printable: no control code

    def __rich__(self) -> _Hanging:
        return _Hanging(self.as_text())

    def as_text(self) -> Text:
        """The line as a rich Text, its parts styled."""
        from rich.text import Text

        text = Text(self.texts[0], self.style)
        for part, style in zip(self.texts[1:], self.styles[1:], strict=True):
            text.append(part, style)
        return text


class WrappedLine(StyledLine):
    """A line shown wrapped on a terminal, as every StyledLine is (`_Hanging`); kept for the lines
    written to be wrapped (an answer and its JSON)."""

    __slots__ = ()


HANGING_INDENT = 4
"""Spaces before each continuation line of a line a terminal shows wrapped."""
NARROWEST_WRAP = 20
"""A terminal narrower than this gets lines as they are: wrapping would leave no room for text."""


class _Hanging:
    """A rich renderable: `text` as it is when it fits the terminal; else wrapped at word
    boundaries and between JSON values, never inside a JSON string (`text.break_points`), each
    continuation line indented by HANGING_INDENT. (The console soft-wraps: left to the terminal, a
    long line broke at its edge, mid-word.) Off a terminal (`--color always` too), one line."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Text]:
        from rich.cells import cell_len
        from rich.text import Text

        width = options.max_width
        lines = self.text.split("\n", allow_blank=True)
        fits = all(cell_len(line.plain) <= width for line in lines)
        if not _on_a_terminal(console) or fits or width < NARROWEST_WRAP:
            yield self.text  # the bytes a plain console writes
            return
        for number, line in enumerate(lines):
            if number:
                yield Text("\n", end="")
            yield from _wrapped(line, width, Text(" " * HANGING_INDENT))


def _on_a_terminal(console: Any) -> bool:
    """Whether the console writes to a real terminal: `--color always` into a pipe (a CI log) gets
    its lines whole, as the plain console writes them."""
    isatty = getattr(console.file, "isatty", None)
    return console.is_terminal and bool(isatty and isatty())


def _wrapped(line: Text, width: int, indent: Text) -> Iterator[Text]:
    """`line` in pieces that fit `width` (continuations after `indent`), the breaks' spaces dropped."""
    from mrtr_cli.text import break_points

    points = break_points(line.plain)
    cuts = _cuts(line.plain, points, width, width - len(indent))
    for number, (piece, end) in enumerate(zip(line.divide(cuts), [*cuts, len(line.plain)])):
        if end in points or end == len(line.plain) or line.plain[end - 1] == " ":
            piece.rstrip()  # the spaces of a break; a row cut where it was full keeps them (a JSON string's)
        yield piece if number == 0 else indent.copy().append_text(piece)


def _cuts(plain: str, points: list[int], first: int, rest: int) -> list[int]:
    """Where to end each line: at the last break point that fits, or, for a run with none (a JSON
    string longer than the line), at its last space that fits (a word is never cut while a space can
    take the break), else where the line is full."""
    breaks = set(points)
    cuts: list[int] = []
    start, room = 0, first
    while (end := _row_end(plain, start, room, breaks)) < len(plain):
        cuts.append(end)
        start, room = end, rest
    return cuts


def _row_end(plain: str, start: int, room: int, breaks: set[int]) -> int:
    """Where the row that starts at `start` ends (len(plain): it holds the rest). A row ending at a
    break loses its trailing spaces there, so they never make it overflow; one cut where it is full
    keeps them (a JSON string's)."""
    from rich.cells import get_character_cell_size

    used = solid = 0  # the cells of plain[start:index], and of the same without its trailing spaces
    best: int | None = None  # the last break point the row may end at
    spaced: int | None = None  # the last place after a space inside a JSON string
    full = start + 1  # the last place the row may be cut without a break point (at least one character)
    for index in range(start, len(plain)):
        if index > start and index in breaks:
            best = index
        elif index > start and plain[index - 1] == " ":
            spaced = index
        if used <= room and index > start:
            full = index
        used += get_character_cell_size(plain[index])
        solid = used if plain[index] != " " else solid
        if solid > room:
            return next(end for end in (best, spaced, full) if end is not None)
    return len(plain)


class JoinedLines:
    """Lines printed together, one under the other (rich's `Text("\\n").join(...)`). The lines are
    complete when joined: the plain text is made once (a question asked again is shown again)."""

    __slots__ = ("lines", "_plain")

    def __init__(self, lines: Iterable[StyledLine]) -> None:
        self.lines = list(lines)
        self._plain: Optional[str] = None

    @property
    def plain(self) -> str:
        if self._plain is None:
            self._plain = "\n".join(line.plain for line in self.lines)
        return self._plain

    def __rich__(self) -> Text:
        from rich.text import Text

        return Text("\n").join(line.as_text() for line in self.lines)
