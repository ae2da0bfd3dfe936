"""mrtr as a client of the initialize-handshake era: the demo, the SDK's server and scripted servers."""

from __future__ import annotations

import json
import time

import pytest

from conftest import SDK_SERVER, mrtr_here
from peers import demo_http, sdk_over_http

OLDER = ("--protocol-era", "older", "--no-input")
BOOK = ("--answer", "elicitation#1.date=2026-12-24", "--answer", "elicitation#2.size=4",
        "--answer", "elicitation#3.confirm=true")


@pytest.fixture(scope="module")
def demo_url():
    with demo_http() as address:
        yield address


@pytest.fixture(params=["stdio", "http"])
def demo(request, demo_url):
    """The demo server named as a target, over stdio and over HTTP."""
    return ("--demo",) if request.param == "stdio" else ("--url", demo_url)


def test_book_table_takes_synthetic_keys(demo):
    run = mrtr_here("call", "book_table", *demo, *OLDER, *BOOK)
    assert run.code == 0, run.stderr
    assert "Booked a table for 4 in Lisbon on 2026-12-24" in run.stdout
    assert "era: older (the initialize handshake, 2025-11-25): asked for by --protocol-era older" in run.stderr
    assert "asked in flight: elicitation#1" in run.stderr and "✓ elicitation#3 ← accept" in run.stderr


def test_match_rules_answer_older_questions(demo):
    run = mrtr_here("call", "book_table", *demo, *OLDER, "--answers", "examples/match_rules.yaml")
    assert run.code == 0, run.stderr
    assert "from answers-file" in run.stderr


def test_answers_file_by_synthetic_key(demo, tmp_path):
    answers = tmp_path / "a.yaml"
    answers.write_text("answers:\n  elicitation#1: {content: {name: Ada}}\n  elicitation#2: {content: {color: blue}}\n")
    run = mrtr_here("call", "two_questions", *demo, *OLDER, "--answers", str(answers))
    assert run.code == 0, run.stderr
    assert "Ada" in run.stdout and "blue" in run.stdout


@pytest.mark.parametrize("tool, flags", [
    ("summarize", ("--sampling-reply", "short")),
    ("workspace_roots", ("--root", "file:///home/ada/project")),
    ("connect_account", ("--answer", "elicitation#1=accept")),
])
def test_every_kind_of_question(demo, tool, flags):
    run = mrtr_here("call", tool, *demo, *OLDER, *flags)
    assert run.code == 0, run.stderr + run.stdout


def test_read_prompt_list_discover(demo):
    read = mrtr_here("read", "vault://x", *demo, *OLDER, "--answer", "elicitation#1.reveal=true")
    assert read.code == 0, read.stderr
    prompt = mrtr_here("prompt", "release_notes", "-a", "version=2.0", *demo, *OLDER,
                       "--answer", "elicitation#1.audience=users")
    assert prompt.code == 0, prompt.stderr
    listed = mrtr_here("list", "tools", *demo, "--protocol-era", "older")
    assert listed.code == 0 and "book_table" in listed.stdout
    discovered = mrtr_here("discover", *demo, "--protocol-era", "older", "--json")
    document = json.loads(discovered.stdout)
    assert document["protocolVersion"] == "2025-11-25" and document["serverInfo"]["name"]


def test_pinned_older_version_declares_no_url_mode(demo):
    run = mrtr_here("call", "connect_account", *demo, "--protocol-version", "2025-06-18", "--no-input",
                    "--answer", "elicitation#1=accept")
    assert "2025-06-18" in run.stderr
    assert run.code == 5  # the demo may not ask URL mode in 2025-06-18: its tool reports why


def test_era_flags_that_contradict_are_usage_errors():
    run = mrtr_here("call", "book_table", "--demo", "--protocol-era", "modern", "--protocol-version", "2025-06-18")
    assert run.code == 1 and "--protocol-era says modern" in run.stderr


