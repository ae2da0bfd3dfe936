"""Off a terminal a command's console writes lines itself, byte for byte as rich did, and a call
whose output is piped loads no rich at all."""

from __future__ import annotations

import io
import os
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.table import Table
from rich.text import Text

from conftest import ROOT
from mrtr_cli.render import console as consoles
from mrtr_cli.render.console import PlainConsole, emit_text, make_console
from mrtr_cli.render.styled_line import JoinedLines, StyledLine

PIECES = st.text(alphabet=st.sampled_from("ab →日\n\x07\r\x1b\t[]/:"), max_size=10)
STYLES = st.sampled_from([None, "mrtr.dim", "mrtr.key", "bold"])


class Stream(io.StringIO):
    """A stream that is no terminal and counts its flushes."""

    flushes = 0

    def flush(self) -> None:
        self.flushes += 1


def rich_bytes(*objects: object, color: str = "auto") -> str:
    """What the rich Console make_console made off a terminal (before PlainConsole) writes."""
    stream = io.StringIO()
    consoles._rich_console(stream, color, terminal=False).print(*objects)
    return stream.getvalue()


def plain_bytes(*objects: object, color: str = "auto") -> str:
    stream = Stream()
    PlainConsole(stream, color).print(*objects)
    return stream.getvalue()


def styled(first: str, parts: list[tuple[str, str | None]]) -> StyledLine:
    line = StyledLine(first, "mrtr.input")
    for part, style in parts:
        line.append(part, style)
    return line


@settings(max_examples=150, deadline=None)
@given(PIECES, st.lists(st.tuples(PIECES, STYLES), max_size=4), st.sampled_from(["auto", "never"]))
def test_every_line_is_written_as_rich_wrote_it(first, parts, color):
    line = styled(first, parts)
    for printed in ([line], [line.__rich__()], [JoinedLines([line, line])], [line, line.__rich__()]):
        assert plain_bytes(*printed, color=color) == rich_bytes(*printed, color=color)


def test_a_tab_is_expanded_as_rich_expands_it():
    line = StyledLine("key\tvalue", "mrtr.dim")
    assert plain_bytes(line) == rich_bytes(line) == "key     value\n"
    stream = io.StringIO()
    emit_text(PlainConsole(stream, "auto"), JoinedLines([line]))  # the timeline's way of printing
    assert stream.getvalue() == "key     value\n"


def test_what_is_not_a_line_is_laid_out_by_rich(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)  # another test of the same worker may have left one
    table = Table("name", "description")
    table.add_row("ask", "asks [bold]once[/bold]")
    assert plain_bytes(table) == rich_bytes(table)
    assert plain_bytes("[bold]markup[/bold] is read") == "markup is read\n"
    assert PlainConsole(io.StringIO(), "auto").width == consoles.FALLBACK_WIDTH


def test_each_print_is_flushed_as_rich_flushes_it():
    stream = Stream()
    PlainConsole(stream, "auto").print(Text("one"))
    assert stream.flushes == 1  # a piped stdout and stderr stay in order when both go to one file


def test_styles_are_shown_where_they_were():
    reader, writer = os.openpty()
    try:
        with open(writer, "w", closefd=False) as terminal:
            assert isinstance(make_console(terminal), Console)
    finally:
        os.close(reader)
        os.close(writer)
    assert isinstance(make_console(io.StringIO(), "always"), Console)
    assert isinstance(make_console(io.StringIO(), "auto"), PlainConsole)
    assert isinstance(make_console(io.StringIO(), "never"), PlainConsole)


def test_a_piped_call_loads_no_rich():
    server = f"{sys.executable} {ROOT / 'benchmarks' / 'server.py'}"
    code = ("import sys; from mrtr_cli.cli import run; "
            f"code = run(['call', 'ask', '--args', '{{\"n\": 2}}', '--answer', 'step.ok=true', "
            f"'--stdio', {server!r}]); "
            "print(code, sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'yaml')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT,
                          env={**os.environ, "NO_COLOR": "1"})
    assert done.stdout.splitlines()[-1] == "0 []", done.stderr
    assert done.stderr.splitlines()[-1].startswith("✓ complete · 3 rounds")


