"""mrtr's own `--help` (cli/help_page.py, render/help.py) shows what typer's rich help showed.

For every command, the help typer's `rich_utils` draws (still installed with typer) and mrtr's
help, both at a width where nothing wraps, hold the same usage line, the same description, the
same panels in the same order, and in each the same rows, word for word. The intended
differences: typer read help text as rich markup, which swallowed a written "[default: ...]" (the
old help is drawn here with markup off, so it shows the text as written, as mrtr now does); and
(issue 35) an argument is named in capitals and without `<str>` (`mrtr call [OPTIONS] TOOL`, not
`{tool}`), a number's bounds follow its help in words (`[at least 0]`, not `N [x>=0]` squeezing
it), and --url has the metavar URL: `as_mrtr_shows_it` makes those changes to typer's page.
"""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys

import pytest

from conftest import mrtr_here
from mrtr_cli.cli.option_groups import click_module
from mrtr_cli.cli.subcommands import command_for
from mrtr_cli.render import help as rendered

WIDE = 1000
COMMANDS = [[], *[[name] for name in ("call", "read", "prompt", "discover", "list", "demo-server", "serve", "show",
                                       "replay", "answer", "load", "check", "auth", "tasks")],
            ["auth", "status"], ["auth", "logout"], ["auth", "login"], ["tasks", "list"], ["tasks", "get"],
            ["tasks", "resume"], ["tasks", "cancel"]]


def typer_help(path: list[str], monkeypatch: pytest.MonkeyPatch) -> str:
    """The help typer's rich_utils drew for `mrtr PATH --help`, rich markup off, `WIDE` columns."""
    from rich.text import Text
    from typer import rich_utils

    monkeypatch.setattr(rich_utils, "MAX_WIDTH", WIDE)
    monkeypatch.setattr(Text, "from_markup", classmethod(lambda cls, text, style="": cls(text, style=style)))
    command = command_for(path)
    context = click_module().Context(command, info_name="mrtr", **command.context_settings)
    for name in path:
        command = command.get_command(context, name)
        context = click_module().Context(command, info_name=name, parent=context, **command.context_settings)
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        rich_utils.rich_format_help(obj=command, ctx=context, markup_mode="rich")
    return captured.getvalue()


def content(text: str) -> list[tuple[str, ...]]:
    """Each line's words, box characters left out; a panel's top line becomes ("panel", TITLE)."""
    lines = []
    for line in text.splitlines():
        if line.startswith("╭─"):
            lines.append(("panel", line.strip("╭─╮ ")))
        elif line.strip() and not line.startswith("╰"):
            lines.append(tuple(line.strip().strip("│").split()))
    return lines


BOUNDS = re.compile(r"\[(?:x>=(?P<least>[\d.]+)|(?P<low>[\d.]+)<=x<=(?P<high>[\d.]+))\]")
USAGE_ARGUMENT = re.compile(r"^\{(?P<name>[^}:]+)\}(?::<.*>)?$")


def as_mrtr_shows_it(line: tuple[str, ...]) -> tuple[str, ...]:
    """A line of typer's page with issue 35's changes: arguments in capitals in the usage line and
    their rows, no `<str>`, bounds in words after the help, --url's metavar."""
    words = list(line)
    if words[:1] == ["Usage:"]:
        return tuple(_usage_word(word) for word in words)
    if words[:1] == ["--url"] and words[1:2] == ["<str>"]:
        words[1] = "URL"
    if words[:1] == ["*"] and len(words) > 2:
        words[1] = words[1].upper() if words[1].islower() else words[1]
        words = [word for number, word in enumerate(words) if not (number == 2 and word == "<str>")]
    if words[:1] and not words[0].startswith(("-", "*")) and words[1:2] == ["<str>"]:  # an optional argument's row
        del words[1]
    found = next((number for number, word in enumerate(words) if BOUNDS.fullmatch(word)), None)
    if found is not None:
        match = BOUNDS.fullmatch(words.pop(found))
        assert match is not None
        said = (["[at", "least", f"{_number(match['least'])}]"] if match["least"] is not None
                else [f"[{_number(match['low'])}", "to", f"{_number(match['high'])}]"])
        notes = next((number for number, word in enumerate(words) if word in ("[default:", "[required]")), len(words))
        words[notes:notes] = said
    return tuple(words)


def _usage_word(word: str) -> str:
    match = USAGE_ARGUMENT.fullmatch(word)
    if match is None:
        return word
    name = match["name"]
    return name.upper() if name.islower() else name


def _number(text: str) -> str:
    return str(int(float(text))) if float(text).is_integer() else text


