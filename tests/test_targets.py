"""Choosing the server: flags, `-- CMD`, mcpServers files, env files, headers; what each kind of
target supports, how a transcript keeps it, and the preparation of a call it decides."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from mrtr_cli.conversation.eras import ModernEra
from mrtr_cli.conversation.preparation import Preparation, prepare_call
from mrtr_cli.errors import ProtocolError, ServerError, UsageError
from mrtr_cli.definition.options import TargetOptions
from mrtr_cli.targets.target import (demo_command, options_from_entry, parse_headers, read_env_file, recorded_command,
                                     resolve_target)
from mrtr_cli.targets.target_kinds import DemoTarget, HttpTarget, StdioTarget


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


def test_each_kind_says_what_it_supports_and_how_a_transcript_keeps_it(tmp_path: Path):
    stdio = resolve_target(TargetOptions(command=("node", "s.js"), cwd=str(tmp_path)))
    demo = resolve_target(TargetOptions(demo=True, env=("A=1",)))
    http = resolve_target(TargetOptions(url="http://127.0.0.1:1/mcp", headers=("Authorization: Bearer t",)))
    assert [type(t) for t in (stdio, demo, http)] == [StdioTarget, DemoTarget, HttpTarget]
    assert [(t.kind, t.mirrors_headers, t.probes_era, t.takes_headers) for t in (stdio, demo, http)] == [
        ("stdio", False, True, False), ("demo", False, True, False), ("http", True, False, True)]
    assert stdio.transcript_entry() == {"transport": "stdio", "command": ["node", "s.js"], "cwd": str(tmp_path.resolve())}
    assert demo.transcript_entry() == {"transport": "demo"} and demo.env == {"A": "1"}
    assert http.transcript_entry() == {"transport": "http", "url": "http://127.0.0.1:1/mcp"}


def test_a_transcript_entry_names_the_server_again():
    options = TargetOptions(timeout=5.0)
    for target in (StdioTarget(("node", "s.js"), cwd="/"), DemoTarget(demo_command()), HttpTarget("http://h/mcp")):
        entry = target.transcript_entry()
        again = resolve_target(options_from_entry(entry, options))
        assert again.transcript_entry() == entry and type(again) is type(target)
    assert recorded_command({"transport": "stdio", "command": ["node", "my s.js"]}) == "node 'my s.js'"
    assert recorded_command({"transport": "demo"}) is None and recorded_command({"transport": "http", "url": "u"}) is None


@pytest.mark.parametrize("entry", [{"transport": "sse", "url": "http://h/sse"}, {"command": ["node"]}])
def test_an_unknown_transport_in_a_transcript_is_a_usage_error_not_stdio(entry):
    with pytest.raises(UsageError, match="which mrtr does not know"):
        options_from_entry(entry, TargetOptions())
    with pytest.raises(UsageError, match="which mrtr does not know"):
        recorded_command(entry)


class ListingClient:
    """A client of the modern era whose tools/list returns `tools` (or fails with `error`), counting the requests."""

    era = ModernEra("2026-07-28")
    kept_lists = None  # no shell keeps its lists: each is fetched

    def __init__(self, tools: list, error: dict | None = None) -> None:
        self.tools, self.error, self.sent = tools, error, []

    def result_of(self, method: str, params: dict, purpose: str = "request") -> dict:
        self.sent.append(method)
        if self.error is not None:
            raise ServerError(method, self.error)
        return {"tools": self.tools}


ANNOTATED = {"name": "book", "inputSchema": {"type": "object", "properties": {
    "region": {"type": "string", "x-mcp-header": "Region"}, "n": {"type": "integer"}}}}
STDIO, HTTP = StdioTarget(("s",)), HttpTarget("http://h/mcp")


def test_a_call_is_prepared_only_when_it_needs_the_tool():
    client = ListingClient([ANNOTATED])
    assert prepare_call(client, STDIO, "tools/call", "book", needs_schema=False) == Preparation()
    assert prepare_call(client, HTTP, "resources/read", "file:///a", needs_schema=True) == Preparation()
    assert client.sent == []
    typed = prepare_call(client, STDIO, "tools/call", "book", needs_schema=True)
    assert typed == Preparation(ANNOTATED["inputSchema"], {}) and client.sent == ["tools/list"]


def test_where_headers_mirror_the_body_the_call_carries_its_header_arguments():
    client = ListingClient([ANNOTATED])
    prepared = prepare_call(client, HTTP, "tools/call", "book", needs_schema=False)
    assert prepared.mirrored == {"Region": ("region",)} and prepared.schema == ANNOTATED["inputSchema"]
    assert prepare_call(client, HTTP, "tools/call", "other", needs_schema=False) == Preparation()
    assert prepare_call(ListingClient([], {"code": -32601, "message": "no"}), HTTP, "tools/call", "book",
                        needs_schema=True) == Preparation()


def test_a_tool_with_an_invalid_annotation_is_refused_only_where_headers_mirror():
    bad = {"name": "bad", "inputSchema": {"type": "object", "properties": {
        "n": {"type": "number", "x-mcp-header": "N"}}}}
    with pytest.raises(ProtocolError, match="invalid x-mcp-header annotation"):
        prepare_call(ListingClient([bad]), HTTP, "tools/call", "bad", needs_schema=False)
    assert prepare_call(ListingClient([bad]), STDIO, "tools/call", "bad", needs_schema=True).schema == bad["inputSchema"]
