"""One session of the initialize-handshake era (2024-11-05 to 2025-11-25), served by the same App.

The App's handlers are written as MRTR conversations. For a client of the older era the
session runs the conversation server-side: each question the handler would return as
`input_required` goes to the client as a server request (`elicitation/create`,
`sampling/createMessage`, `roots/list`) while the client's call is in flight, and the
handler is invoked again with the answers and its state until it completes. The final
result goes out in the older shape. A question the negotiated version or the client's
declared capabilities do not allow ends the call: a tool result with `isError`, or a
JSON-RPC error for prompts/get and resources/read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from mrtr_cli.protocol import jsonrpc, meta
from mrtr_cli.protocol.headers import NAMED_METHODS
from mrtr_cli.protocol.mrtr import MRTR_METHODS
from mrtr_cli.server import older_era
from mrtr_cli.server.app import Call, NeedInput, RpcError
from mrtr_cli.server.pending_requests import AskFailed, PendingAsks
from mrtr_cli.server.dispatcher import LISTS, DispatchReply, Dispatcher, check_envelope

Send = Callable[[dict[str, Any]], None]
"""Writes one message (a notification or a server request) on the stream of the call in flight."""
MAX_ROUNDS = 50
"""How many times one call may ask before the server gives up on it."""


class Unanswered(Exception):
    """A question that could not be asked or was not answered; ends the call."""


def opens_older_session(message: Any) -> bool:
    """Whether this first message is an `initialize` request, which opens an older-era session."""
    return isinstance(message, dict) and message.get("method") == "initialize" and "id" in message


def is_response(message: Any) -> bool:
    """Whether a message is a client's response (to a server request), not a request or notification."""
    return isinstance(message, dict) and "method" not in message and ("result" in message or "error" in message)


def is_modern(message: Any) -> bool:
    """Whether a request carries the 2026-07-28 `_meta` envelope (its protocol version key)."""
    params = message.get("params") if isinstance(message, dict) else None
    return isinstance(params, dict) and isinstance(params.get("_meta"), dict) \
        and meta.PROTOCOL_VERSION in params["_meta"]


