"""A conversation's round is shown and checked while the server works on the retry: the round's
events are held back from its response until the retry is written, and never while mrtr waits
(for the server, an answerer that waits, a backoff, the end). A real conversation with the
benchmark server (a process on stdio), observed in process."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.answering import sources
from mrtr_cli.answering.questions import Chain, Question, Response
from mrtr_cli.answering.scripted import FlagAnswerer
from mrtr_cli.conversation.client import Client, ClientSettings
from mrtr_cli.conversation.session import Session
from mrtr_cli.protocol import meta
from mrtr_cli.transport.stdio import StdioTransport

SERVER = [sys.executable, str(Path(__file__).resolve().parents[1] / "benchmarks" / "server.py")]
ROUNDS = 5


class LoggedTransport(StdioTransport):
    """The benchmark server, with each request written noted in `log` as `written ID`."""

    def __init__(self, log: list[Any]) -> None:
        super().__init__(SERVER)
        self.log = log

    def start(self, text: str, headers: Any, before_waiting: Any = None) -> Any:
        exchange = super().start(text, headers, before_waiting)
        self.log.append(f"written {json.loads(text)['id']}")
        return exchange


def converse(chain: Chain, log: list[Any], rounds: int = ROUNDS, observer: Any = None) -> Any:
    """The conversation of `rounds` rounds; its events go to `observer` (by default, into `log`)."""
    settings = ClientSettings(identity=meta.ClientIdentity("mrtr", "test"), timeout=10)
    transport = LoggedTransport(log)
    try:
        client = Client(transport, settings, events.Broadcast([observer or log.append]))
        return Session(client, chain, max_rounds=rounds + 5).run(
            "tools/call", {"name": "ask", "arguments": {"n": rounds}})
    finally:
        transport.close()


def test_a_round_is_delivered_once_its_retry_is_written_in_the_order_it_happened():
    log: list[Any] = []
    outcome = converse(Chain([FlagAnswerer(["step.ok=true"])]), log)
    assert outcome.status == "complete"
    delivered = [entry for entry in log if not isinstance(entry, str)]
    kinds = [type(event).__name__ for event in delivered]
    one_round = ["RequestSent", "FrameReceived", "ResponseReceived", "InputRequested", "AnswerChosen"]
    assert kinds == (["RequestSent", "FrameReceived", "ServerIdentified"] + one_round[2:] + one_round * (ROUNDS - 1)
                     + ["RequestSent", "FrameReceived", "ResponseReceived", "OutcomeReached"])
    for number in range(1, ROUNDS + 1):
        response = next(e for e in delivered if isinstance(e, events.ResponseReceived) and e.round == number)
        frame = next(e for e in delivered if isinstance(e, events.FrameReceived) and e.message.id == response.id)
        retry = next(e for e in delivered if isinstance(e, events.RequestSent) and e.round == number + 1)
        assert log.index(f"written {retry.id}") < log.index(frame) < log.index(response) < log.index(retry)
    for request in (e for e in delivered if isinstance(e, events.RequestSent)):  # shown before its response is awaited
        frame = next(e for e in delivered if isinstance(e, events.FrameReceived) and e.message.id == request.id)
        assert log.index(request) < log.index(frame)


def test_nothing_is_held_while_mrtr_waits_for_an_answerer_that_waits():
    log: list[Any] = []

    class Waiter:
        """Stands for a sampler or a person: mrtr waits for it, so the round must show first."""

        name = sources.SAMPLER

        def offers_roots(self) -> bool:
            return False

        def answer(self, question: Question) -> Response:
            log.append(f"asked {question.round}")
            return Response({"action": "accept", "content": {"ok": True}})

    converse(Chain([Waiter()]), log)
    for number in range(1, ROUNDS + 1):
        asked = log.index(f"asked {number}")
        shown = [e for e in log[:asked] if isinstance(e, events.InputRequested) and e.round == number]
        assert shown, f"round {number}'s questions were held while mrtr waited for its answerer"


def test_a_ctrl_c_while_the_last_round_is_shown_still_ends_the_conversation_in_view():
    """The complete response is shown as the conversation ends; Ctrl-C lands there: the outcome
    (aborted) still reaches every observer, after what was held."""
    log: list[Any] = []

    def interrupted(event: Any) -> None:
        if isinstance(event, events.ResponseReceived) and event.round == ROUNDS + 1 and "interrupted" not in log:
            log.append("interrupted")
            raise KeyboardInterrupt
        log.append(event)

    outcome = converse(Chain([FlagAnswerer(["step.ok=true"])]), log, observer=interrupted)
    assert outcome.status == "aborted"
    assert log.index("interrupted") < len(log) - 1 and isinstance(log[-1], events.OutcomeReached)


def test_an_observer_that_raises_leaves_the_rest_held_for_the_next_release():
    """Ctrl-C lands while a round is shown: what was not yet shown goes out at the next release
    (the session's, at the end), in order, and nothing is lost."""
    seen: list[str] = []

    def interrupted_once(event: str) -> None:
        if event == "b" and "b" not in seen:
            seen.append("b")
            raise KeyboardInterrupt
        seen.append(event)

    broadcast = events.Broadcast([interrupted_once])
    broadcast.held.conversation_starts()
    broadcast.held.response_arrived()
    for event in ("a", "b", "c", "d"):
        broadcast(event)
    try:
        broadcast.held.conversation_ends()
    except KeyboardInterrupt:
        pass
    broadcast("e")  # still held: the release was cut short
    assert seen == ["a", "b"]
    broadcast.held.before_waiting()
    assert seen == ["a", "b", "c", "d", "e"]
    broadcast("f")
    assert seen[-1] == "f"


def test_events_are_held_only_from_a_response_in_a_conversation_until_mrtr_waits():
    """The rule's one owner (events.HeldEvents): outside a conversation a response holds nothing;
    in one, events wait from the response's frame until mrtr is about to wait, then go out in order."""
    seen: list[str] = []
    broadcast = events.Broadcast([seen.append])
    broadcast.held.response_arrived()
    broadcast("outside")
    assert seen == ["outside"]
    broadcast.held.conversation_starts()
    broadcast("request")
    broadcast.held.response_arrived()
    broadcast("frame")
    broadcast("round")
    assert seen == ["outside", "request"]
    broadcast.held.before_waiting()
    assert seen == ["outside", "request", "frame", "round"]
    broadcast("retry")
    broadcast.held.response_arrived()
    broadcast("last frame")
    broadcast.held.conversation_ends()
    broadcast.held.response_arrived()
    broadcast("after")
    assert seen == ["outside", "request", "frame", "round", "retry", "last frame", "after"]