INIT = {"result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                   "serverInfo": {"name": "old", "version": "1"}}}
DONE = {"result": {"content": [{"type": "text", "text": "done"}]}}


def test_auto_discover_error_hands_over_at_once(scripted):
    server = scripted(discover={"error": {"code": -32601, "message": "Method not found"}}, steps=[INIT, DONE])
    started = time.monotonic()
    run = mrtr_here("call", "t", "--no-input", *server.args())
    assert run.code == 0, run.stderr
    assert time.monotonic() - started < 20
    assert "the server answered server/discover with an error" in run.stderr
    methods = [m.get("method") for m in server.received()]
    assert methods == ["server/discover", "initialize", "notifications/initialized", "tools/call"]
    call = server.received()[-1]
    assert call["params"]["_meta"] == {"progressToken": f"mrtr-{call['id']}"}


def test_auto_silence_waits_the_probe_wait(scripted):
    server = scripted(discover="silent", steps=[INIT, DONE])
    run = mrtr_here("call", "t", "--no-input", "--era-probe-wait", "0.5", *server.args())
    assert run.code == 0, run.stderr
    assert "no answer to server/discover within --era-probe-wait" in run.stderr


def test_the_variable_sets_the_probe_wait_and_the_flag_wins_over_it(scripted):
    server = scripted(discover="silent", steps=[INIT, DONE])
    run = mrtr_here("call", "t", "--no-input", *server.args(), env={"MRTR_ERA_PROBE_WAIT": "0.2"})
    assert run.code == 0 and "within --era-probe-wait (0.2 s): trying the initialize handshake" in run.stderr
    again = scripted(discover="silent", steps=[INIT, DONE])
    run = mrtr_here("call", "t", "--no-input", "--era-probe-wait", "0.3", *again.args(),
                    env={"MRTR_ERA_PROBE_WAIT": "0.2"})
    assert run.code == 0 and "within --era-probe-wait (0.3 s)" in run.stderr


@pytest.mark.parametrize("given", ["soon", "0", "nan"])
def test_a_variable_that_is_no_wait_is_a_usage_error_saying_so(scripted, given: str):
    server = scripted(steps=[INIT, DONE])
    run = mrtr_here("call", "t", "--no-input", *server.args(), env={"MRTR_ERA_PROBE_WAIT": given})
    assert run.code == 1 and run.stderr.startswith(f"✗ MRTR_ERA_PROBE_WAIT: {given!r} is not a number of seconds")
    assert "unset it for the default (3)" in run.stderr and "Traceback" not in run.stderr
    assert server.received() == []


def test_the_default_wait_is_3_seconds_without_the_variable(monkeypatch: pytest.MonkeyPatch):
    from mrtr_cli.commands.common import era_probe_wait
    from mrtr_cli.definition.options import TargetOptions

    monkeypatch.delenv("MRTR_ERA_PROBE_WAIT")
    assert era_probe_wait(TargetOptions().era_probe_wait) == 3.0
    assert era_probe_wait(0.5) == 0.5


def test_a_modern_server_slow_to_start_is_found_modern_after_all():
    """Silent at the probe, it answers it late and refuses initialize (-32022): it speaks 2026-07-28."""
    slow = ["env", "SDK_START_DELAY=1.5", *SDK_SERVER]
    run = mrtr_here("call", "greet", "-a", "greeting=Hi", "--answer", "__main__:ask_name.name=Ada", "--no-input",
                    "--era-probe-wait", "0.3", "--", *slow)
    assert run.code == 0, run.stderr
    assert "no answer to server/discover (id 1) within --era-probe-wait (0.3 s)" in run.stderr
    eras = [line.strip() for line in run.stderr.splitlines() if line.strip().startswith("era:")]
    assert len(eras) == 1 and eras[0].startswith("era: modern (2026-07-28): the server ")
    assert "(it was slow to start)" in eras[0]
    assert "unknown-response-id" not in run.stderr  # the late answer to the probe is no fault
    assert "Hi, Ada!" in run.stdout


STARTING = json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                       "params": {"level": "info", "data": "starting"}})


