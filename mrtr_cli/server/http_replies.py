"""What goes back for one HTTP request to the MCP endpoint: a JSON body, an empty answer, or an
SSE stream's headers and events, written through the standard library's request handler.

Both eras answer through it (http_serving.py for 2026-07-28, http_older.py for the initialize
handshake), and so does the stream that may precede a response (sse_responses.py): none of them
reaches into the handler of another.
"""

from __future__ import annotations

from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import Any

from mrtr_cli.protocol import jsonrpc


class HttpReplies:
    """The reply writer of one connection's requests (a handler serves them one at a time)."""

    def __init__(self, handler: BaseHTTPRequestHandler) -> None:
        self.handler = handler

    def send_json(self, status: int, body: dict[str, Any], extra: dict[str, str] | None = None) -> None:
        """`body` as the whole response, with `extra` headers."""
        data = jsonrpc.encode(body).encode("utf-8")
        self.handler.send_response(status)
        self.handler.send_header("Content-Type", "application/json")
        self.handler.send_header("Content-Length", str(len(data)))
        for name, value in (extra or {}).items():
            self.handler.send_header(name, value)
        self.handler.end_headers()
        self.handler.wfile.write(data)

    def send_empty(self, status: int) -> None:
        """A response with no body (202 for a notification, 200 for a session ended)."""
        self.handler.send_response(status)
        self.handler.send_header("Content-Length", "0")
        self.handler.end_headers()

    def start_event_stream(self) -> None:
        """The headers of an SSE response; the connection closes when the stream ends."""
        self.handler.send_response(HTTPStatus.OK)
        self.handler.send_header("Content-Type", "text/event-stream")
        self.handler.send_header("Cache-Control", "no-store")
        self.handler.send_header("X-Accel-Buffering", "no")
        self.handler.send_header("Connection", "close")
        self.handler.end_headers()

    def write(self, data: bytes) -> None:
        """Part of a stream's body, sent now."""
        self.handler.wfile.write(data)
        self.handler.wfile.flush()

    def close_after(self) -> None:
        """The connection closes once this response is written."""
        self.handler.close_connection = True
