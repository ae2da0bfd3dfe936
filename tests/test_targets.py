"""Choosing the server: flags, `-- CMD`, mcpServers files, env files, headers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from mrtr_cli.errors import UsageError
from mrtr_cli.options import TargetOptions
from mrtr_cli.target import HttpTarget, StdioTarget, demo_command, parse_headers, read_env_file, resolve_target


def test_stdio_forms():
    assert resolve_target(TargetOptions(stdio="python 'my server.py' -v")).command == ("python", "my server.py", "-v")
    assert resolve_target(TargetOptions(command=("node", "s.js"))).command == ("node", "s.js")
    assert resolve_target(TargetOptions(demo=True)).command == demo_command()
    assert resolve_target(TargetOptions(url="http://127.0.0.1:1/mcp")) == HttpTarget("http://127.0.0.1:1/mcp")


@pytest.mark.parametrize("options,message", [
    (TargetOptions(), "no server given"),
    (TargetOptions(url="http://x", demo=True), "several servers given"),
    (TargetOptions(stdio="x", server="s"), "--server needs --config"),
    (TargetOptions(stdio="  "), "empty"),
    (TargetOptions(stdio="x", cwd="/no/such/dir"), "not a directory"),
    (TargetOptions(stdio="x", env=("NOEQUALS",)), "not KEY=VALUE"),
    (TargetOptions(stdio="x", headers=("A: b",)), "stdio process"),
])
def test_target_errors(options, message):
    with pytest.raises(UsageError, match=message):
        resolve_target(options)


def test_environment_from_file_and_flags(tmp_path: Path):
    env_file = tmp_path / ".env"
    env_file.write_text("# comment\n\nexport A=1\nB='two words'\nC=\"3\"\nD=override-me\n")
    target = resolve_target(TargetOptions(stdio="x", env_file=str(env_file), env=("D=4", "E=a=b")))
    assert target.env == {"A": "1", "B": "two words", "C": "3", "D": "4", "E": "a=b"}
    env_file.write_text("GOOD=1\nbad line\n")
    with pytest.raises(UsageError, match=r"\.env:2 is not KEY=VALUE"):
        read_env_file(str(env_file))


def test_config_file(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("TOKEN", "s3cret")
    monkeypatch.setenv("BIN", sys.executable)
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "local": {"command": "${BIN}", "args": ["-m", "srv", "--token=${env:TOKEN}"], "env": {"K": "${TOKEN}"},
                  "cwd": str(tmp_path)},
        "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
        "broken": {"args": []},
    }}))
    local = resolve_target(TargetOptions(config=str(config), server="local", env=("X=1",)))
    assert local == StdioTarget((sys.executable, "-m", "srv", "--token=s3cret"), {"K": "s3cret", "X": "1"}, str(tmp_path))
    remote = resolve_target(TargetOptions(config=str(config), server="remote"))
    assert remote == HttpTarget("https://example.com/mcp", {"Authorization": "Bearer s3cret"})
    with pytest.raises(UsageError, match="no server 'nope'.*local, remote, broken"):
        resolve_target(TargetOptions(config=str(config), server="nope"))
    with pytest.raises(UsageError, match="has no command"):
        resolve_target(TargetOptions(config=str(config), server="broken"))
    config.write_text(json.dumps({"mcpServers": {"x": {"command": "${UNSET_VARIABLE_FOR_TEST}"}}}))
    with pytest.raises(UsageError, match="UNSET_VARIABLE_FOR_TEST"):
        resolve_target(TargetOptions(config=str(config), server="x"))
    config.write_text("{not json")
    with pytest.raises(UsageError, match="not valid JSON"):
        resolve_target(TargetOptions(config=str(config), server="x"))


@pytest.mark.parametrize("header,message", [
    ("NoColon", "not 'Name: value'"),
    ("Mcp-Session-Id: 1", "mrtr sets"),
    ("MCP-Protocol-Version: 1", "mrtr sets"),
    ("X-Evil: a\rb", "control character"),
    ("Bad Name: x", "not 'Name: value'"),
])
def test_bad_headers(header, message):
    with pytest.raises(UsageError, match=message):
        parse_headers((header,))


def test_good_headers():
    assert parse_headers(("Authorization: Bearer a:b", "X-Empty:")) == {"Authorization": "Bearer a:b", "X-Empty": ""}


def test_a_server_after_dashes_is_forgotten_by_the_next_run_in_the_same_process(capsys):
    """`-- CMD` belongs to the run that was given it: a second in-process run without it names only its own server."""
    from mrtr_cli.cli import run

    assert run(["discover", "--cwd", "/no/such/dir", "--", "node", "server.js"]) == 1
    assert "not a directory" in capsys.readouterr().err
    assert run(["discover", "--cwd", "/no/such/dir", "--demo"]) == 1
    err = capsys.readouterr().err
    assert "several servers given" not in err and "not a directory" in err
