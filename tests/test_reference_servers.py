"""mrtr against the official MCP reference servers from npm, which speak the initialize-handshake era.

`@modelcontextprotocol/server-everything` and `server-filesystem` (2026.8.31), installed into the test
cache beside the conformance suite (tests/conformance.py). They answer `server/discover` with
-32601, so mrtr's default era detection hands them to the `initialize` handshake, and they ask
their questions (elicitation, sampling, roots) as requests while a call is in flight.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conformance import reference_server
from conftest import PYTHON, mrtr_here
from peers import everything_over_http


def everything(*args: str) -> list[str]:
    return ["--", *reference_server("everything", *args)]


def text_of(result: dict) -> str:
    return "\n".join(item.get("text", "") for item in result["content"])


def test_everything_is_found_to_speak_the_older_era_and_lists_its_tools():
    run = mrtr_here("list", "tools", "--json", *everything())
    assert run.code == 0, run.stderr
    assert "era: older (the initialize handshake, 2025-11-25)" in run.stderr
    names = {tool["name"] for tool in run.json()["tools"]}
    assert {"trigger-elicitation-request", "trigger-sampling-request"} <= names
    assert "get-roots-list" not in names  # listed only to a client that declares roots: nothing here answers them
    unlisted = mrtr_here("call", "get-roots-list", "--no-input", *everything())
    assert unlisted.code == 5, unlisted.stderr  # the server's isError result
    assert unlisted.stderr.splitlines()[-1] == (
        "! the server lists no tool 'get-roots-list' to mrtr, which declared no roots (nothing could answer them, "
        "or --no-roots); "
        "a server may list such a tool only to a client that does: give --root DIR")


def test_list_and_discover_declare_roots_as_call_would_and_never_ask_a_person(tmp_path: Path):
    """server-everything lists get-roots-list only to a client declaring roots: `list --root` does, as
    `call --root` would, and --no-roots withholds them again; `discover` takes the same flags. The
    roots/list it sends after notifications/initialized is answered by --root, never by a prompt."""
    listed = mrtr_here("list", "tools", "--root", ".", "--json", *everything())
    assert listed.code == 0, listed.stderr
    assert "get-roots-list" in {tool["name"] for tool in listed.json()["tools"]}
    withheld = mrtr_here("list", "tools", "--root", ".", "--no-roots", "--no-tasks", "--json", *everything())
    assert withheld.code == 0, withheld.stderr
    assert "get-roots-list" not in {tool["name"] for tool in withheld.json()["tools"]}
    discovered = mrtr_here("discover", "--root", ".", "--no-elicitation", "--no-sampling", "-v", *everything())
    assert discovered.code == 0, discovered.stderr
    assert '"capabilities":{"roots":{}},"clientInfo"' in discovered.stderr.replace(" ", "")


QUESTIONS = {
    "elicitation": (["trigger-elicitation-request", "--answer", "elicitation#1.name=Ada"], "Name: Ada"),
    "sampling": (["trigger-sampling-request", "-a", "prompt=hi", "--sampling-reply", "Hello from mrtr"],
                 "Hello from mrtr"),
    "roots": (["get-roots-list", "--root", "/tmp"], "file:///tmp"),
}
# over stdio a roots/list is never a call's question (issue 35, item 1): it is kept beside the round
HOW_ASKED = {"elicitation": "asked in flight", "sampling": "asked in flight", "roots": "unprompted: roots#1"}


@pytest.mark.parametrize("kind", QUESTIONS)
def test_everything_asks_in_flight_and_the_answer_comes_from_the_flags(kind: str):
    arguments, expected = QUESTIONS[kind]
    run = mrtr_here("call", *arguments, "--no-input", "--json", *everything())
    assert run.code == 0, run.stderr
    assert HOW_ASKED[kind] in run.stderr
    assert expected in text_of(run.json()["result"])


def test_everything_reads_a_resource_and_gets_a_prompt():
    read = mrtr_here("read", "demo://resource/static/document/architecture.md", "--json", *everything())
    assert read.code == 0, read.stderr
    assert read.json()["result"]["contents"][0]["uri"] == "demo://resource/static/document/architecture.md"
    prompt = mrtr_here("prompt", "args-prompt", "-a", "city=Lisbon", "--json", *everything())
    assert prompt.code == 0, prompt.stderr
    assert "Lisbon" in str(prompt.json()["result"]["messages"])


def test_everything_over_streamable_http_keeps_its_session_and_asks_on_the_post_stream():
    with everything_over_http() as url:
        run = mrtr_here("call", "trigger-elicitation-request", "--answer", "elicitation#1.name=Grace", "--no-input",
                        "--json", "-v", "--url", url)
    assert run.code == 0, run.stderr
    assert "mcp-session-id" in run.stderr.lower()
    assert "Name: Grace" in text_of(run.json()["result"])


def test_filesystem_asks_for_roots_and_mrtr_answers_from_the_flag(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("hello")
    run = mrtr_here("call", "list_directory", "-a", f"path={tmp_path}", "--root", str(tmp_path), "--no-input", "--json",
                    "--", *reference_server("filesystem", str(tmp_path)))
    assert run.code == 0, run.stderr
    assert f"roots#1 ← roots [\"{tmp_path.as_uri()}\"]  from flag" in run.stderr
    assert "notes.txt" in text_of(run.json()["result"])


def test_a_recording_of_everything_shows_replays_and_serves_in_both_eras(tmp_path: Path):
    path = tmp_path / "everything.yaml"
    record = mrtr_here("call", "trigger-elicitation-request", "--answer", "elicitation#1.name=Ada", "--no-input",
                       "--record", str(path), *everything())
    assert record.code == 0, record.stderr
    shown = mrtr_here("show", str(path))
    assert shown.code == 0 and "asked in flight: elicitation#1" in shown.stdout + shown.stderr
    again = mrtr_here("replay", str(path), "--trust-target")
    assert again.code == 0 and "same as recorded (1 round)" in again.stderr, again.stderr
    served = mrtr_here("replay", str(path), "--protocol-era", "modern", "--stdio", f"{PYTHON} -m mrtr_cli serve {path}")
    assert served.code == 0 and "same as recorded (2 rounds)" in served.stderr, served.stderr


def test_a_recording_over_streamable_http_replays_against_a_new_session(tmp_path: Path):
    path = tmp_path / "everything-http.yaml"
    with everything_over_http() as url:
        record = mrtr_here("call", "trigger-sampling-request", "-a", "prompt=hi", "--sampling-reply", "Hello",
                           "--no-input", "--record", str(path), "--url", url)
        again = mrtr_here("replay", str(path), "--url", url)
    assert record.code == 0, record.stderr
    assert again.code == 0 and "same as recorded (1 round)" in again.stderr, again.stderr


def test_a_filesystem_recording_keeps_the_roots_it_was_asked_for_and_replays(tmp_path: Path):
    """server-filesystem asks roots/list right after the handshake, before or during the call as
    timing has it: either way it is kept beside the one round (unprompted), so a replay does not
    diverge on timing."""
    served = tmp_path / "served"
    served.mkdir()
    (served / "notes.txt").write_text("hello")
    path = tmp_path / "filesystem.yaml"
    server = ["--root", str(served), "--no-input", "--", *reference_server("filesystem", str(served))]
    record = mrtr_here("call", "list_directory", "-a", f"path={served}", "--record", str(path), *server)
    assert record.code == 0, record.stderr
    [only] = yaml.safe_load(path.read_text())["rounds"]
    assert "asked_in_flight" not in only["received"] and only["answers"] == {}
    assert only["unprompted"]["roots#1"]["source"] == "flag" and "response" in only["unprompted"]["roots#1"]
    for _ in range(3):
        again = mrtr_here("replay", str(path), *server)
        assert again.code == 0, again.stderr


def test_check_over_streamable_http_finds_the_older_era_and_the_tool_completes():
    with everything_over_http() as url:
        run = mrtr_here("check", "--url", url, "--tool", "trigger-elicitation-request",
                        "--answer", "elicitation#1.name=Ada", "--no-input")
    assert run.code == 0, run.stderr
    assert "era: the initialize handshake (2025-11-25); also speaks 2026-07-28: no" in run.stdout
    assert "complete after 1 question asked in flight" in run.stdout


def test_a_url_the_server_requires_first_is_shown_with_its_error():
    """-32042 (2025-11-25): the page to open is said with the error, not only under -v."""
    run = mrtr_here("call", "trigger-url-elicitation", "-a", "url=https://example.com/login", "-a", "errorPath=true",
                    "--no-input", *everything())
    assert run.code == 2, run.stderr
    assert "error -32042" in run.stderr and "open this yourself, then call again: https://" in run.stderr
