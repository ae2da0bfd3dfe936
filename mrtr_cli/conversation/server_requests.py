"""The older era's questions: requests the server sends while a call is in flight (or between calls).

`elicitation/create`, `sampling/createMessage` and `roots/list` become Questions answered by the same
chain as MRTR questions, and the same events tell of them (marked in flight). Such a request has no
`inputRequests` key, so each gets a synthetic one, per method and order within the call (counting
what was asked since the previous call, see `begin_call`):
`elicitation#1`, `elicitation#2`, `sampling#1`, `roots#1`, which `--answer` and answers files use.
`ping` is answered at once. A request for a capability mrtr did not declare in `initialize` gets the
JSON-RPC error and a lint finding; a question refused, or one nothing answers before the call's
request is sent, gets an error and a warning; one nothing answers during the call ends it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from mrtr_cli import events
from mrtr_cli.answering.questions import Answer, Chain, Question, Refused
from mrtr_cli.errors import IncompleteError, MrtrError
from mrtr_cli.events import Observer
from mrtr_cli.protocol import handshake, jsonrpc, meta
from mrtr_cli.protocol.jsonrpc import Request

SendMessage = Callable[[dict[str, Any], str], None]
"""Sends one message that expects no response, named for the timeline (`Client.send`)."""

KEY_NAMES = {"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}
"""The first part of a synthetic key, per method."""
MAX_PER_CALL = 100
"""How many requests one call may bring before mrtr refuses the rest (a server asking in a loop)."""


def synthetic_key(method: str, number: int) -> str:
    """The key of the `number`th request of `method` within one call: `elicitation#1`."""
    return f"{KEY_NAMES.get(method, method)}#{number}"


class ServerRequests:
    """Answers the server's requests through the chain; keeps what each call was asked. It is given
    what it needs, not the client: the era's version and the capabilities declared in initialize,
    where events go, how a response goes back (`send`), and who asks (`who_asks`, for the prompt)."""

    def __init__(self, chain: Chain, version: str, capabilities: meta.Capabilities, *, emit: Observer,
                 send: SendMessage, who_asks: Callable[[], str]) -> None:
        self.chain = chain
        self.version = version
        self.capabilities = capabilities
        self.emit = emit
        self.send = send
        self.who_asks = who_asks
        self.round = 0
        """1 while a call runs (the older era's one round), 0 outside calls."""
        self.asked: dict[str, dict[str, Any]] = {}
        self.answers: dict[str, Answer] = {}
        self._counts: Counter[str] = Counter()

    def answer_through(self, chain: Chain) -> None:
        """Answer through `chain` from now on: `mrtr shell` keeps one session open, and each of its
        calls has its own answering flags."""
        self.chain = chain

    def begin_call(self) -> None:
        """A call starts. What the server asked since the last call ended (server-filesystem's
        `roots/list` right after the handshake) belongs to it: whether such a request arrives just
        before the call's request or just after is timing, not a different conversation."""
        self.round = 1

    def end_call(self) -> tuple[dict[str, dict[str, Any]], dict[str, Answer]]:
        """What the call was asked and the answers given; then outside a call again, keys from 1."""
        taken = (self.asked, self.answers)
        self.round, self.asked, self.answers, self._counts = 0, {}, {}, Counter()
        return taken

    def handle(self, message: Request, in_flight: int | None) -> None:
        """Answer one request (or refuse it with the JSON-RPC error)."""
        if message.method == "ping":
            self._reply(message, jsonrpc.result_response(message.id, {}), "ping")
            return
        capability = handshake.needed_capability(message.method, message.params)
        if capability is None:
            self._reply(message, handshake.refusal(message.id, message.method, None), message.method)
            return
        if sum(self._counts.values()) >= MAX_PER_CALL:
            self._refuse(message, f"the server sent more than {MAX_PER_CALL} requests in one call")
        self._counts[message.method] += 1
        key = synthetic_key(message.method, self._counts[message.method])
        request = {"method": message.method, "params": message.params}
        self.asked[key] = request
        self.emit(events.InputRequested(self.round, in_flight, {key: request}, None, in_flight=True))
        if not handshake.allowed(self.version, self.capabilities, capability):
            self._undeclared(message, key, capability)
            return
        self._answer(message, key, request)

    def _answer(self, message: Request, key: str, request: dict[str, Any]) -> None:
        """In a call, the whole chain answers; before it, no person is asked (the request is not the
        call's doing). A refusal, or nothing to answer outside a call, gets an error and mrtr goes on:
        the server decides what follows. Nothing to answer a question of the call ends it."""
        question = Question(self.round, key, request, self.who_asks(), in_flight=True)
        try:
            answer = (self.chain if self.round else self.chain.without_people()).answer(question)
        except MrtrError as error:
            self._reply(message, handshake.error_response(message.id, jsonrpc.INTERNAL_ERROR,
                                                          f"the user gave no answer: {error.message}"), key)
            if self.round and not isinstance(error, Refused):
                raise  # the call ends, as an unanswered MRTR question ends it
            self.emit(events.Unanswered(key, f"{error.message}; the server got an error, and mrtr goes on"))
            return
        self.answers[key] = answer
        self.emit(events.AnswerChosen(self.round, key, message.method, answer.response, answer.source))
        self._reply(message, jsonrpc.result_response(message.id, answer.response), key)

    def _undeclared(self, message: Request, key: str, capability: str) -> None:
        """The spec's error goes back (the linter reports the request, conversation/linter.py)."""
        elicitation_mode = capability == "elicitation.url" and "elicitation" in handshake.declared(
            self.version, self.capabilities)
        error = (handshake.error_response(message.id, jsonrpc.INVALID_PARAMS, "Invalid params: URL mode "
                                          "elicitation was not declared") if elicitation_mode
                 else handshake.refusal(message.id, message.method, capability))
        self._reply(message, error, key)

    def _refuse(self, message: Request, reason: str) -> None:
        self._reply(message, handshake.error_response(message.id, jsonrpc.INTERNAL_ERROR, reason), message.method)
        raise IncompleteError(reason, "a server that asks in a loop never finishes; check the server")

    def _reply(self, message: Request, response: dict[str, Any], what: str) -> None:
        self.send(response, f"response to {what}")
