"""Off a terminal, the live timeline writes a round in one piece, never holds a line while mrtr
waits, and writes the very bytes a line-at-a-time timeline writes. A real conversation with the
benchmark server (a process on stdio), observed in process."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.answering.questions import Chain
from mrtr_cli.answering.scripted import FlagAnswerer
from mrtr_cli.conversation.client import Client, ClientSettings
from mrtr_cli.conversation.session import Session
from mrtr_cli.protocol import meta
from mrtr_cli.render.console import make_console
from mrtr_cli.render.timeline import Timeline
from mrtr_cli.transport.stdio import StdioTransport

SERVER = [sys.executable, str(Path(__file__).resolve().parents[1] / "benchmarks" / "server.py")]
ROUNDS = 30


class CountingStream(io.StringIO):
    """A pipe's stand-in: not a terminal; counts the writes."""

    writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)


def converse(emit: Any, rounds: int = ROUNDS) -> None:
    settings = ClientSettings(identity=meta.ClientIdentity("mrtr", "test"), timeout=10)
    transport = StdioTransport(SERVER)
    try:
        chain = Chain([FlagAnswerer(["step.ok=true"])])
        client = Client(transport, settings, emit)
        outcome = Session(client, chain, max_rounds=rounds + 5).run("tools/call", {"name": "ask", "arguments": {
            "n": rounds}})
    finally:
        transport.close()
    assert outcome.status == "complete"


def test_a_round_is_one_write_and_nothing_waits_unwritten():
    stream = CountingStream()
    timeline = Timeline(make_console(stream))
    seen: list[Any] = []
    written_at_requests: list[str] = []

    def watch(event: Any) -> None:
        seen.append(event)
        if isinstance(event, (events.RequestSent, events.OutcomeReached)):  # mrtr is about to wait, or done
            written_at_requests.append(stream.getvalue())

    converse(events.Broadcast([timeline, watch]))
    assert stream.writes <= ROUNDS + 3
    one_at_a_time = io.StringIO()
    reference = Timeline(make_console(one_at_a_time), live=False)
    lines_so_far = []
    for event in seen:
        reference(event)
        if isinstance(event, (events.RequestSent, events.OutcomeReached)):
            lines_so_far.append(one_at_a_time.getvalue())
    assert stream.getvalue() == one_at_a_time.getvalue()
    assert written_at_requests == lines_so_far


SAMPLING = {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}}
FORM = {"method": "elicitation/create", "params": {"mode": "form", "message": "Go on?", "requestedSchema": {
    "type": "object", "properties": {"ok": {"type": "boolean"}}}}}


def test_a_question_for_a_sampler_is_written_before_it_is_answered():
    """A sampler is a command mrtr waits for: its question must show first. A form is answered at once."""
    for request, held in ((FORM, True), (SAMPLING, False)):
        stream = CountingStream()
        timeline = Timeline(make_console(stream))
        timeline(events.ResponseReceived(2, "tools/call", {"resultType": "input_required"}, None, 1.0, 1))
        timeline(events.InputRequested(1, 2, {"q": request}, None))
        assert (stream.getvalue() == "") is held
        timeline(events.OutcomeReached(None))
        assert "round 1 asks 1 question" in stream.getvalue()
