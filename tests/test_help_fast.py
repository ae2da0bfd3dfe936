"""Every `--help` drawn without typer (fast_paths/fast_help.py) is the page typer's command line draws
(cli/help_page.py), and loads neither typer, click nor rich.

Both are built from the same tables (command_table.py, option_table.py); here the pages are held
equal as data (usage line, description, every panel and row with its styles) at widths where the
usage line wraps and where it does not, and as the bytes each writes.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

import pytest

from conftest import PYTHON, ROOT, mrtr
from mrtr_cli.cli import help_page as typers_page
from mrtr_cli.cli import run as typer_run
from mrtr_cli.cli.option_groups import click_module
from mrtr_cli.cli.subcommands import command_for
from mrtr_cli.definition.command_table import APP, CommandGroup, find
from mrtr_cli.fast_paths import fast_help


def every_path(group: CommandGroup = APP, path: tuple[str, ...] = ()) -> list[list[str]]:
    """`mrtr`, each command, `mrtr auth` and each of its commands."""
    paths = [list(path)]
    for command in group.commands:
        paths += every_path(command, (*path, command.name)) if isinstance(command, CommandGroup) \
            else [[*path, command.name]]
    return paths


PATHS = every_path()
WIDTHS = ["40", "60", "100"]


def test_every_command_has_a_page():
    assert [" ".join(path) for path in PATHS] == [
        "", "call", "read", "prompt", "discover", "list", "shell", "demo-server", "serve", "show", "replay", "answer",
        "load", "check", "proxy", "help", "auth", "auth status", "auth logout", "auth login", "tasks", "tasks list",
        "tasks get", "tasks resume", "tasks cancel"]


def page_typer_draws(path: list[str]) -> typers_page.HelpPage:
    """The page typer's command line collects for `mrtr PATH --help`."""
    command = command_for(path)
    context = click_module().Context(command, info_name="mrtr", **command.context_settings)
    for name in path:
        command = command.get_command(context, name)
        context = click_module().Context(command, info_name=name, parent=context, **command.context_settings)
    return typers_page.help_page(command, context)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", PATHS, ids=lambda path: " ".join(path) or "mrtr")
def test_the_page_without_typer_is_the_page_typer_draws(path, width, monkeypatch):
    monkeypatch.setenv("COLUMNS", width)
    found = find(path)
    assert found is not None
    assert fast_help.help_page(found, path) == page_typer_draws(path)


def written(run, args: list[str]) -> tuple[object, str]:
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        code = run(args)
    return code, captured.getvalue()


@pytest.mark.parametrize("flag", ["--help", "-h"])
@pytest.mark.parametrize("path", PATHS, ids=lambda path: " ".join(path) or "mrtr")
def test_the_help_without_typer_writes_what_typer_wrote(path, flag, monkeypatch):
    monkeypatch.setenv("COLUMNS", "72")
    fast = written(fast_help.run, [*path, flag])
    assert fast == written(typer_run, [*path, flag])
    assert fast[0] == 0 and f"Usage: {' '.join(['mrtr', *path])} [OPTIONS]" in fast[1]


@pytest.mark.parametrize("args", [[], ["call"], ["call", "t", "--help"], ["--help", "call"], ["nope", "--help"],
                                  ["auth", "nope", "-h"], ["call", "--help", "--", "server"], ["call", "--demo", "-h"]])
def test_anything_but_a_bare_help_is_left_to_typer(args):
    assert fast_help.run(args) is None


NO_TYPER = ("import sys\nfrom mrtr_cli.entry import main\nmain(sys.argv[1:])\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'typer', 'click', 'rich'}), file=sys.stderr)")


@pytest.mark.parametrize("args", [["--help"], ["call", "--help"], ["check", "--help"], ["auth", "login", "-h"]])
def test_the_help_loads_no_typer_click_or_rich(args):
    done = subprocess.run([PYTHON, "-c", NO_TYPER, *args], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0 and done.stderr == "[]\n", done.stderr
    assert "Usage: mrtr" in done.stdout


def test_python_m_mrtr_call_help_imports_no_typer_click_or_rich():
    done = subprocess.run([PYTHON, "-X", "importtime", "-m", "mrtr_cli", "call", "--help"], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    imported = {line.split("|")[-1].strip().split(".")[0] for line in done.stderr.splitlines()
                if line.startswith("import time:")}
    assert done.returncode == 0 and "mrtr_cli" in imported
    assert imported & {"typer", "click", "rich"} == set()


def test_a_mistake_still_gets_typers_message():
    run = mrtr("call", "--bogus", "--help")
    assert run.code == 1 and run.stdout == "", run.stdout
    assert run.stderr.startswith("mrtr: No such option: --bogus") and run.stderr.endswith("(see mrtr call --help)\n")


def test_help_to_a_closed_pipe_is_exit_141_without_typer():
    code = ("import os, sys\nr, w = os.pipe()\nos.close(r)\nos.dup2(w, 1)\nfrom mrtr_cli.fast_paths import fast_help\n"
            "code = fast_help.run(['call', '--help'])\n"
            "print(code, sorted({m.split('.')[0] for m in sys.modules} & {'typer', 'click'}), file=sys.stderr)")
    done = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.stderr == "141 []\n", done.stderr


def test_typer_is_told_of_options_and_arguments_only_through_the_tables():
    """cli/ declares no option or argument of its own: typer's are built from option_table.py and
    command_table.py, in option_groups.py's one typer.Option and one typer.Argument."""
    calls = {path.name: (source.count("typer.Option("), source.count("typer.Argument("))
             for path in (ROOT / "mrtr_cli" / "cli").glob("*.py") for source in [path.read_text(encoding="utf-8")]}
    assert {name: counts for name, counts in calls.items() if counts != (0, 0)} == {"option_groups.py": (1, 1)}