class OlderSession:
    """The negotiated version, the client's declared capabilities, and the questions in flight."""

    def __init__(self, dispatcher: Dispatcher, version: str, declared: dict[str, Any]) -> None:
        self.dispatcher = dispatcher
        self.version = version
        self.declared = declared
        self.asks = PendingAsks()
        self.initialized = False
        self.log_level: str | None = None
        self.cancelled: set[Any] = set()
        """Ids of calls the client cancelled: they stop asking, and get no response."""
        self._running: dict[Any, int | None] = {}
        """The calls in flight, by id, each with the server request it waits on (None: none)."""

    @classmethod
    def open(cls, dispatcher: Dispatcher, message: dict[str, Any]) -> tuple[OlderSession | None, DispatchReply]:
        """The session an `initialize` request opens (None when it is invalid) and the reply to it."""
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        version, declared = params.get("protocolVersion"), params.get("capabilities")
        if not isinstance(version, str) or not isinstance(declared, dict) or not isinstance(
                params.get("clientInfo"), dict):
            error = RpcError(jsonrpc.INVALID_PARAMS, "Invalid params: initialize needs protocolVersion (a string), "
                             "capabilities and clientInfo (objects)")
            return None, _error_reply(message.get("id"), error)
        session = cls(dispatcher, older_era.negotiate(version), declared)
        return session, DispatchReply(jsonrpc.result_response(message["id"], session._initialize_result()))

    def _initialize_result(self) -> dict[str, Any]:
        app = self.dispatcher.app
        result: dict[str, Any] = {"protocolVersion": self.version, "capabilities": app.capabilities(),
                                  "serverInfo": app.info}
        if app.instructions:
            result["instructions"] = app.instructions
        return result

    def handle(self, message: Any, send: Send) -> DispatchReply:
        """The reply to one request or notification of this session (None for a notification)."""
        request_id = message.get("id") if isinstance(message, dict) else None
        try:
            request = check_envelope(message)
            if request is None:
                self._notification(message)
                return DispatchReply(None, 202)
            reply = DispatchReply(jsonrpc.result_response(request_id, self._dispatch(request, send)))
        except RpcError as error:
            reply = _error_reply(request_id, error)
        except Exception as error:  # noqa: BLE001 - a request nobody foresaw gets an error, never a traceback
            failure = RpcError(jsonrpc.INTERNAL_ERROR, f"Internal error: {type(error).__name__}: {error}")
            reply = _error_reply(request_id, failure)
        if request_id in self.cancelled:
            self.cancelled.discard(request_id)
            return DispatchReply(None)  # the spec: no response to a cancelled request
        return reply

    def _notification(self, message: dict[str, Any]) -> None:
        if message["method"] == "notifications/initialized":
            self.initialized = True
        elif message["method"] == "notifications/cancelled":
            params = message.get("params")
            self._cancel(params.get("requestId") if isinstance(params, dict) else None)

    def _cancel(self, call_id: Any) -> None:
        """The client gave up on a call: the question it waits on fails, and it gets no response."""
        if not isinstance(call_id, (str, int)) or isinstance(call_id, bool) or call_id not in self._running:
            return  # not a call in flight: nothing to stop
        self.cancelled.add(call_id)
        asked = self._running.get(call_id)
        if asked is not None:
            self.asks.fail(asked, "the client cancelled the call")

    def _dispatch(self, request: dict[str, Any], send: Send) -> dict[str, Any]:
        method, params = request["method"], request["params"]
        if is_modern(request):
            raise RpcError(jsonrpc.INVALID_REQUEST, f"Invalid request: this session speaks {self.version} "
                           "(negotiated by initialize); 2026-07-28 requests need a connection of their own")
        if method == "ping":
            return {}
        if method == "initialize":
            raise RpcError(jsonrpc.INVALID_REQUEST, "Invalid request: this session is already initialized")
        if method == "logging/setLevel":
            return self._set_level(params)
        if method in LISTS:
            return self.dispatcher.page(LISTS[method], params)
        if method in MRTR_METHODS:
            return self._run(request, send)
        raise RpcError(jsonrpc.METHOD_NOT_FOUND, f"Method not found: {method}")

    def _set_level(self, params: dict[str, Any]) -> dict[str, Any]:
        if params.get("level") not in meta.LOG_LEVELS:
            raise RpcError(jsonrpc.INVALID_PARAMS, f"Invalid params: level must be one of {', '.join(meta.LOG_LEVELS)}")
        self.log_level = params["level"]
        return {}

    def _run(self, request: dict[str, Any], send: Send) -> dict[str, Any]:
        """Invoke the handler, asking the client each round's questions, until it completes."""
        call = self._call(request, send)
        self._running[request["id"]] = None
        try:
            for _ in range(MAX_ROUNDS):
                outcome = self.dispatcher.app.handle(call)
                if not isinstance(outcome, NeedInput):
                    return older_era.older_result(outcome, self.version)
                responses = self._ask_round(request["id"], outcome.requests, send)
                call = replace(call, responses=responses, state=outcome.state)
            raise Unanswered(f"the server gave up after {MAX_ROUNDS} rounds")
        except Unanswered as reason:
            return _failure(call, str(reason))
        finally:
            self._running.pop(request["id"], None)

    def _call(self, request: dict[str, Any], send: Send) -> Call:
        method, params = request["method"], request["params"]
        subject = params.get(NAMED_METHODS[method])
        arguments = params.get("arguments") or {}
        if not isinstance(subject, str) or not isinstance(arguments, dict):
            raise RpcError(jsonrpc.INVALID_PARAMS, f"Invalid params: {method} needs params.{NAMED_METHODS[method]} "
                           "(a string) and arguments (an object)")
        request_meta = params.get("_meta")
        request_meta = request_meta if isinstance(request_meta, dict) else {}
        notify = lambda name, note: send(jsonrpc.notification(name, note))  # noqa: E731
        return Call(method, subject, arguments, {}, None, self.declared, notify,
                    request_meta.get(meta.PROGRESS_TOKEN), self.log_level)

    def _ask_round(self, call_id: Any, requests: dict[str, dict[str, Any]], send: Send) -> dict[str, Any]:
        """The client's answer to every question of one round, asked one after another."""
        problems = [p for p in (older_era.question_problem(r, self.version, self.declared) for r in requests.values())
                    if p]
        if problems:
            raise Unanswered(problems[0])
        return {key: self._ask(call_id, request, send) for key, request in requests.items()}

    def _ask(self, call_id: Any, request: dict[str, Any], send: Send) -> dict[str, Any]:
        method = request["method"]
        params = older_era.server_request(request, self.version)
        try:
            if call_id in self.cancelled:
                raise AskFailed("the client cancelled the call")
            request_id = self.asks.open()
            self._running[call_id] = request_id
            send(jsonrpc.request(request_id, method, params) if params else
                 {"jsonrpc": "2.0", "id": request_id, "method": method})
            response = self.asks.wait(request_id)
        except (AskFailed, OSError) as failure:
            raise Unanswered(f"{method} got no answer: {failure}") from None
        finally:
            self._running[call_id] = None
        if not isinstance(response.get("result"), dict):
            error = response.get("error")
            error = error if isinstance(error, dict) else {}
            raise Unanswered(f"the client answered {method} with error {error.get('code')}: {error.get('message')}")
        result: dict[str, Any] = response["result"]
        self._completed(params, result, send)
        return result

    def _completed(self, params: dict[str, Any], answer: dict[str, Any], send: Send) -> None:
        """URL mode: once the user consented, the demo's out-of-band step is done; say so (2025-11-25)."""
        if params.get("mode") == "url" and answer.get("action") == "accept" and params.get("elicitationId"):
            send(jsonrpc.notification("notifications/elicitation/complete",
                                      {"elicitationId": params["elicitationId"]}))

    def close(self) -> None:
        """End the session: every question still waiting fails."""
        self.asks.close()


def _failure(call: Call, reason: str) -> dict[str, Any]:
    """A call that cannot finish: a tool result with isError (the model sees why), else a JSON-RPC error."""
    if call.method == "tools/call":
        return {"content": [{"type": "text", "text": f"{call.subject} cannot finish: {reason}"}], "isError": True}
    raise RpcError(jsonrpc.INTERNAL_ERROR, f"{call.method} {call.subject} cannot finish: {reason}")


def _error_reply(request_id: Any, error: RpcError) -> DispatchReply:
    status = 400 if error.code in (jsonrpc.INVALID_REQUEST, jsonrpc.PARSE_ERROR) else 200
    return DispatchReply({"jsonrpc": "2.0", "id": request_id, "error": error.error_object()}, status)
