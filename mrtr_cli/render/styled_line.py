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

    def __rich__(self) -> Text | _Hanging:
        return self.as_text()

    def as_text(self) -> Text:
        """The line as a rich Text, its parts styled."""
        from rich.text import Text

        text = Text(self.texts[0], self.style)
        for part, style in zip(self.texts[1:], self.styles[1:], strict=True):
            text.append(part, style)
        return text


class WrappedLine(StyledLine):
    """A line that a terminal shows wrapped at word boundaries, its continuation lines indented by
    HANGING_INDENT; off a terminal it is one line, as any StyledLine."""

    __slots__ = ()

    def __rich__(self) -> _Hanging:
        return _Hanging(self.as_text())


HANGING_INDENT = 4
"""Spaces before each continuation line of a WrappedLine."""


class _Hanging:
    """A rich renderable: `text` wrapped at words to the console's width, then indented."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Text]:
        from rich.text import Text

        if not console.is_terminal:
            yield self.text  # the bytes a plain console writes
            return
        width = max(options.max_width - HANGING_INDENT, 20)
        for number, line in enumerate(self.text.wrap(console, width)):
            yield line if number == 0 else Text(" " * HANGING_INDENT).append_text(line)


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
