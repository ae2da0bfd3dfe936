"""Slips a new user makes at the command line, each one line saying what happened and what to do
(issue 35): a quote left open in a command string, a misspelled key in an answers file, a host's
config with comments, through the real CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, mrtr


@pytest.mark.parametrize("args", [
    ("call", "echo", "--stdio", "python 'server.py"),
    ("list", "tools", "--stdio", "python 'server.py"),
    ("check", "--stdio", "python 'server.py"),
    ("replay", "recordings/vault.yaml", "--stdio", "python 'server.py"),
    ("call", "book_table", "--demo", "--sampler", "my-llm 'x", "--no-input"),
])
def test_an_open_quote_in_a_command_string_is_a_usage_error_naming_it(args):
    run = mrtr(*args)
    assert run.code == 1
    assert "unexpected failure" not in run.stderr and "ValueError" not in run.stderr
    line = run.stderr.strip().splitlines()[-1]
    assert "single quote ' at character" in line and "is never closed" in line
    assert "--stdio" in line or "--sampler" in line


def test_a_last_backslash_in_a_command_string_is_named():
    run = mrtr("call", "echo", "--stdio", "python server.py \\")
    assert run.code == 1
    assert "ends in a backslash" in run.stderr and "unexpected failure" not in run.stderr


def test_the_pytest_options_open_quote_fails_the_item_with_the_same_line(tmp_path: Path):
    (tmp_path / "vault.yaml").write_text((ROOT / "recordings" / "vault.yaml").read_text())
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "mrtr_cli.pytest_plugin", "--mrtr-replay", str(tmp_path),
                           "--mrtr-stdio", "python 'server.py", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    assert "single quote ' at character 8 is never closed" in done.stdout
    assert "ValueError" not in done.stdout


@pytest.mark.parametrize("entry,line", [
    ("    acton: decline\n", "a.yaml:3:12: unknown key 'acton' (did you mean 'action'?)"),
    ("    contnet: {date: 2026-12-24}\n", "a.yaml:3:14: unknown key 'contnet' (did you mean 'content'?)"),
    ("    action: decline\n    txet: hi\n", "a.yaml:4:11: unknown key 'txet' (did you mean 'text'?)"),
])
def test_a_misspelled_key_in_an_answers_entry_is_named_with_its_place(tmp_path: Path, entry: str, line: str):
    answers = tmp_path / "a.yaml"
    answers.write_text("answers:\n  date:\n" + entry)
    run = mrtr("call", "book_table", "--demo", "--answers", str(answers), "--no-input")
    assert run.code == 1
    last = run.stderr.strip().splitlines()[-1]
    assert f"{answers.parent}/{line}" in last and "fix the answers file" in last
    assert "tools/call" not in run.stderr  # refused before anything ran


def test_a_key_given_as_null_in_an_answers_entry_is_as_if_left_out(tmp_path: Path):
    runs = []
    for action in ("", "    action: null\n    model: null\n"):
        answers = tmp_path / "a.yaml"
        answers.write_text("answers:\n  date:\n" + action + "    content: {date: 2026-12-24}\n"
                           "  party:\n    content: {size: 2}\n    roots: null\n  confirm:\n    content: {confirm: true}\n")
        runs.append(mrtr("call", "book_table", "--demo", "--answers", str(answers), "--no-input", "--json"))
    assert runs[0].code == runs[1].code == 0, runs[1].stderr
    assert runs[0].json()["result"] == runs[1].json()["result"]
    assert runs[1].json()["rounds"][0]["questions"]["date"]["response"]["action"] == "accept"
