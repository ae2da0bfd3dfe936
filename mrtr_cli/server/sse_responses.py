"""The response to one POST: plain JSON, or an SSE stream once anything precedes the response."""

from __future__ import annotations

import threading
from typing import Any

from mrtr_cli.protocol import jsonrpc
from mrtr_cli.server.http_replies import HttpReplies


class ResponseStream:
    """Starts an SSE stream on the first notification or server request; otherwise the reply goes out as JSON."""

    def __init__(self, replies: HttpReplies) -> None:
        self.replies = replies
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
                self.replies.close_after()
            else:
                self.replies.send_json(status, message)

    def keepalive(self) -> None:
        """An SSE comment on an open stream (a listen stream's way to notice a client that left)."""
        with self.lock:
            self.replies.write(b": keepalive\n\n")

    def end(self) -> None:
        """No response will come (the call was cancelled): the stream, started if need be, closes empty."""
        with self.lock:
            if not self.streaming:
                self._start()
            self.replies.close_after()

    def _start(self) -> None:
        self.replies.start_event_stream()
        self.streaming = True

    def _event(self, message: dict[str, Any]) -> None:
        self.replies.write(f"event: message\ndata: {jsonrpc.encode(message)}\n\n".encode("utf-8"))
