"""One conversation a real client held through the proxy, told as the engine's events.

`mrtr call` emits events as it converses; here the same events are made from what crossed, so the
timeline shows a host's conversation as it shows mrtr's own, and the recorder keeps it as a
transcript: the first request (round 1), each `input_required` result and its questions, the
host's answers (its retry's `inputResponses`, or in the older era its responses to the server's
requests in flight), each retry (the next round), and the outcome.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from mrtr_cli.conversation import events
from mrtr_cli.answering.sources import HOST
from mrtr_cli.conversation.server_requests import synthetic_key
from mrtr_cli.conversation.session import Outcome
from mrtr_cli.errors import ServerError, UnreachableError
from mrtr_cli.protocol import mrtr
from mrtr_cli.protocol.jsonrpc import Request, Response


class ConversationStart(NamedTuple):
    """What is known when a conversation starts: its request, and what the host and the server said
    of themselves before it (the era, the version, the client's capabilities, serverInfo, the tool)."""

    method: str
    params: dict[str, Any]
    era: events.Era
    version: str
    capabilities: dict[str, Any]
    server: dict[str, Any] | None
    tool: dict[str, Any] | None


@dataclass
class Conversation:
    """A conversation in progress: its round, the request in flight, what the last round asked."""

    method: str
    params: dict[str, Any]
    emit: events.Observer
    round: int = 1
    request_id: Any = None
    sent_at: float = 0.0
    state: str | None = None
    asked: dict[str, dict[str, Any]] = field(default_factory=dict)
    awaiting_retry: bool = False
    ended: bool = False
    in_flight: Counter[str] = field(default_factory=Counter)
    """Older era: how many requests of each method the server sent during the call (their keys)."""
    unprompted: Counter[str] = field(default_factory=Counter)
    """Older era: the same, of the requests that were not the call's questions (a roots/list over stdio)."""

    @property
    def subject(self) -> Any:
        """The tool, prompt or resource it is about."""
        return subject_of(self.params)

    def sent(self, message: Request, headers: Mapping[str, str], retry: bool, at: float) -> None:
        """Its first request, or a retry (the next round), which crossed at `at` (time.monotonic());
        the answers it carries go to the round that asked."""
        echoed = message.params.get(mrtr.REQUEST_STATE) == self.state and self.state is not None
        if retry:
            self._answers_in(message.params)
            self.round += 1
        self.request_id, self.sent_at, self.awaiting_retry = message.id, at, False
        self.emit(events.RequestSent(message.id, message.method, without_meta(message.params), message.raw,
                                     self.round, "retry" if retry else "request", echoed or not retry))
        if headers:
            self.emit(events.WireNote("out", _header_lines(headers), {"headers": dict(headers)}, message.id))

    def received(self, message: Response, headers: Mapping[str, str], at: float) -> bool:
        """The response to the request in flight, which crossed at `at`; True when it ends the conversation."""
        elapsed = max(0.0, at - self.sent_at) * 1000
        self.emit(events.FrameReceived(message))
        content_type = headers.get("content-type")
        if content_type:
            self.emit(events.WireNote("in", _header_lines(headers), {"content_type": content_type.split(";")[0]},
                                      message.id))
        self.emit(events.ResponseReceived(message.id, self.method, message.result, message.error, elapsed, self.round))
        if message.error is None and _input_required(message.result):
            self.asked = _questions(message.result)
            state = message.result.get(mrtr.REQUEST_STATE)
            self.state = state if isinstance(state, str) else None
            self.awaiting_retry = True
            self.emit(events.InputRequested(self.round, message.id, self.asked, self.state))
            return False
        self.end(message)
        return True

    def asked_in_flight(self, message: Request, unprompted: bool = False) -> str:
        """Older era: the server asked while the call is in flight; the key the question takes.
        `unprompted`: not the call's question (a roots/list over stdio), keyed on its own."""
        counts = self.unprompted if unprompted else self.in_flight
        counts[message.method] += 1
        key = synthetic_key(message.method, counts[message.method])
        request = {"method": message.method, "params": message.params}
        self.emit(events.InputRequested(self.round, self.request_id, {key: request}, None, in_flight=True,
                                        unprompted=unprompted))
        return key

    def answered_in_flight(self, key: str, method: str, message: Response, unprompted: bool = False) -> None:
        """Older era: the host's response to the server's request `key` (a refusal is kept too)."""
        response = message.result if message.error is None and isinstance(message.result, dict) else None
        if response is None:
            said = f"the host answered with an error: {message.error}"
            self.emit(events.Unanswered(key, said, self.round, method, HOST, unprompted, said))
            return
        self.emit(events.AnswerChosen(self.round, key, method, response, HOST, unprompted=unprompted))

    def end(self, message: Response | None, why: str = "the connection ended before the conversation did") -> None:
        """The outcome: the last response's, or aborted (`why`) when the connection ended first or
        the conversation was abandoned."""
        self.ended = True
        outcome = Outcome(self.method, self.params)
        if message is None:
            outcome.error = UnreachableError(why)
        elif message.error is not None:
            outcome.status, outcome.error = "error", ServerError(self.method, message.error)
        else:
            outcome.status, outcome.result = "complete", message.result
        self.emit(events.OutcomeReached(outcome))

    def _answers_in(self, params: dict[str, Any]) -> None:
        answers = params.get(mrtr.INPUT_RESPONSES)
        if not isinstance(answers, dict):
            return
        for key, response in answers.items():
            method = self.asked.get(str(key), {}).get("method", "elicitation/create")
            if isinstance(response, dict) and method in mrtr.INPUT_METHODS:
                self.emit(events.AnswerChosen(self.round, str(key), method, response, HOST))


def subject_of(params: dict[str, Any]) -> Any:
    """The tool, prompt or resource a request's params are about (its name, else its uri)."""
    return params.get("name", params.get("uri"))


def without_meta(params: dict[str, Any]) -> dict[str, Any]:
    """A request's params as a conversation keeps them: its `_meta` is the client's, said anew each
    request (version, capabilities, progress token), as mrtr's own transcripts leave it out."""
    return {key: value for key, value in params.items() if key != "_meta"}


def _input_required(result: Any) -> bool:
    return isinstance(result, dict) and result.get("resultType") == mrtr.INPUT_REQUIRED


def _questions(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    requests = result.get(mrtr.INPUT_REQUESTS)
    if not isinstance(requests, dict):
        return {}
    return {str(key): request for key, request in requests.items() if isinstance(request, dict)}


def _header_lines(headers: Mapping[str, str]) -> str:
    return "\n".join(f"{name}: {value}" for name, value in headers.items())
