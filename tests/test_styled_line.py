"""A StyledLine reads and prints as the rich Text the timeline built before it existed."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from mrtr_cli.render.console import theme
from mrtr_cli.render.styled_line import JoinedLines, StyledLine

STYLES = st.sampled_from([None, "mrtr.dim", "mrtr.key", "mrtr.request"])
PIECES = st.text(alphabet=st.sampled_from("ab →\n\x07\x08\x0b\x0c\r\x1b\t"), max_size=8)
PARTS = st.lists(st.tuples(PIECES, STYLES), max_size=5)


def both(first: str, base: str, parts: list[tuple[str, str | None]]) -> tuple[StyledLine, Text]:
    line, text = StyledLine(first, base), Text(first, base)
    for part, style in parts:
        line.append(part, style)
        text.append(part, style)
    return line, text


def printed(renderable: object) -> str:
    stream = io.StringIO()
    Console(file=stream, theme=theme(), force_terminal=True, color_system="truecolor", width=60,
            highlight=False, emoji=False, soft_wrap=True).print(renderable)
    return stream.getvalue()


@settings(max_examples=200, deadline=None)
@given(PIECES, st.sampled_from(["", "mrtr.input", "mrtr.warn"]), PARTS)
def test_same_plain_text_and_same_terminal_bytes(first, base, parts):
    line, text = both(first, base, parts)
    assert line.plain == text.plain
    assert printed(line) == printed(text)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(PIECES, PARTS), min_size=1, max_size=4))
def test_joined_lines_read_and_print_as_text_join(lines):
    pairs = [both(first, "mrtr.input", parts) for first, parts in lines]
    joined, text = JoinedLines(p[0] for p in pairs), Text("\n").join(p[1] for p in pairs)
    assert joined.plain == text.plain
    assert printed(joined) == printed(text)
