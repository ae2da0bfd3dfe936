"""The demo server on the wire: schema-valid messages, the protocol's errors, the HTTP rules."""

from __future__ import annotations

import itertools
import time

import pytest

from helpers import spec_problems
from mrtr_cli.server.app import Call
from mrtr_cli.server.demo import TOOLS, DemoApp
from mrtr_cli.server.dispatcher import Dispatcher
from mrtr_cli.server.state import Sealer
from peers import HttpPeer, converse, demo_here, demo_http, request

CONVERSATIONS = [
    *[("tools/call", {"name": name, "arguments": {}}) for name in TOOLS],
    ("tools/call", {"name": "book_table", "arguments": {"city": "Zürich  "}}),
    ("prompts/get", {"name": "release_notes", "arguments": {"version": "2.0"}}),
    ("resources/read", {"uri": "vault://recipes"}),
    ("resources/read", {"uri": "demo://readme"}),
]
SIMPLE = ["server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list"]
ERRORS = [
    request(900, "no/such/method"),
    request(901, "tools/call", {"name": "summarize"}, capabilities={}),
    request(902, "tools/call", {"name": "nope"}),
    request(903, "tools/list", version="1999-01-01"),
    {"jsonrpc": "2.0", "id": 904, "method": "tools/list", "params": {}},
    request(905, "tools/call", {"name": "book_table", "arguments": {}, "requestState": "forged"}),
]


@pytest.fixture(params=["stdio", "http"])
def peer(request):
    if request.param == "stdio":
        stdio = demo_here()  # its stdio connection, in this process
        yield stdio
        stdio.close()
    else:
        with demo_http() as url:
            http = HttpPeer(url)
            yield http
            http.close()


def tool_schema(params):
    name = params.get("name")
    return TOOLS[name][0]["inputSchema"] if name in TOOLS else None


def test_everything_the_demo_sends_is_valid_by_the_official_schema(peer):
    ids = itertools.count(1)
    seen = []
    for method in SIMPLE:
        seen += [(m, method) for m in peer.exchange(request(next(ids), method))]
    for method, params in CONVERSATIONS:
        seen += converse(peer, ids, method, params, tool_schema(params))
    for message in ERRORS:
        schema = tool_schema(message["params"]) if isinstance(peer, HttpPeer) else None
        received = peer.exchange(message, schema) if isinstance(peer, HttpPeer) else peer.exchange(message)
        seen += [(m, message["method"]) for m in received]
    assert len(seen) > 40
    assert any(m.get("method") == "notifications/progress" for m, _ in seen)
    problems = [(message, spec_problems(message, method)) for message, method in seen]
    assert [p for p in problems if p[1]] == []


def test_protocol_errors(peer):
    exchange = (lambda m: peer.exchange(m, tool_schema(m["params"]))) if isinstance(peer, HttpPeer) else peer.exchange
    missing_meta = exchange(ERRORS[4])[-1]["error"]
    assert missing_meta["code"] == -32602 and "_meta must carry" in missing_meta["message"]
    version = exchange(ERRORS[3])[-1]["error"]
    assert version["code"] == -32022 and version["data"] == {"supported": ["2026-07-28"], "requested": "1999-01-01"}
    capability = exchange(ERRORS[1])[-1]["error"]
    assert capability["code"] == -32021 and capability["data"] == {"requiredCapabilities": {"sampling": {}}}
    assert exchange(ERRORS[0])[-1]["error"]["code"] == -32601
    assert exchange(ERRORS[2])[-1]["error"]["code"] == -32602


def first_round(peer, name="book_table", arguments=None):
    message = request(1, "tools/call", {"name": name, "arguments": arguments or {}})
    received = peer.exchange(message, TOOLS[name][0]["inputSchema"]) if isinstance(peer, HttpPeer) else peer.exchange(message)
    return received[-1]["result"]


def retry(peer, state, arguments=None, responses=None, name="book_table"):
    params = {"name": name, "arguments": arguments or {}, "requestState": state}
    if responses is not None:
        params["inputResponses"] = responses
    message = request(2, "tools/call", params)
    received = peer.exchange(message, TOOLS[name][0]["inputSchema"]) if isinstance(peer, HttpPeer) else peer.exchange(message)
    return received[-1]


