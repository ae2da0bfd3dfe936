"""A page of the manual in the terminal (`mrtr help TOPIC`): its Markdown laid out by rich, the
headings, lists, tables and code blocks as a reader sees them, styled only where the console is.
Loaded only to show a page."""

from __future__ import annotations

import re
from typing import IO, ClassVar

from rich.cells import chop_cells
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, Markdown, MarkdownElement
from rich.text import Text

from mrtr_cli.exit_codes import pipe_closed
from mrtr_cli.render.console import make_console

CODE_INDENT = "    "
TRAILING_SPACES = re.compile(r" +(?=(?:\x1b\[[0-9;]*m)*$)", re.MULTILINE)
"""The spaces rich pads each line to the width with (before the line's last escape sequences)."""


class WholeCodeBlock(CodeBlock):
    """A code block as written, indented, a line wider than the terminal folded at its edge: every
    character is kept (rich's own crops each line at the width, and the manual's layout diagrams
    are wider than many terminals)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        room = max(options.max_width - len(CODE_INDENT), 1)
        lines = [CODE_INDENT + part for line in str(self.text).rstrip().splitlines()
                 for part in (chop_cells(line, room) or [""])]
        yield Text("\n".join(lines), style="cyan", no_wrap=True)


class ManualPage(Markdown):
    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements, "fence": WholeCodeBlock, "code_block": WholeCodeBlock}


def show_page(markdown: str, stream: IO[str]) -> int:
    """Print the page on `stream`; the exit code, 141 when its reader went away (`| head`)."""
    console = make_console(stream)
    with console.capture() as captured:
        # paragraphs folded at the width, at spaces; a link's target shown in brackets after it
        console.print(ManualPage(markdown, hyperlinks=False), soft_wrap=False)
    try:
        stream.write(TRAILING_SPACES.sub("", captured.get()))
        stream.flush()
    except BrokenPipeError:
        return pipe_closed()
    return 0