def test_auto_exit_after_probe_restarts_once_when_the_server_had_spoken(scripted):
    server = scripted(discover=[{"exit": 1, "before": [STARTING]}], steps=[INIT, DONE])
    run = mrtr_here("call", "t", "--no-input", *server.args())
    assert run.code == 0, run.stderr
    assert "exited after server/discover; mrtr started it once more" in run.stderr


def test_a_server_dead_at_start_up_is_not_an_era_question(scripted):
    """It wrote nothing before it exited: exit 4 with its stderr, and it is not started a second time."""
    server = scripted(discover=[{"exit": 2, "stderr": "fatal: cannot open config.toml\n"}], steps=[INIT, DONE])
    run = mrtr_here("call", "t", "--no-input", *server.args())
    assert run.code == 4, run.stderr
    assert "exited with code 2 while mrtr waited for server/discover" in run.stderr
    assert "fatal: cannot open config.toml" in run.stderr
    assert "once more" not in run.stderr and "initialize" not in run.stderr
    assert [m["method"] for m in server.received()] == ["server/discover"]


def test_undeclared_capability_gets_the_error_and_a_finding(scripted):
    ask = json.dumps({"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage",
                      "params": {"messages": [], "maxTokens": 5}})
    server = scripted(steps=[INIT, {**DONE, "before": [ask], "sleep": 0.3}])
    run = mrtr_here("call", "t", *OLDER, "--no-sampling", *server.args())
    assert run.code == 0, run.stderr
    assert "undeclared-capability" in run.stderr
    replies = [m for m in server.received() if m.get("id") == "s1"]
    assert replies and replies[0]["error"]["code"] == -32601


def test_request_outside_a_call_is_answered(scripted):
    ask = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "roots/list"})
    server = scripted(steps=[{**INIT, "before": []}, {**DONE, "before": [ask]}])
    run = mrtr_here("call", "t", *OLDER, "--root", "/tmp", *server.args())
    assert run.code == 0, run.stderr
    replies = [m for m in server.received() if m.get("id") == 7 and "result" in m]
    assert replies and replies[0]["result"]["roots"][0]["uri"] == "file:///tmp"


def test_a_flood_of_requests_is_bounded(scripted):
    asks = [json.dumps({"jsonrpc": "2.0", "id": f"p{n}", "method": "roots/list"}) for n in range(120)]
    server = scripted(steps=[INIT, {**DONE, "before": asks}])
    run = mrtr_here("call", "t", *OLDER, "--root", "/tmp", *server.args())
    assert run.code == 7 and "more than 100 requests" in run.stderr


SDK_CALLS = [
    ("greet", ("-a", "greeting=Hello", "--answer", "elicitation#1.name=Ada"), "Hello, Ada!"),
    ("summarize", ("-a", "text=abc", "--sampling-reply", "short"), "short"),
    ("workspace", ("--root", "/tmp"), "file:///tmp"),
]


@pytest.mark.parametrize("tool, flags, expected", SDK_CALLS)
def test_sdk_server_over_stdio(tool, flags, expected):
    run = mrtr_here("call", tool, *OLDER, *flags, "--", *SDK_SERVER)
    assert run.code == 0, run.stderr
    assert expected in run.stdout


@pytest.fixture(scope="module")
def sdk_url():
    with sdk_over_http("sse") as url:
        yield url


@pytest.mark.parametrize("tool, flags, expected", SDK_CALLS)
def test_sdk_server_over_http(sdk_url, tool, flags, expected):
    run = mrtr_here("call", tool, "--url", sdk_url, *OLDER, *flags)
    assert run.code == 0, run.stderr
    assert expected in run.stdout
