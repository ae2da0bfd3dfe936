"""`mrtr demo-server --conformance-fixtures`: the suite's fixture tools beside the demo's own,
judged by the real conformance suite over HTTP and called by mrtr over stdio."""

from __future__ import annotations

import json
import subprocess

import pytest

from conftest import PYTHON, ROOT, mrtr_here
from helpers import spec_validator
from mrtr_cli.server import listen_streams
from peers import http_server
from suite_runs import run_scenarios

FIXTURE_DEMO = [PYTHON, "-m", "mrtr_cli", "demo-server", "--conformance-fixtures"]
NOT_SUCCESS = {("sep-2575-http-server-method-not-found-404-initialize", "FAILURE")}
"""The demo answers `initialize`: it also speaks the handshake era (docs/check-rules.md, "Where mrtr
and the suite differ")."""


@pytest.fixture(scope="module")
def suite_checks():
    with http_server([*FIXTURE_DEMO, "--http", "127.0.0.1:0"]) as url:
        yield run_scenarios(url)


def test_the_suite_runs_every_scenario_of_the_issue(suite_checks):
    assert len(suite_checks) == 17, sorted(suite_checks)
    assert sum(len(checks) for checks in suite_checks.values()) >= 60


def test_every_check_passes_but_the_explained_ones(suite_checks):
    seen = {(c["id"], c["status"]) for checks in suite_checks.values() for c in checks if c["status"] != "SUCCESS"}
    assert seen == NOT_SUCCESS, [c for checks in suite_checks.values() for c in checks if c["status"] != "SUCCESS"]


def names(kind: str, *server: str) -> set[str]:
    run = mrtr_here("list", kind, "--json", *server)
    assert run.code == 0, run.stderr
    return {item["name"] for items in run.json().values() if isinstance(items, list) for item in items}


def test_the_plain_demo_keeps_its_short_tool_list():
    plain = names("tools", "--demo")
    assert len(plain) == 9 and not any(name.startswith("test_") for name in plain), plain
    with_fixtures = names("tools", "--", *FIXTURE_DEMO)
    assert plain < with_fixtures
    assert {"test_input_required_result_elicitation", "test_missing_capability", "test_logging_tool",
            "test_streaming_elicitation"} <= with_fixtures
    assert "test_input_required_result_prompt" in names("prompts", "--", *FIXTURE_DEMO)


def test_a_fixture_answered_over_stdio_as_a_user_would():
    run = mrtr_here("call", "test_input_required_result_multi_round", "--answer", "step1.name=Ada",
               "--answer", "step2.color=blue", "--no-input", "--", *FIXTURE_DEMO)
    assert run.code == 0, run.stderr
    assert "Ada likes blue." in run.stdout


def test_a_tool_needing_a_withheld_capability_is_refused():
    run = mrtr_here("call", "test_missing_capability", "--no-sampling", "--no-input", "--", *FIXTURE_DEMO)
    assert run.code != 0 and "-32021" in run.stderr, (run.code, run.stderr)


META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def rpc(request_id, method, **params):
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": {"_meta": META, **params}})


def test_listen_streams_over_stdio_get_only_what_they_asked_for():
    lines = [rpc("listen-1", "subscriptions/listen", notifications={"promptsListChanged": True}),
             rpc(2, "tools/call", name="test_trigger_tool_change"),
             rpc(3, "tools/call", name="test_trigger_prompt_change")]
    done = subprocess.run(FIXTURE_DEMO, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=30,
                          cwd=ROOT)
    sent = [json.loads(line) for line in done.stdout.splitlines()]
    assert [m.get("method", m.get("id")) for m in sent] == [
        "notifications/subscriptions/acknowledged", 2, "notifications/prompts/list_changed", 3], sent
    assert sent[0]["params"] == {"_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"},
                                 "notifications": {"promptsListChanged": True}}
    assert sent[2]["params"]["_meta"] == {"io.modelcontextprotocol/subscriptionId": "listen-1"}
    for message, definition in zip(sent, ["SubscriptionsAcknowledgedNotification", "CallToolResultResponse",
                                          "PromptListChangedNotification", "CallToolResultResponse"]):
        assert not list(spec_validator(definition).iter_errors(message)), (definition, message)


def test_the_plain_demo_has_no_listen_streams():
    done = subprocess.run([PYTHON, "-m", "mrtr_cli", "demo-server"], capture_output=True, text=True, timeout=30,
                          input=rpc(1, "subscriptions/listen", notifications={"toolsListChanged": True}) + "\n",
                          cwd=ROOT)
    assert json.loads(done.stdout)["error"]["code"] == -32601


def test_a_listen_stream_ends_when_its_client_leaves_or_the_server_ends_it(monkeypatch):
    monkeypatch.setattr(listen_streams, "KEEPALIVE_SECONDS", 0.01)
    sent = []
    hub = listen_streams.Subscriptions()
    open_stream = hub.listen(7, {"notifications": {"toolsListChanged": True}}, lambda m, p: sent.append(m))

    def gone() -> None:
        raise BrokenPipeError

    assert listen_streams.hold_open(open_stream, gone) is False  # the client left: nothing more is due
    monkeypatch.setattr(listen_streams, "MAX_LISTEN_SECONDS", 0.05)
    later = hub.listen(8, {"notifications": {}}, lambda m, p: sent.append(m))
    assert listen_streams.hold_open(later, lambda: None) is True  # the server ends it: its response is due
    hub.announce("notifications/tools/list_changed")
    assert sent == [listen_streams.ACKNOWLEDGED, listen_streams.ACKNOWLEDGED] and hub.open == []
