"""Streamable HTTP for clients of the initialize-handshake era (transport page of 2025-11-25).

An `initialize` POST without a session opens one: its response carries `Mcp-Session-Id`, which
every later request must carry (400 without it, 404 for a session that is not, or no longer,
known). A call that asks anything answers with an SSE stream: the server's questions, then the
result. The client's answers come as POSTs of their own (202). DELETE ends the session. GET
stays 405: this server sends nothing outside a call, so it offers no standalone stream, and
no event ids, so there is nothing to resume.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from email.message import Message
from http import HTTPStatus
from typing import Any, Protocol

from mrtr_cli.protocol import jsonrpc
from mrtr_cli.protocol.headers import PROTOCOL_VERSION_HEADER
from mrtr_cli.server.app import RpcError
from mrtr_cli.protocol.handshake import OLDER_VERSIONS
from mrtr_cli.server.dispatcher import Dispatcher
from mrtr_cli.server.http_replies import HttpReplies
from mrtr_cli.server.older_session import OlderSession, is_modern, is_response, opens_older_session
from mrtr_cli.server.sse_responses import ResponseStream

SESSION_HEADER = "Mcp-Session-Id"
MAX_SESSIONS = 1000
"""Sessions kept at once; opening one more ends the oldest."""


class SessionTable:
    """The open sessions of one HTTP server, by id."""

    def __init__(self) -> None:
        self._sessions: OrderedDict[str, OlderSession] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, session: OlderSession) -> str:
        """A new, unguessable id (visible ASCII) for `session`."""
        session_id = secrets.token_urlsafe(24)
        with self._lock:
            self._sessions[session_id] = session
            evicted = self._sessions.popitem(last=False)[1] if len(self._sessions) > MAX_SESSIONS else None
        if evicted is not None:
            evicted.close()
        return session_id

    def get(self, session_id: str) -> OlderSession | None:
        with self._lock:
            return self._sessions.get(session_id)

    def end(self, session_id: str) -> bool:
        """End a session; False when there was none by that id."""
        with self._lock:
            session = self._sessions.pop(session_id, None)
        if session is not None:
            session.close()
        return session is not None


class OlderEraHandler(Protocol):
    """What the older era's serving uses of the handler of one HTTP request (http_serving.py's is one)."""

    @property
    def headers(self) -> Message: ...

    @property
    def dispatcher(self) -> Dispatcher: ...

    @property
    def sessions(self) -> SessionTable: ...

    @property
    def replies(self) -> HttpReplies: ...


def serve_older_era(handler: OlderEraHandler, message: Any) -> bool:
    """Serve `message` when it belongs to the older era; False leaves it to the 2026-07-28 path."""
    session_id = handler.headers.get(SESSION_HEADER)
    if session_id is None and opens_older_session(message):
        _open_session(handler, message)
    elif is_modern(message):
        return False
    elif session_id is not None:
        _serve_in_session(handler, session_id, message)
    elif _looks_older(handler, message):
        handler.replies.send_json(HTTPStatus.BAD_REQUEST, _error(f"Bad Request: the {SESSION_HEADER} header is "
                                                                 "missing; send initialize first to open a session"))
    else:
        return False
    return True


def end_session(handler: OlderEraHandler) -> bool:
    """DELETE with a session id: 200 when it ended, 404 when unknown; False without the header."""
    session_id = handler.headers.get(SESSION_HEADER)
    if session_id is None:
        return False
    if handler.sessions.end(session_id):
        handler.replies.send_empty(HTTPStatus.OK)
    else:
        handler.replies.send_json(HTTPStatus.NOT_FOUND, _error("Session not found"))
    return True


def _looks_older(handler: OlderEraHandler, message: Any) -> bool:
    """No session and no 2026-07-28 envelope: an older-era version header, or none on a request."""
    version = handler.headers.get(PROTOCOL_VERSION_HEADER)
    is_request = isinstance(message, dict) and "id" in message and "method" in message
    return version in OLDER_VERSIONS or (version is None and is_request)


def _open_session(handler: OlderEraHandler, message: dict[str, Any]) -> None:
    session, reply = OlderSession.open(handler.dispatcher, message)
    extra = {SESSION_HEADER: handler.sessions.add(session)} if session is not None else {}
    handler.replies.send_json(reply.status, reply.message or {}, extra)


def _serve_in_session(handler: OlderEraHandler, session_id: str, message: Any) -> None:
    session = handler.sessions.get(session_id)
    if session is None:
        return handler.replies.send_json(HTTPStatus.NOT_FOUND, _error("Session not found: send initialize again"))
    version = handler.headers.get(PROTOCOL_VERSION_HEADER)
    if version is not None and version not in OLDER_VERSIONS:
        return handler.replies.send_json(HTTPStatus.BAD_REQUEST, _error(
            f"Bad Request: unsupported {PROTOCOL_VERSION_HEADER} {version!r}; this session speaks {session.version}"))
    if is_response(message):
        if session.asks.deliver(message):
            return handler.replies.send_empty(HTTPStatus.ACCEPTED)
        return handler.replies.send_json(HTTPStatus.BAD_REQUEST,
                                         _error("Bad Request: no question of this session awaits that response id"))
    _answer_in_session(handler, session, message)


def _answer_in_session(handler: OlderEraHandler, session: OlderSession, message: Any) -> None:
    stream = ResponseStream(handler.replies)
    try:
        reply = session.handle(message, stream.send)
        if reply.message is not None:
            stream.finish(reply.status, reply.message)
        elif isinstance(message, dict) and "id" in message:
            stream.end()  # a cancelled call: its stream closes without a response
        else:
            handler.replies.send_empty(HTTPStatus.ACCEPTED)
    except OSError:
        handler.replies.close_after()  # the client closed the stream; its call ends here


def _error(message: str) -> dict[str, Any]:
    """A JSON-RPC error without an id, as the transport page allows in an HTTP error's body."""
    return {"jsonrpc": "2.0", "error": RpcError(jsonrpc.INVALID_REQUEST, message).error_object()}
