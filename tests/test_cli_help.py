"""The command line builds only the command being run, and its help still lists everything."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import mrtr_here
from mrtr_cli.cli.subcommands import command_for

COMMANDS = ["call", "read", "prompt", "discover", "list", "shell", "demo-server", "serve", "show", "replay", "answer",
            "load", "check", "proxy", "help", "auth", "tasks"]


def test_the_help_lists_every_command_in_order():
    run = mrtr_here("--help", env={"COLUMNS": "100"})
    assert run.code == 0, run.stderr
    listed = [line.split()[1] for line in run.stdout.splitlines()
              if len(line.split()) > 1 and line.split()[1] in COMMANDS]
    assert listed == COMMANDS


@pytest.mark.parametrize("name", COMMANDS)
def test_each_command_has_its_help(name):
    run = mrtr_here(name, "--help", env={"COLUMNS": "100"})
    assert run.code == 0, run.stderr
    assert f"Usage: mrtr {name} [OPTIONS]" in run.stdout


def test_only_the_command_run_is_built():
    assert list(command_for(["call", "ask", "--demo"]).commands) == ["call"]
    assert list(command_for(["demo-server", "--http", "0"]).commands) == ["demo-server"]
    assert list(command_for(["auth", "status"]).commands) == ["auth"]
    assert list(command_for(["tasks", "list"]).commands) == ["tasks"]
    assert list(command_for(["--help"]).commands) == COMMANDS
    assert list(command_for(["nope"]).commands) == COMMANDS  # "No such command" comes from the whole group


def test_running_a_command_does_not_load_the_auth_app():
    import subprocess

    code = ("import sys; from mrtr_cli.cli import run; run(['list', 'tools', '--demo', '--json']); "
            "print('mrtr_cli.cli.auth_app' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip().splitlines()[-1] == "False", done.stderr


def test_an_unknown_command_is_a_usage_error_naming_it():
    run = mrtr_here("nope")
    assert run.code == 1
    assert "No such command 'nope'" in run.stderr


@pytest.mark.parametrize("args, path", [([], "mrtr"), (["auth"], "mrtr auth")])
def test_no_command_shows_the_help_and_says_what_is_missing(args, path):
    run = mrtr_here(*args, env={"COLUMNS": "100"})
    assert run.code == 1  # a usage error, as docs/exit-codes.md has it
    assert f"Usage: {path} [OPTIONS] COMMAND [ARGS]..." in run.stdout
    assert run.stderr == f"mrtr: missing command: name one of the commands listed above (see {path} --help)\n"


@pytest.mark.parametrize("value", ["inf", "nan", "1e9", "0"])
@pytest.mark.parametrize("flag", ["--timeout", "--era-probe-wait", "--auth-timeout"])
def test_seconds_no_wait_can_take_are_a_usage_error(flag, value):
    """Infinity and huge values once failed inside the wait (OverflowError), and nan timed out at once."""
    run = mrtr_here("call", "t", flag, value, "--demo")
    assert run.code == 1, run.stderr
    assert run.stderr == f"mrtr: {flag}: {value!r} is not a number of seconds from 0.001 to 1000000 (see mrtr call --help)\n"


@pytest.mark.parametrize("args, path", [
    (["call", "t", "--timeout", "soon", "--demo"], "mrtr call"),
    (["replay", "--nope"], "mrtr replay"),
    (["auth", "login", "--nope"], "mrtr auth login"),
    (["nope"], "mrtr"),
])
def test_a_usage_error_names_the_help_of_the_command_it_is_about(args, path):
    run = mrtr_here(*args)
    assert run.code == 1 and run.stderr.endswith(f" (see {path} --help)\n"), run.stderr


@pytest.mark.parametrize("args", [["--help"], ["call", "--help"], ["auth", "login", "-h"]], ids=" ".join)
def test_help_whose_reader_went_away_is_141_and_says_nothing(args):
    """As `mrtr --help | head -1` when head has gone: 141, as a call's output cut short (docs/exit-codes.md),
    never click's 1. The pipe's reader is closed before mrtr writes, so its write fails each time."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        done = subprocess.run([sys.executable, "-m", "mrtr_cli", *args], stdout=writer, stderr=subprocess.PIPE,
                              timeout=60, env={**os.environ, "NO_COLOR": "1"})
    finally:
        os.close(writer)
    assert (done.returncode, done.stderr) == (141, b"")
