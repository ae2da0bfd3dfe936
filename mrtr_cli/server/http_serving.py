"""Serving over Streamable HTTP with the standard library (http.server).

POST to the endpoint (405 for GET; DELETE only ends an older-era session); `Origin` and `Host`
checked against DNS rebinding (403, 421); the request metadata headers checked against the body
(-32020, 400); a JSON response, or an SSE stream when the handler sends notifications; 202 for
notifications. Clients of the initialize-handshake era are served by http_older.py.
"""

from __future__ import annotations

import json
import sys
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from mrtr_cli.protocol import jsonrpc
from mrtr_cli.server.app import RpcError
from mrtr_cli.server.dispatcher import DispatchReply, Dispatcher
from mrtr_cli.server.http_checks import check_request_headers
from mrtr_cli.server.http_older import SessionTable, end_session, serve_older_era
from mrtr_cli.server.http_replies import HttpReplies
from mrtr_cli.server.sse_responses import ResponseStream
from mrtr_cli.server.listen_streams import hold_open

ENDPOINT = "/mcp"
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
MAX_BODY = 64 * 1024 * 1024


def make_server(dispatcher: Dispatcher, host: str, port: int) -> ThreadingHTTPServer:
    """A bound, not yet serving, HTTP server for `dispatcher`."""
    handler = type("Handler", (McpHandler,), {"dispatcher": dispatcher, "loopback": host in LOOPBACK_NAMES,
                                               "sessions": SessionTable()})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


def serve_http(dispatcher: Dispatcher, host: str, port: int) -> None:
    """Serve until interrupted, after printing `listening on http://HOST:PORT/mcp` to stderr."""
    server = make_server(dispatcher, host, port)
    bound_host, bound_port = server.server_address[:2]
    host_text = bound_host.decode() if isinstance(bound_host, bytes) else str(bound_host)
    shown = f"[{host_text}]" if ":" in host_text else host_text
    print(f"listening on http://{shown}:{bound_port}{ENDPOINT}", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()


class McpHandler(BaseHTTPRequestHandler):
    """One HTTP request to the MCP endpoint."""

    dispatcher: Dispatcher
    loopback: bool
    sessions: SessionTable
    replies: HttpReplies
    """What every response of the connection is written through (both eras' serving and the SSE stream use it)."""
    protocol_version = "HTTP/1.1"
    server_version = "mrtr"
    disable_nagle_algorithm = True  # headers and body leave in separate writes: no 40 ms delayed-ACK stalls

    def setup(self) -> None:
        super().setup()
        self.replies = HttpReplies(self)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the client shows the traffic."""

    def do_GET(self) -> None:
        self._refuse(HTTPStatus.METHOD_NOT_ALLOWED, "this endpoint takes POST only", {"Allow": "POST"})

    do_PUT = do_GET

    def do_DELETE(self) -> None:
        """Ends an older-era session named by `Mcp-Session-Id`; without one, 405 as before."""
        problem = self._origin_problem()
        if problem is not None:
            return self._refuse(*problem)
        if not end_session(self):
            self.do_GET()

    def do_POST(self) -> None:
        problem = self._transport_problem()
        if problem is not None:
            return self._refuse(*problem)
        body = self._read_body()
        if body is None:
            return None
        try:
            message = json.loads(body)
        except (ValueError, RecursionError) as error:
            parse_error = RpcError(jsonrpc.PARSE_ERROR, f"Parse error: {error}")
            return self.replies.send_json(400, _error_body(None, parse_error))
        self._answer(message)

    def _transport_problem(self) -> tuple[int, str, dict[str, str]] | None:
        problem = self._origin_problem()
        if problem is not None:
            return problem
        if (self.headers.get("Content-Type") or "").split(";")[0].strip().lower() != "application/json":
            return HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "Content-Type must be application/json", {}
        accept = (self.headers.get("Accept") or "").lower()
        if "application/json" not in accept or "text/event-stream" not in accept:
            return HTTPStatus.NOT_ACCEPTABLE, "Accept must list application/json and text/event-stream", {}
        return None

    def _origin_problem(self) -> tuple[int, str, dict[str, str]] | None:
        if urlsplit(self.path).path != ENDPOINT:
            return HTTPStatus.NOT_FOUND, f"the MCP endpoint is {ENDPOINT}", {}
        if not self._origin_allowed():
            return HTTPStatus.FORBIDDEN, "Origin not allowed", {}
        if self.loopback and _hostname(self.headers.get("Host", "")) not in LOOPBACK_NAMES:
            return HTTPStatus.MISDIRECTED_REQUEST, "Host not allowed", {}
        return None

    def _origin_allowed(self) -> bool:
        origin = self.headers.get("Origin")
        if origin is None:
            return True
        host = _hostname(urlsplit(origin).netloc)
        return host in LOOPBACK_NAMES or host == _hostname(self.headers.get("Host", ""))

    def _read_body(self) -> bytes | None:
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self._refuse(HTTPStatus.LENGTH_REQUIRED, "Content-Length required")
            return None
        if length > MAX_BODY:
            self._refuse(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "request body too large")
            return None
        return self.rfile.read(length)

    def _answer(self, message: Any) -> None:
        if serve_older_era(self, message):
            return None
        request_id = message.get("id") if isinstance(message, dict) else None
        try:
            check_request_headers(self.headers, message, self.dispatcher.app)
        except RpcError as error:
            return self.replies.send_json(error.status, _error_body(request_id, error))
        stream = ResponseStream(self.replies)
        reply = self.dispatcher.handle(message, stream.notify)
        if reply.listening is not None:
            return self._hold_listen_stream(stream, reply)
        if reply.message is None:
            return self.replies.send_empty(HTTPStatus.ACCEPTED)
        stream.finish(reply.status, reply.message)

    def _hold_listen_stream(self, stream: ResponseStream, reply: DispatchReply) -> None:
        """A subscriptions/listen stream, open until the client leaves or the server ends it."""
        assert reply.listening is not None and reply.ending is not None
        if hold_open(reply.listening, stream.keepalive):
            stream.finish(HTTPStatus.OK, reply.ending)
        self.close_connection = True

    def _refuse(self, status: int, reason: str, extra: dict[str, str] | None = None) -> None:
        """An HTTP-level refusal; the connection closes, as the body may not have been read."""
        self.close_connection = True
        body = _error_body(None, RpcError(jsonrpc.INVALID_REQUEST, reason))
        self.replies.send_json(status, body, {**(extra or {}), "Connection": "close"})


def _error_body(request_id: Any, error: RpcError) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "error": error.error_object()}
    if request_id is not None:
        body["id"] = request_id
    return body


def _hostname(netloc: str) -> str:
    """The host part of `host[:port]` or `[v6]:port`, lower-cased."""
    host = netloc.rsplit("@", 1)[-1]
    if host.startswith("["):
        return host[1:host.find("]")].lower() if "]" in host else host.lower()
    return host.split(":")[0].lower()
