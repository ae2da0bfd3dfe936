"""`mrtr call`, `read` and `prompt` parsed without typer (fast_paths/fast_call.py): it and typer's
options are built from the one table (mrtr_cli/definition/option_table.py), every usual command line is parsed
to the very Options typer builds, anything unusual is left to typer, and a usual call loads no typer
at all."""

from __future__ import annotations

import enum
import os
import subprocess
import sys
from typing import Any

import pytest

from conftest import PYTHON, ROOT, mrtr_here
from mrtr_cli.cli import run as typer_run
from mrtr_cli.cli.subcommands import command_for
from mrtr_cli.commands import call as call_command
from mrtr_cli.fast_paths import fast_call
from mrtr_cli.definition.option_table import PANELS, TABLE

SAMPLES = {"--timeout": "2.5", "--era-probe-wait": "0.5", "--auth-timeout": "1e3", "--max-message-size": "512K",
           "--log-level": "warning", "--color": "never", "--max-rounds": "0", "--protocol-era": "older",
           "--protocol-version": "2025-06-18", "--poll-interval": "0.5", "--task-timeout": "30"}
"""A value each typed option takes; any text does for the others."""


def typer_options(command: str) -> dict[str, Any]:
    """Each option name typer gives `command`, with its click parameter (--help aside)."""
    group = command_for([command])
    params = group.commands[command].params
    return {name: param for param in params if param.param_type_name == "option"
            for name in (*param.opts, *param.secondary_opts) if name not in ("--help", "-h")}


def parsed_by_typer(args: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...] | None:
    """What typer hands commands/call.run for `args`; None when it runs nothing (help, an error)."""
    seen: list[tuple[Any, ...]] = []
    monkeypatch.setattr(call_command, "run", lambda *parsed: seen.append(parsed) or 0)
    typer_run(list(args))
    return seen[0] if seen else None


@pytest.mark.parametrize("command", sorted(fast_call.METHODS))
def test_both_parsers_are_built_from_the_one_table(command: str):
    """typer's options of `command` are the table's entries and no other, each with the table's names,
    kind, metavar, help, panel and default; the fast parser reads each name as that very entry."""
    declared = typer_options(command)
    entries = [option for option in TABLE if option.group in fast_call.GROUPS
               and not (option.group == "call" and command == "read")]
    assert set(declared) == {name for option in entries for name in option.names}
    for option in entries:
        param = declared[option.names[0]]
        assert (tuple(param.opts), param.help, param.metavar, param.rich_help_panel) == \
            (option.names, option.help, option.metavar, PANELS.get(option.group)), option.names
        kind = "flag" if param.is_flag else "many" if param.multiple else "value"
        assert kind == option.kind, option.names
        default = param.default.value if isinstance(param.default, enum.Enum) else param.default
        assert default == (None if option.kind == "many" else option.default) or \
            option.convert(default) == option.default, option.names  # `64M`, as the help writes it
        assert all(fast_call.OPTIONS[name] is option for name in option.names)


PLANTED = """
import sys
from mrtr_cli.definition import option_table
planted = option_table.Option(("--planted",), "output", "strict", "flag", "A planted flag, in both parsers.")
if sys.argv[1] == "plant":
    option_table.TABLE = (*option_table.TABLE, planted)
from mrtr_cli.commands import call
from mrtr_cli.fast_paths import fast_call
from mrtr_cli.cli import run
fast = fast_call.parse(["read", "file:///x", "--planted"])
print("fast:", fast and fast[3].strict)
call.run = lambda *parsed: print("typer:", parsed[3].strict) or 0
run(["read", "file:///x", "--planted"])
run(["read", "--help"])
"""


def test_an_entry_planted_in_the_table_is_an_option_of_both_parsers():
    planted = subprocess.run([sys.executable, "-c", PLANTED, "plant"], capture_output=True, text=True, cwd=ROOT,
                             timeout=60, env={**os.environ, "COLUMNS": "200"})
    assert planted.stdout.splitlines()[:2] == ["fast: True", "typer: True"], planted.stderr[-2000:]
    assert "--planted" in planted.stdout and "A planted flag, in both parsers." in planted.stdout
    unplanted = subprocess.run([sys.executable, "-c", PLANTED, "leave"], capture_output=True, text=True, cwd=ROOT,
                               timeout=60, env={**os.environ, "COLUMNS": "200"})
    assert unplanted.stdout.splitlines()[0] == "fast: None" and "--planted" not in unplanted.stdout
    assert "No such option: --planted" in unplanted.stderr


