"""Slips a new user makes at the command line, each one line saying what happened and what to do
(issue 35): a quote left open in a command string, a misspelled key in an answers file, a host's
config with comments, through the real CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT, mrtr_here
from mrtr_cli.fileio import files
from mrtr_cli.targets.mcp_config import server_entry


@pytest.mark.parametrize("args", [
    ("call", "echo", "--stdio", "python 'server.py"),
    ("list", "tools", "--stdio", "python 'server.py"),
    ("check", "--stdio", "python 'server.py"),
    ("replay", "recordings/vault.yaml", "--stdio", "python 'server.py"),
    ("call", "book_table", "--demo", "--sampler", "my-llm 'x", "--no-input"),
])
def test_an_open_quote_in_a_command_string_is_a_usage_error_naming_it(args):
    run = mrtr_here(*args)
    assert run.code == 1
    assert "unexpected failure" not in run.stderr and "ValueError" not in run.stderr
    line = run.stderr.strip().splitlines()[-1]
    assert "single quote ' at character" in line and "is never closed" in line
    assert "--stdio" in line or "--sampler" in line


def test_a_last_backslash_in_a_command_string_is_named():
    run = mrtr_here("call", "echo", "--stdio", "python server.py \\")
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
    run = mrtr_here("call", "book_table", "--demo", "--answers", str(answers), "--no-input")
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
        runs.append(mrtr_here("call", "book_table", "--demo", "--answers", str(answers), "--no-input", "--json"))
    assert runs[0].code == runs[1].code == 0, runs[1].stderr
    assert runs[0].json()["result"] == runs[1].json()["result"]
    assert runs[1].json()["rounds"][0]["questions"]["date"]["response"]["action"] == "accept"


JSON_TEXT = st.text(alphabet=st.sampled_from('ab /*,]}"\\\n\u00e9'), max_size=12)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | JSON_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(JSON_TEXT, inner, max_size=4), max_leaves=12)
COMMENTS = st.sampled_from(["", " ", "\n", "// a comment, with ] and }\n", "/* a } comment */", "/*\n, */", "\t//\n"])


def jsonc(value: object, draw: st.DrawFn) -> str:
    """`value` as JSON with comments between its tokens and, now and then, a trailing comma."""
    def gap() -> str:
        return draw(COMMENTS)

    if isinstance(value, dict):
        members = [f"{gap()}{json.dumps(key)}{gap()}:{gap()}{jsonc(item, draw)}{gap()}" for key, item in value.items()]
    elif isinstance(value, list):
        members = [f"{gap()}{jsonc(item, draw)}{gap()}" for item in value]
    else:
        return json.dumps(value)
    trailing = "," + gap() if members and draw(st.booleans()) else ""
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    return opening + ",".join(members) + trailing + gap() + closing


@st.composite
def commented(draw: st.DrawFn) -> tuple[object, str]:
    value = draw(JSON_VALUES)
    return value, draw(COMMENTS) + jsonc(value, draw) + draw(COMMENTS)


@settings(max_examples=200, deadline=None)
@given(case=commented())
def test_json_with_comments_and_trailing_commas_reads_as_its_plain_json(case: tuple[object, str]):
    value, text = case
    plain = files.without_comments(text)
    assert len(plain) == len(text) and plain.count("\n") == text.count("\n")  # every place stays where it was
    assert files.parse_json(plain, "mcp.json", "--config file") == value


@settings(max_examples=60, deadline=None)
@given(entry=commented())
def test_an_mcp_servers_entry_with_comments_reads_as_its_plain_json(tmp_path_factory: pytest.TempPathFactory,
                                                                   entry: tuple[object, str]):
    value, text = entry
    path = tmp_path_factory.mktemp("config") / "mcp.json"
    path.write_text('{"servers": {/* one */ "demo": {"command": "x", "args": [], "env": {}, "meta": ' + text + "},},}")
    assert server_entry(str(path), None) == {"command": "x", "args": [], "env": {}, "meta": value}


VS_CODE_CONFIG = """// VS Code's mcp.json allows comments
{
  "servers": {
    /* the demo, run as a user runs it */
    "demo": {
      "command": "%s",
      "args": ["-m", "mrtr_cli", "demo-server",],  // a trailing comma
    },
  },
}
"""


def test_call_reads_a_host_config_with_comments_and_its_one_server_needs_no_name(tmp_path: Path):
    config = tmp_path / "mcp.json"
    config.write_text(VS_CODE_CONFIG % sys.executable.replace("\\", "\\\\"))
    run = mrtr_here("call", "book_table", "--config", str(config), "--answer", "date.date=2026-12-24", "--answer",
                    "party.size=2", "--answer", "confirm=accept", "--no-input")
    assert run.code == 0, run.stderr
    assert "Booked a table for 2" in run.stdout


def test_several_servers_and_no_name_is_a_usage_error_naming_them(tmp_path: Path):
    config = tmp_path / "mcp.json"
    config.write_text('{"mcpServers": {"a": {"command": "x"}, // first\n "b": {"command": "y"},}}')
    run = mrtr_here("list", "tools", "--config", str(config))
    assert run.code == 1
    assert run.stderr.strip().splitlines()[-1] == (f"✗ --config needs --server NAME: {config} has 2 servers; "
                                                   "servers in the file: a, b")


def test_a_broken_host_config_with_comments_is_told_at_its_place(tmp_path: Path):
    config = tmp_path / "mcp.json"
    config.write_text('{\n  // a comment\n  "servers": {"a": {"command": "x"} /* never closed\n}\n')
    run = mrtr_here("list", "tools", "--config", str(config))
    assert run.code == 1
    assert f"{config}:3:37: the --config file is not valid JSON" in run.stderr