def test_tampered_state_is_refused(peer):
    state = first_round(peer)["requestState"]
    tampered = state[:-3] + ("AAA" if not state.endswith("AAA") else "BBB")
    error = retry(peer, tampered, responses={"date": {"action": "accept", "content": {"date": "2026-12-01"}}})["error"]
    assert error["code"] == -32602 and "failed verification" in error["message"]


def test_state_from_another_request_is_refused(peer):
    state = first_round(peer, arguments={"city": "Lisbon"})["requestState"]
    error = retry(peer, state, arguments={"city": "Porto"})["error"]
    assert error["code"] == -32602 and "another request" in error["message"]


def test_missing_answers_are_asked_again(peer):
    state = first_round(peer)["requestState"]
    again = retry(peer, state)["result"]
    assert again["resultType"] == "input_required" and list(again["inputRequests"]) == ["date"]


def test_extra_unknown_answers_are_ignored(peer):
    state = first_round(peer)["requestState"]
    responses = {"date": {"action": "accept", "content": {"date": "2026-12-01"}}, "surprise": {"x": 1}}
    result = retry(peer, state, responses=responses)["result"]
    assert list(result["inputRequests"]) == ["party"]


def test_expired_state_is_refused():
    dispatcher = Dispatcher(DemoApp(), Sealer(ttl=0.0))
    first = dispatcher.handle(request(1, "tools/call", {"name": "book_table", "arguments": {}}))
    time.sleep(0.01)
    params = {"name": "book_table", "arguments": {}, "requestState": first.message["result"]["requestState"]}
    error = dispatcher.handle(request(2, "tools/call", params)).message["error"]
    assert error["code"] == -32602 and "expired" in error["message"]


def test_log_messages_only_when_asked():
    dispatcher = Dispatcher(DemoApp())
    sent = []
    message = request(1, "tools/call", {"name": "book_table", "arguments": {}})
    dispatcher.handle(message, lambda method, params: sent.append((method, params)))
    assert [m for m, _ in sent] == []
    message["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = "debug"
    dispatcher.handle(message, lambda method, params: sent.append((method, params)))
    assert sent and sent[0][0] == "notifications/message" and sent[0][1]["level"] == "info"


def test_caching_hints_only_on_complete_results():
    dispatcher = Dispatcher(DemoApp())
    listed = dispatcher.handle(request(1, "tools/list")).message["result"]
    assert listed["ttlMs"] == 300000 and listed["cacheScope"] == "public"
    asked = dispatcher.handle(request(2, "resources/read", {"uri": "vault://x"})).message["result"]
    assert asked["resultType"] == "input_required" and "ttlMs" not in asked and "cacheScope" not in asked
    readme = dispatcher.handle(request(3, "resources/read", {"uri": "demo://readme"})).message["result"]
    assert readme["ttlMs"] == 0 and readme["cacheScope"] == "private"
    assert readme["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "mrtr-demo"


def test_pagination_is_deterministic():
    dispatcher = Dispatcher(DemoApp(), page_size=3)
    names, cursor = [], None
    for _ in range(5):
        params = {"cursor": cursor} if cursor else {}
        result = dispatcher.handle(request(1, "tools/list", params)).message["result"]
        names += [t["name"] for t in result["tools"]]
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    assert names == list(TOOLS)
    bad = dispatcher.handle(request(1, "tools/list", {"cursor": "999"})).message["error"]
    assert bad["code"] == -32602


def test_url_elicitation_needs_the_url_capability():
    dispatcher = Dispatcher(DemoApp())
    form_only = {"elicitation": {}}
    error = dispatcher.handle(request(1, "tools/call", {"name": "connect_account"}, form_only)).message["error"]
    assert error["data"] == {"requiredCapabilities": {"elicitation": {"url": {}}}}
    asked = dispatcher.handle(request(1, "tools/call", {"name": "two_questions"}, form_only)).message["result"]
    assert set(asked["inputRequests"]) == {"name", "color"}


def test_handlers_see_what_the_dispatcher_opened():
    calls = []

    class Spy(DemoApp):
        def handle(self, call: Call):
            calls.append(call)
            return super().handle(call)

    dispatcher = Dispatcher(Spy())
    first = dispatcher.handle(request(1, "tools/call", {"name": "poll_status", "arguments": {"job": "j"}}))
    dispatcher.handle(request(2, "tools/call", {"name": "poll_status", "arguments": {"job": "j"},
                                                "requestState": first.message["result"]["requestState"]}))
    assert calls[0].state is None and calls[1].state == {"polls": 1}