@pytest.mark.parametrize("path", COMMANDS, ids=lambda path: " ".join(path) or "mrtr")
def test_the_help_shows_what_typers_help_showed(path, monkeypatch):
    shown = mrtr_here(*path, "--help", env={"COLUMNS": str(WIDE)})
    assert shown.code == 0, shown.stderr
    old, new = [as_mrtr_shows_it(line) for line in content(typer_help(path, monkeypatch))], content(shown.stdout)
    assert [line for line in new if line[0] == "panel"] == [line for line in old if line[0] == "panel"]
    assert new == old


def test_a_written_default_is_shown_as_written():
    shown = mrtr_here("call", "--help", env={"COLUMNS": str(WIDE)})
    assert "renegotiated [default: 2026-07-28]." in " ".join(shown.stdout.split())


@pytest.mark.parametrize("width", [80, 100, 132])
@pytest.mark.parametrize("path", COMMANDS, ids=lambda path: " ".join(path) or "mrtr")
def test_the_help_fits_the_width(path, width):
    shown = mrtr_here(*path, "--help", env={"COLUMNS": str(width)})
    assert shown.code == 0, shown.stderr
    assert max(len(line) for line in shown.stdout.splitlines()) == width
    assert "\x1b" not in shown.stdout


def test_help_loads_neither_rich_nor_typers_rich_help():
    code = ("import sys, io, contextlib; from mrtr_cli.cli import run\n"
            "with contextlib.redirect_stdout(io.StringIO()): run(['call', '--help'])\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'markdown_it') "
            "or m == 'typer.rich_utils'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


PAGE = rendered.HelpPage("Usage: mrtr call [OPTIONS] {tool}", "Call a tool; see --json.", "", [
    rendered.Panel("Options", [rendered.Row((("--json", "bold cyan"), ("-j", "bold green")),
                                            (("One JSON object.", ""), ("[default: no]", "dim")))])])


def test_a_terminal_gets_the_styles_and_no_color_drops_the_colours(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    styled = Terminal()
    rendered.write(PAGE, styled)
    assert "\x1b[1;36m--json" in styled.getvalue() and "\x1b[2m[default: no]\x1b[0m" in styled.getvalue()
    assert "\x1b[1;36m--json\x1b[0m." in styled.getvalue()  # an option named in help text
    monkeypatch.setenv("NO_COLOR", "1")
    plain_colours = Terminal()
    rendered.write(PAGE, plain_colours)
    assert "\x1b[1m--json" in plain_colours.getvalue() and "36m" not in plain_colours.getvalue()


def test_a_long_metavar_folds_and_the_help_keeps_its_room():
    page = rendered.HelpPage("Usage: x", "", "", [rendered.Panel("Options", [rendered.Row(
        (("--level", ""), ("<" + "|".join(["debug", "info", "notice", "warning", "error", "critical"]) + ">", "")),
        (("Ask for log messages at LEVEL and above.", ""),))])])
    lines = ["".join(text for text, _ in line).rstrip() for line in rendered.lay_out(page, 50)]
    assert all(len(line) <= 50 for line in lines)
    assert "<debug|info|" in lines[4] and "Ask for log messages at" in lines[4]


def help_column(row: str) -> int:
    """Where a panel row's help starts: after the last run of two spaces or more before the text."""
    inside = row.strip("│")
    return max(match.end() for match in re.finditer(r"\S {2,}(?=\S)", inside)) if re.search(r"\S {2,}\S", inside) \
        else len(inside) - len(inside.lstrip())


def test_call_help_at_80_columns_keeps_the_help_readable():
    """`call --help` at 80 columns once squeezed descriptions into 15 characters behind
    `SECONDS [0.001<=x<=1000000.0]`, and its usage line read `{tool}` and its rows `<str>`."""
    shown = mrtr_here("call", "--help", env={"COLUMNS": "80"}).stdout
    rows = shown.splitlines()
    assert "Usage: mrtr call [OPTIONS] TOOL" in shown and "<str>" not in shown and "{tool}" not in shown
    timeout = next(row for row in rows if row.startswith("│ --timeout "))
    assert "SECONDS    Per request, send to response," in timeout
    assert "[0.001 to 1000000] [default: 60.0]" in shown and "<=x<=" not in shown
    wide = next(row for row in rows if row.startswith("│ --restart-between-rounds"))
    assert help_column(wide) == help_column(timeout)  # a name too long for the columns keeps the help column
    helps = [row for row in rows if row.startswith("│ --")]
    assert min(80 - 2 - help_column(row) for row in helps if help_column(row) > 10) >= 38, shown
