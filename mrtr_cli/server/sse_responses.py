"""The response to one POST: plain JSON, or an SSE stream once anything precedes the response."""

from __future__ import annotations

import threading
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

from mrtr_cli.protocol import jsonrpc

if TYPE_CHECKING:
    from mrtr_cli.server.http_serving import McpHandler


class ResponseStream:
    """Starts an SSE stream on the first notification or server request; otherwise the reply goes out as JSON."""

    def __init__(self, handler: McpHandler) -> None:
        self.handler = handler
        self.streaming = False
        self.lock = threading.Lock()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send(jsonrpc.notification(method, params))

    def send(self, message: dict[str, Any]) -> None:
        """One message ahead of the response (a notification, or a server request in the older era)."""
        with self.lock:
            if not self.streaming:
                self._start()
            self._event(message)

    def finish(self, status: int, message: dict[str, Any]) -> None:
        with self.lock:
            if self.streaming:
                self._event(message)
                self.handler.close_connection = True
            else:
                self.handler._send_json(status, message)

    def keepalive(self) -> None:
        """An SSE comment on an open stream (a listen stream's way to notice a client that left)."""
        with self.lock:
            self.handler.wfile.write(b": keepalive\n\n")
            self.handler.wfile.flush()

    def end(self) -> None:
        """No response will come (the call was cancelled): the stream, started if need be, closes empty."""
        with self.lock:
            if not self.streaming:
                self._start()
            self.handler.close_connection = True

    def _start(self) -> None:
        handler = self.handler
        handler.send_response(HTTPStatus.OK)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-store")
        handler.send_header("X-Accel-Buffering", "no")
        handler.send_header("Connection", "close")
        handler.end_headers()
        self.streaming = True

    def _event(self, message: dict[str, Any]) -> None:
        self.handler.wfile.write(f"event: message\ndata: {jsonrpc.encode(message)}\n\n".encode("utf-8"))
        self.handler.wfile.flush()