def usual_command_lines() -> list[list[str]]:
    """Each option in each of its forms, repeated, among the positional, with a server after `--`."""
    lines = [["call", "t"], ["read", "file:///x"], ["prompt", "p"], ["call", "--demo", "t", "-v"],
             ["call", "t", "--", PYTHON, "server.py", "--flag", "--"], ["call", "t", "--timeout", "1", "--timeout", "2"],
             ["call", "t", "-a", "a=1", "--arg", "b=2", "--args", "{}"], ["prompt", "p", "-a", "x=y", "--args="],
             ["call", "t", "--answer", "k.f=1", "--answer=k.g=2", "-H", "A: b", "--header=C: d"]]
    for name, spec in fast_call.OPTIONS.items():
        value = SAMPLES.get(name, "some value")
        forms = [[name]] if spec.kind == "flag" else [[name, value]] + ([[f"{name}={value}"]] if name[1] == "-" else [])
        lines += [["call", "t", *form] for form in forms]
    return lines


@pytest.mark.parametrize("args", usual_command_lines(), ids=" ".join)
def test_a_usual_command_line_is_parsed_as_typer_parses_it(args: list[str], monkeypatch: pytest.MonkeyPatch):
    fast = fast_call.parse(args)
    assert fast is not None
    assert fast == parsed_by_typer(args, monkeypatch)


@pytest.mark.parametrize("args", [
    ["call"], ["call", "a", "b"], ["call", "t", "--help"], ["call", "-h"], ["call", "t", "--nope"],
    ["call", "t", "--timeout", "0"], ["call", "t", "--timeout", "soon"], ["call", "t", "--max-rounds", "-1"],
    ["call", "t", "--demo=1"], ["read", "u", "-a", "k=v"], ["call", "t", "--url"], ["call", "t", "-vx"],
    ["call", "t", "--log-level", "loud"], ["call", "t", "--color", "blue"], ["call", "t", "--max-message-size", "0"],
    ["call", "t", "--timeout", "nan"], ["call", "t", "--timeout", "inf"], ["call", "t", "--auth-timeout", "1e9"],
], ids=" ".join)
def test_help_and_mistakes_are_left_to_typer(args: list[str], monkeypatch: pytest.MonkeyPatch):
    assert fast_call.parse(args) is None
    assert parsed_by_typer(args, monkeypatch) is None  # typer shows help or refuses it too


@pytest.mark.parametrize("flag, value, said", [
    ("--timeout", "abc", "'abc' is not a number of seconds"),
    ("--era-probe-wait", "0", "'0' is not a number of seconds from 0.001 to 1000000"),
    ("--max-rounds", "x", "'x' is not a whole number of rounds"),
    ("--protocol-version", "2025-13-01", "'2025-13-01' is not a version mrtr speaks: 2024-11-05, 2025-03-26, "
                                         "2025-06-18, 2025-11-25, 2026-07-28"),
])
def test_a_bad_value_is_worded_by_the_one_reader_both_parsers_use(flag: str, value: str, said: str,
                                                                  capsys: pytest.CaptureFixture[str]):
    with pytest.raises(ValueError) as refused:
        fast_call.OPTIONS[flag].convert(value)
    assert str(refused.value) == said
    assert fast_call.parse(["call", "t", flag, value]) is None  # left to typer, which says it the same way
    assert typer_run(["call", "t", flag, value]) == 1
    assert capsys.readouterr().err == f"mrtr: {flag}: {said} (see mrtr call --help)\n"


@pytest.mark.parametrize("args", [["call", "t", "-a=k=v"]], ids=" ".join)
def test_odd_shapes_typer_reads_its_own_way_are_left_to_it(args: list[str], monkeypatch: pytest.MonkeyPatch):
    assert fast_call.parse(args) is None
    assert parsed_by_typer(args, monkeypatch) is not None


