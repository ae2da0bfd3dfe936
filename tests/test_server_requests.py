"""The older era's server requests are answered with what ServerRequests is given, not a client:
the era's version and the declared capabilities, where events go, how a response goes back, who
asks. Driven here with plain parts; the whole path is tested against real servers in
test_older_era_client.py."""

from __future__ import annotations

import json
from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.answering.questions import Chain
from mrtr_cli.answering.scripted import FlagAnswerer
from mrtr_cli.conversation.server_requests import CallAsked, ServerRequests
from mrtr_cli.protocol import handshake, jsonrpc, meta

ELICIT = {"message": "Which date?", "requestedSchema": {"type": "object", "properties": {
    "date": {"type": "string"}}, "required": ["date"]}}


def answering(sent: list[tuple[dict[str, Any], str]], seen: list[Any],
              capabilities: meta.Capabilities | None = None) -> ServerRequests:
    return ServerRequests(Chain([FlagAnswerer(["elicitation#1.date=2026-12-24"])]), handshake.LATEST_OLDER,
                          capabilities or meta.Capabilities(), emit=seen.append,
                          send=lambda message, what: sent.append((message, what)), who_asks=lambda: "demo 1.0")


def request(request_id: int, method: str, params: dict[str, Any]) -> Any:
    return jsonrpc.decode(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}))


def test_a_question_of_the_call_is_answered_through_the_chain_and_sent_back():
    sent: list[tuple[dict[str, Any], str]] = []
    seen: list[Any] = []
    asking = answering(sent, seen)
    asking.begin_call()
    asking.handle(request(7, "elicitation/create", ELICIT), in_flight=3)
    assert sent == [({"jsonrpc": "2.0", "id": 7, "result": {"action": "accept", "content": {"date": "2026-12-24"}}},
                     "response to elicitation#1")]
    assert [type(event).__name__ for event in seen] == ["InputRequested", "AnswerChosen"]
    assert seen[0] == events.InputRequested(1, 3, {"elicitation#1": {"method": "elicitation/create",
                                                                     "params": ELICIT}}, None, in_flight=True)
    call = asking.end_call()
    assert list(call.asked) == ["elicitation#1"] and call.answers["elicitation#1"].response["content"] == {"date": "2026-12-24"}
    assert call.unprompted == {} and call.refused == {}
    assert asking.end_call() == CallAsked()


def test_ping_is_answered_at_once_and_an_undeclared_capability_refused():
    sent: list[tuple[dict[str, Any], str]] = []
    seen: list[Any] = []
    asking = answering(sent, seen, meta.Capabilities(sampling=False))
    asking.handle(request(1, "ping", {}), in_flight=None)
    asking.handle(request(2, "sampling/createMessage", {"messages": [], "maxTokens": 10}), in_flight=None)
    assert sent[0] == ({"jsonrpc": "2.0", "id": 1, "result": {}}, "response to ping")
    refusal, what = sent[1]
    assert what == "response to sampling#1" and refusal["id"] == 2 and "error" in refusal
    assert [type(event).__name__ for event in seen] == ["InputRequested", "Unanswered"]
