"""The judge of the client: a watcher of the proxy that finds what the client (the host) did
against the spec, as `mrtr call`'s linter finds what a server did.

It follows each MRTR conversation across its rounds: a `tools/call`, `resources/read` or
`prompts/get` answered with `input_required` is open until the client retries it; a request that
carries `inputResponses` or `requestState` is a retry, of the open conversation of the same method
and name (the one whose `requestState` it echoes, else the latest). In the older era it pairs the
server's requests with the client's answers. The rules themselves are client_checks.py's.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import replace
from typing import Any, NamedTuple

from mrtr_cli.protocol import jsonrpc
from mrtr_cli.protocol.headers import NAMED_METHODS
from mrtr_cli.protocol.lint_rules import Finding, finding
from mrtr_cli.protocol.mrtr import INPUT_REQUESTS, INPUT_REQUIRED, INPUT_RESPONSES, MRTR_METHODS, REQUEST_STATE
from mrtr_cli.proxy import client_checks
from mrtr_cli.proxy.client_checks import Asked, shown
from mrtr_cli.proxy.watching import Crossed

MAX_KEPT = 10_000
"""The most requests in flight, open conversations or server requests the judge keeps (a client
or server that never answers must not grow it without end): the oldest are forgotten first."""
FINISHED_KEPT = 256
"""How many completed conversations a late retry is recognised against."""
EARLY_KEPT = 64
"""How many input_required results told before their request (and answers told before the server's
request) the judge holds for it."""

Conversation = tuple[str, str]
"""(method, name or uri): what a retry must repeat."""


class _Sent(NamedTuple):
    """A request of the client in flight, and the states its conversation has received so far."""

    conversation: Conversation
    request_id: Any
    states: tuple[Any, ...]


class _Open(NamedTuple):
    """A conversation answered with input_required, waiting for its retry."""

    conversation: Conversation
    asked: Asked
    states: tuple[Any, ...]


def id_key(request_id: Any) -> tuple[str, Any]:
    """A JSON-RPC id as a dictionary key that tells 1 from "1" and true (any JSON value: hostile ids too)."""
    if request_id is None or isinstance(request_id, (str, int, float, bool)):
        return type(request_id).__name__, request_id
    return type(request_id).__name__, jsonrpc.compact(request_id)[:1000]


def _conversation(method: str, params: dict[str, Any]) -> Conversation:
    target = params.get(NAMED_METHODS.get(method, "name"))
    return method, target if isinstance(target, str) else shown(target)


def _unprompted(conversation: Conversation, params: dict[str, Any]) -> list[Finding]:
    """A request that carries what only a retry carries, with no input_required result before it."""
    found, what = [], f"{conversation[0]} {shown(conversation[1])}"
    if REQUEST_STATE in params:
        found.append(finding("request-state-invented", f"{what} carries a requestState, but no input_required "
                                                       "result gave it one"))
    responses = params.get(INPUT_RESPONSES)
    if isinstance(responses, dict) and responses:
        found += client_checks.check_keys({}, responses)
    return found


def _unanswered(request: jsonrpc.Request, skipped: bool) -> Finding:
    """A server request of the older era left without an answer: a broken MUST when the client
    answered requests the server sent after it; else it was still open when the connection ended
    (the host may have closed just after it came), which is only told."""
    what = f"the server's {shown(request.method)} request (id {shown(request.id)})"
    if skipped:
        return finding("server-request-unanswered", f"{what} was never answered, though the client answered the "
                                                    "server's later requests")
    return replace(finding("server-request-unanswered", f"{what} was still unanswered when the connection ended"),
                   severity="info")


def keep(kept: dict[Any, Any], key: Any, value: Any, limit: int = MAX_KEPT) -> None:
    """`kept[key] = value` as the newest entry, forgetting the oldest past `limit` (a client or
    server that never answers)."""
    kept.pop(key, None)
    kept[key] = value
    while len(kept) > limit:
        del kept[next(iter(kept))]


class ClientJudge:
    """A Watcher that judges the client; `report` is told each finding as it is found.

    Frames that cross in different threads (the shim's two directions, the HTTP proxy's exchanges)
    may be told a little out of their causal order: a retry told before the result it answers is
    judged once that result is told (or at the end); an input_required result told before its
    request, and an answer told before the server's request it answers, are held for it."""

    def __init__(self, report: Callable[[Finding], None] | None = None) -> None:
        self.findings: list[Finding] = []
        self._report = report
        self._in_flight: dict[tuple[str, Any], _Sent] = {}
        self._open: dict[int, _Open] = {}
        self._opened = 0
        self._finished: deque[tuple[Conversation, tuple[Any, ...]]] = deque(maxlen=FINISHED_KEPT)
        self._server_requests: dict[tuple[str, Any], tuple[int, jsonrpc.Request]] = {}
        """Older era: the server's requests not answered yet, by id: their place in order, and the request."""
        self._asked = 0
        self._last_answered = 0
        self._older = False
        self._older_capabilities: Any = None
        self._waiting: list[tuple[Crossed, jsonrpc.Request]] = []
        self._early: dict[tuple[str, Any], tuple[Crossed, jsonrpc.Response]] = {}
        self._early_answers: dict[tuple[str, Any], jsonrpc.Response] = {}

    def report_to(self, report: Callable[[Finding], None]) -> None:
        """Tell `report` each finding from now on (the proxy's timeline, once it is open)."""
        self._report = report

    def broke_a_must(self) -> bool:
        """Whether any finding is an error (a broken MUST): `--strict` makes that exit 2."""
        return any(found.severity == "error" for found in self.findings)

    def crossed(self, frame: Crossed) -> None:
        message = frame.message
        if isinstance(message, jsonrpc.Request):
            self._request(frame, message)
        elif isinstance(message, jsonrpc.Response):
            self._response(frame, message)

    def ended(self) -> None:
        waiting, self._waiting = self._waiting, []
        for frame, message in waiting:
            self._client_request(frame, message, wait=False)
        for place, request in self._server_requests.values():
            self._add([_unanswered(request, skipped=place < self._last_answered)])
        self._server_requests.clear()

    def _add(self, found: list[Finding]) -> None:
        for each in found:
            self.findings.append(each)
            if self._report is not None:
                self._report(each)

    def _request(self, frame: Crossed, message: jsonrpc.Request) -> None:
        if frame.direction == "to_client":
            if not self._older:
                return  # since 2026-07-28 a server asks through results; what it sends otherwise is not asked
            self._asked += 1
            keep(self._server_requests, id_key(message.id), (self._asked, message))
            early = self._early_answers.pop(id_key(message.id), None)
            if early is not None:
                self._answer(early)
            return
        self._add(client_checks.check_headers(message.method, message.params, frame.headers))
        if message.method == "initialize":
            self._older = True
            self._older_capabilities = message.params.get("capabilities")
        if message.method in MRTR_METHODS:
            self._client_request(frame, message)

    def _client_request(self, frame: Crossed, message: jsonrpc.Request, wait: bool = True) -> None:
        conversation = _conversation(message.method, message.params)
        retry = INPUT_RESPONSES in message.params or REQUEST_STATE in message.params
        if retry and wait and any(sent.conversation == conversation for sent in self._in_flight.values()):
            self._waiting = [*self._waiting[-MAX_KEPT:], (frame, message)]  # its result is not told yet
            return
        states = self._judge_retry(conversation, message) if retry else ()
        keep(self._in_flight, (frame.channel, id_key(message.id)), _Sent(conversation, message.id, states))
        early = self._early.pop(id_key(message.id), None)
        if early is not None:
            self._response(*early)

    def _resume(self, conversation: Conversation) -> None:
        """The retries of `conversation` that waited for the result now told."""
        resumed = [(frame, message) for frame, message in self._waiting
                   if _conversation(message.method, message.params) == conversation]
        self._waiting = [waiting for waiting in self._waiting if waiting not in resumed]
        for frame, message in resumed:
            self._client_request(frame, message)

    def _judge_retry(self, conversation: Conversation, message: jsonrpc.Request) -> tuple[Any, ...]:
        """The findings of a retry; the states of the conversation it continues."""
        params, state = message.params, message.params.get(REQUEST_STATE)
        opened = self._take_open(conversation, state)
        if opened is not None:
            where = f"{conversation[0]} {shown(conversation[1])} (retry id {shown(message.id)}): "
            self._add([replace(found, message=where + found.message)
                       for found in client_checks.check_retry(opened.asked, message.id, params)])
            return opened.states
        if any(done == conversation and (state is None or state in states) for done, states in self._finished):
            self._add([finding("retry-after-complete", f"{conversation[0]} {shown(conversation[1])} is retried with "
                                                       "inputResponses or requestState after its complete result")])
            return ()
        self._add(_unprompted(conversation, params))
        return ()

    def _take_open(self, conversation: Conversation, state: Any) -> _Open | None:
        """The open conversation a retry continues: the one whose state it echoes, else the latest."""
        candidates = [number for number, opened in self._open.items() if opened.conversation == conversation]
        echoed = [number for number in candidates if isinstance(state, str) and self._open[number].asked.state == state]
        chosen = echoed or candidates[-1:]
        return self._open.pop(chosen[0]) if chosen else None

    def _response(self, frame: Crossed, message: jsonrpc.Response) -> None:
        if frame.direction == "to_server":
            self._answer(message)
            return
        sent = self._in_flight.pop((frame.channel, id_key(message.id)), None) or self._sent_on_any_channel(message.id)
        result = message.result if isinstance(message.result, dict) else {}
        if sent is None:
            if result.get("resultType") == INPUT_REQUIRED:
                keep(self._early, id_key(message.id), (frame, message), EARLY_KEPT)
            return
        self._result(sent, result if message.error is None else {})
        self._resume(sent.conversation)

    def _result(self, sent: _Sent, result: dict[str, Any]) -> None:
        """A request's result: an input_required one opens its conversation, a complete one ends it."""
        if not result:
            return
        if result.get("resultType") == INPUT_REQUIRED:
            questions = result.get(INPUT_REQUESTS)
            state = result.get(REQUEST_STATE)
            asked = Asked(sent.request_id, questions if isinstance(questions, dict) else {}, state)
            self._opened += 1
            keep(self._open, self._opened, _Open(sent.conversation, asked, (*sent.states, state)))
        elif sent.states:  # a conversation that had rounds ended complete
            self._finished.append((sent.conversation, sent.states))

    def _sent_on_any_channel(self, request_id: Any) -> _Sent | None:
        """A response that came on another channel than its request (a resumed stream, say)."""
        key = next((found for found in self._in_flight if found[1] == id_key(request_id)), None)
        return self._in_flight.pop(key) if key is not None else None

    def _answer(self, message: jsonrpc.Response) -> None:
        """The client's answer to a server request of the older era."""
        if not self._older:
            return
        asked = self._server_requests.pop(id_key(message.id), None)
        if asked is None:
            keep(self._early_answers, id_key(message.id), message, EARLY_KEPT)
            return
        place, request = asked
        self._last_answered = max(self._last_answered, place)
        if message.error is not None:
            return
        question = {"method": request.method, "params": request.params}
        self._add(client_checks.check_answer(f"{request.method} request {shown(request.id)}", question,
                                             message.result, self._older_capabilities))