def test_a_version_mrtr_does_not_speak_is_refused_before_anything_runs():
    """It once went on to speak 2026-07-28, said `asked for by --protocol-era modern` (a flag never
    given) and ended with exit 2; now the demo server never starts. A version it speaks is named as asked."""
    for version in ("2025-13-01", "banana"):
        run = mrtr_here("call", "echo", "--demo", "--protocol-version", version)
        assert run.code == 1, run.stderr
        assert run.stderr == (f"mrtr: --protocol-version: {version!r} is not a version mrtr speaks: 2024-11-05, "
                              "2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28 (see mrtr call --help)\n")
    known = mrtr_here("list", "tools", "--demo", "--protocol-version", "2026-07-28")
    assert known.code == 0, known.stderr
    assert "era: modern (2026-07-28): asked for by --protocol-version 2026-07-28" in known.stderr


def served_by_typer(args: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...] | None:
    """What typer hands `run_demo_server` for `mrtr demo-server ARGS`; None when it runs nothing."""
    from mrtr_cli.commands import serving

    seen: list[tuple[Any, ...]] = []
    monkeypatch.setattr(serving, "run_demo_server", lambda *given: seen.append(given) or 0)
    typer_run(["demo-server", *args])
    return seen[0] if seen else None


@pytest.mark.parametrize("args", [[], ["--http", "0"], ["--http=127.0.0.1:0"], ["--conformance-fixtures"],
                                  ["--conformance-fixtures", "--http", "8080", "--http", "0"], ["--state-key", "k"],
                                  ["--state-key=k", "--http", "0"]], ids=" ".join)
def test_demo_servers_options_are_read_from_the_table_as_typer_reads_them(args, monkeypatch):
    fast = fast_call.parse_demo_server(args)
    assert fast is not None
    assert tuple(fast) == served_by_typer(args, monkeypatch)


@pytest.mark.parametrize("args", [["--http"], ["--help"], ["-h"], ["x"], ["--conformance-fixtures=1"], ["--nope"],
                                  ["--url", "u"]], ids=" ".join)
def test_demo_servers_help_and_mistakes_are_left_to_typer(args, monkeypatch):
    assert fast_call.parse_demo_server(args) is None
    assert served_by_typer(args, monkeypatch) is None


def test_a_demo_server_value_like_an_option_is_left_to_typer(monkeypatch):
    assert fast_call.parse_demo_server(["--http", "--conformance-fixtures"]) is None
    assert served_by_typer(["--http", "--conformance-fixtures"], monkeypatch) == ("--conformance-fixtures", False, None)


def shell_by_typer(args: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...] | None:
    """What typer hands the shell's `run` for `mrtr shell ARGS`; None when it runs nothing."""
    from mrtr_cli.commands import shell

    seen: list[tuple[Any, ...]] = []
    monkeypatch.setattr(shell, "run", lambda *given: seen.append(given) or 0)
    typer_run(["shell", *args])
    return seen[0] if seen else None


@pytest.mark.parametrize("args", [["--demo"], ["--url", "http://x/mcp", "--answers", "a.yaml", "--max-rounds", "3"],
                                  ["--record-dir", "kept", "--no-input", "-v", "--", "server", "--port", "1"],
                                  ["--stdio", "cmd a", "--json", "--no-tasks", "--redact", "x", "--redact", "y"]],
                         ids=" ".join)
def test_the_shells_options_are_read_from_the_table_as_typer_reads_them(args, monkeypatch):
    fast = fast_call.parse_shell(args)
    assert fast is not None
    assert tuple(fast) == shell_by_typer(args, monkeypatch)


@pytest.mark.parametrize("args", [["--help"], ["x"], ["--demo", "--nope"], ["--to", "u"], ["-a", "k=v"]], ids=" ".join)
def test_the_shells_help_and_mistakes_are_left_to_typer(args, monkeypatch):
    assert fast_call.parse_shell(args) is None
    assert shell_by_typer(args, monkeypatch) is None
