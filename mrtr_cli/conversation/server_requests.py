"""The older era's questions: requests the server sends while a call is in flight (or between calls).

`elicitation/create`, `sampling/createMessage` and `roots/list` become Questions answered by the same
chain as MRTR questions, and the same events tell of them (marked in flight). Such a request has no
`inputRequests` key, so each gets a synthetic one, per method and order within the call:
`elicitation#1`, `elicitation#2`, `sampling#1`, `roots#1`, which `--answer` and answers files use.

Which requests are the call's questions. Over HTTP a request comes on the call's own response stream
or it does not; over stdio nothing ties a request to a call, and when one arrives is timing (a
server-everything sends its own `roots/list` 350 ms after `initialized`, inside the call when a
person is typing, after it when not). So an `elicitation/create` or `sampling/createMessage` that
arrives while the call is in flight is the call's question, and a `roots/list`, or any request that
arrives before the call is sent or after its response, is *unprompted* (over HTTP: any request that
does not come on a stream of the call): answered the same way, kept beside the call's round (its own
keys, counted over the whole connection), never among its questions.

`ping` is answered at once. A request for a capability mrtr did not declare in `initialize` gets the
JSON-RPC error and a lint finding; a request refused, or an unprompted one nothing answers, gets an
error and a warning (both kept, as answers are); a question of the call nothing answers ends it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.answering.questions import ROOTS, Answer, Chain, Question, Refused
from mrtr_cli.errors import IncompleteError, MrtrError
from mrtr_cli.conversation.events import Observer
from mrtr_cli.protocol import handshake, jsonrpc, meta
from mrtr_cli.protocol.jsonrpc import Request

SendMessage = Callable[[dict[str, Any], str], None]
"""Sends one message that expects no response, named for the timeline (`Client.send`)."""

KEY_NAMES = {"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}
"""The first part of a synthetic key, per method."""
MAX_PER_CALL = 100
"""How many requests one call may bring before mrtr refuses the rest (a server asking in a loop)."""
MAX_UNPROMPTED = MAX_PER_CALL
"""How many unprompted requests one connection may bring (they are kept with the transcript's rounds)."""


@dataclass
class CallAsked:
    """What the server asked from one call's start to its end (`end_call`): the call's questions and
    their answers, those it refused (`{method, source, refused}`), and the requests that were not its
    questions, each `{method, params}` with `source` and `response`, or `refused` (as a transcript keeps them)."""

    asked: dict[str, dict[str, Any]] = field(default_factory=dict)
    answers: dict[str, Answer] = field(default_factory=dict)
    refused: dict[str, dict[str, Any]] = field(default_factory=dict)
    unprompted: dict[str, dict[str, Any]] = field(default_factory=dict)


def synthetic_key(method: str, number: int) -> str:
    """The key of the `number`th request of `method` within one call: `elicitation#1`."""
    return f"{KEY_NAMES.get(method, method)}#{number}"


class ServerRequests:
    """Answers the server's requests through the chain; keeps what each call was asked. It is given
    what it needs, not the client: the era's version and the capabilities declared in initialize,
    where events go, how a response goes back (`send`), and who asks (`who_asks`, for the prompt)."""

    def __init__(self, chain: Chain, version: str, capabilities: meta.Capabilities, *, emit: Observer,
                 send: SendMessage, who_asks: Callable[[], str], tied: bool = False) -> None:
        self.chain = chain
        self.tied = tied
        """Whether the transport ties a request to the one it came with (HTTP): then a `roots/list`
        on the call's stream is the call's question."""
        self.version = version
        self.capabilities = capabilities
        self.emit = emit
        self.send = send
        self.who_asks = who_asks
        self.round = 0
        """1 while a call runs (the older era's one round), 0 outside calls."""
        self.call = CallAsked()
        """What the server asked since the last call ended (the unprompted requests before it too)."""
        self._counts: Counter[str] = Counter()
        self.unprompted_seen: set[str] = set()
        """The methods of the unprompted requests the server sent (a replay waits for the recorded ones)."""
        self._unprompted: Counter[str] = Counter()
        """Unprompted requests per method, over the whole connection (their keys never restart)."""

    def answer_through(self, chain: Chain) -> None:
        """Answer through `chain` from now on: `mrtr shell` keeps one session open, and each of its
        calls has its own answering flags."""
        self.chain = chain

    def begin_call(self) -> None:
        """A call starts: from now until `end_call`, an elicitation or a sampling request is its question."""
        self.round = 1

    def end_call(self) -> CallAsked:
        """What the call was asked and the answers given; then outside a call again, its keys from 1."""
        taken = self.call
        self.round, self.call, self._counts = 0, CallAsked(), Counter()
        return taken

    def handle(self, message: Request, in_flight: int | None, outside: bool = False) -> None:
        """Answer one request (or refuse it with the JSON-RPC error); `outside`: it came on no
        request's stream (HTTP's GET stream), so it is not the call's question."""
        if message.method == "ping":
            self._reply(message, jsonrpc.result_response(message.id, {}), "ping")
            return
        capability = handshake.needed_capability(message.method, message.params)
        if capability is None:
            self._reply(message, handshake.refusal(message.id, message.method, None), message.method)
            return
        unprompted = self.round == 0 or outside or (message.method == ROOTS and not self.tied)
        counts = self._unprompted if unprompted else self._counts
        limit, what = (MAX_UNPROMPTED, "of its own") if unprompted else (MAX_PER_CALL, "in one call")
        if sum(counts.values()) >= limit:
            self._refuse(message, f"the server sent more than {limit} requests {what}")
        counts[message.method] += 1
        key = synthetic_key(message.method, counts[message.method])
        request = {"method": message.method, "params": message.params}
        if unprompted:
            self.unprompted_seen.add(message.method)
            self.call.unprompted[key] = dict(request)
        else:
            self.call.asked[key] = request
        self.emit(events.InputRequested(self.round, in_flight, {key: request}, None, in_flight=True,
                                        unprompted=unprompted))
        if not handshake.allowed(self.version, self.capabilities, capability):
            self._undeclared(message, key, capability)
            self._unanswered(key, message.method, unprompted, None, f"the client capability {capability} was not "
                             "declared", f"it needs the client capability {capability}, which mrtr did not declare")
            return
        self._answer(message, key, request, unprompted)

    def _answer(self, message: Request, key: str, request: dict[str, Any], unprompted: bool) -> None:
        """In a call, the whole chain answers; outside it, no person is asked (the request is not the
        call's doing). A refusal, or nothing to answer an unprompted request, gets an error and mrtr
        goes on: the server decides what follows. Nothing to answer a question of the call ends it."""
        question = Question(self.round, key, request, self.who_asks(), in_flight=True, unprompted=unprompted)
        try:
            answer = (self.chain if self.round else self.chain.without_people()).answer(question)
        except MrtrError as error:
            self._reply(message, handshake.error_response(message.id, jsonrpc.INTERNAL_ERROR,
                                                          f"the user gave no answer: {error.message}"), key)
            if not unprompted and not isinstance(error, Refused):
                raise  # the call ends, as an unanswered MRTR question ends it
            refused = error if isinstance(error, Refused) else None
            self._unanswered(key, message.method, unprompted, refused.source if refused else None,
                             refused.reason if refused else error.message, error.message)
            return
        if unprompted:
            self.call.unprompted[key].update(source=answer.source, response=answer.response)
        else:
            self.call.answers[key] = answer
        self.emit(events.AnswerChosen(self.round, key, message.method, answer.response, answer.source,
                                      unprompted=unprompted))
        self._reply(message, jsonrpc.result_response(message.id, answer.response), key)

    def _unanswered(self, key: str, method: str, unprompted: bool, source: str | None, said: str,
                    told: str) -> None:
        """The request got an error and mrtr goes on: kept, as an answer is (`said`: why, in the words
        of `source`, the answerer that refused; None: nothing could answer), and told (`told`)."""
        refusal = {**({"source": source} if source else {}), "refused": said}
        if unprompted:
            self.call.unprompted[key].update(refusal)
        else:
            self.call.refused[key] = {"method": method, **refusal}
        self.emit(events.Unanswered(key, f"{told}; the server got an error, and mrtr goes on", self.round, method,
                                    source, unprompted, said))

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
