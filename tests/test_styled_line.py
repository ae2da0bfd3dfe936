"""A StyledLine reads and prints as the rich Text the timeline built before it existed."""

from __future__ import annotations

import io
import json

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from mrtr_cli.render.console import theme
from mrtr_cli.render.styled_line import HANGING_INDENT, JoinedLines, StyledLine
from mrtr_cli.text import break_points

STYLES = st.sampled_from([None, "mrtr.dim", "mrtr.key", "mrtr.request"])
PIECES = st.text(alphabet=st.sampled_from("ab →\n\x07\x08\x0b\x0c\r\x1b\t"), max_size=8)
PARTS = st.lists(st.tuples(PIECES, STYLES), max_size=5)


def both(first: str, base: str, parts: list[tuple[str, str | None]]) -> tuple[StyledLine, Text]:
    line, text = StyledLine(first, base), Text(first, base)
    for part, style in parts:
        line.append(part, style)
        text.append(part, style)
    return line, text


class Terminal(io.StringIO):
    """What a terminal is to the console: lines too wide wrap only there."""

    def isatty(self) -> bool:
        return True


def printed(renderable: object, width: int = 60, color_system: str | None = "truecolor") -> str:
    stream = Terminal()
    Console(file=stream, theme=theme(), force_terminal=True, color_system=color_system, width=width,
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


WORDS = st.lists(st.sampled_from(["word", "a", "longerword", "→", "日本", "  "]), max_size=12).map(" ".join)
JSON_VALUES = st.dictionaries(st.sampled_from(["k", "key", "note"]), st.text(alphabet='ab "\\,{}[]', max_size=30)
                              | st.integers(), max_size=4)


@settings(max_examples=200, deadline=None)
@given(WORDS, JSON_VALUES, WORDS, st.integers(20, 70))
def test_a_long_line_wraps_at_words_and_between_json_values_never_inside_a_string(before, value, after, width):
    """On a terminal a line too wide breaks only where `break_points` allows (after a space, after a
    comma between JSON values: never inside a JSON string), unless a run without one is longer than
    a line: then at a space within it, else where the row is full; each row fits, and nothing is
    lost but the spaces at the breaks."""
    encoded = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    line = StyledLine(before + " ", "mrtr.request").append(encoded).append(" " + after, "mrtr.dim")
    plain = line.plain
    shown = printed(line, width, color_system=None).rstrip("\n").split("\n")
    assert all(cell_len(row) <= width for row in shown)
    rows = [shown[0]] + [row.removeprefix(" " * HANGING_INDENT) for row in shown[1:]]
    assert "".join(rows).replace(" ", "") == plain.replace(" ", "")
    points, position = break_points(plain), len(rows[0])
    for row, whole in zip(rows[1:], shown):
        start = plain.index(row, position) if row else position
        allowed = any(point <= start and not plain[point:start].strip() for point in points)
        at_a_word = plain[start - 1] == " "  # a JSON string too long for one row, broken at a space in it
        assert allowed or at_a_word or cell_len(whole) >= width - 1, (start, shown)  # else only a full row
        position = start + len(row)
