"""What the HTTP proxy hands its watchers: a decoded copy of each JSON-RPC message in a POST body,
a JSON response or an SSE stream's events, with the headers that came with it (names in lower
case; Authorization and cookies left out unless --show-secrets). The bytes themselves go on
untouched (proxy/http_proxy.py); a copy past the size limit is dropped and the timeline says so."""

from __future__ import annotations

import time
from collections.abc import Iterable

from mrtr_cli.conversation import events
from mrtr_cli.errors import ProtocolError
from mrtr_cli.protocol import jsonrpc
from mrtr_cli.protocol.headers import SECRET_HEADERS
from mrtr_cli.proxy.told import Told
from mrtr_cli.proxy.watching import Crossed, Direction
from mrtr_cli.transport.base import format_size
from mrtr_cli.transport.sse import SseParser


def shown_headers(pairs: Iterable[tuple[str, str]], show_secrets: bool) -> dict[str, str]:
    """Headers as watchers get them: lower-case names, repeated ones joined, secrets left out."""
    shown: dict[str, str] = {}
    for name, value in pairs:
        lowered = name.lower()
        if lowered in SECRET_HEADERS and not show_secrets:
            continue
        shown[lowered] = f"{shown[lowered]}, {value}" if lowered in shown else value
    return shown


def too_large(told: Told, size: int, what: str) -> None:
    """The timeline's line for a message passed on whole but too large to watch."""
    told.noted(events.FrameIgnored(f"{what} of {format_size(size)} passed through whole; past --max-message-size it "
                                   "is neither recorded nor judged", "too large"))


class BodyWatch:
    """Decodes a copy of one body as it streams past: a JSON body at its end, SSE event by event.
    Other content types, and encoded bodies (gzip...), are passed on unwatched."""

    def __init__(self, told: Told, direction: Direction, channel: str, headers: dict[str, str], limit: int) -> None:
        self.told, self.direction, self.channel, self.headers, self.limit = told, direction, channel, headers, limit
        media = headers.get("content-type", "").split(";")[0].strip().lower()
        encoded = headers.get("content-encoding", "identity").lower() != "identity"
        self.kind = None if encoded else {"application/json": "json", "text/event-stream": "sse"}.get(media)
        self.parser = SseParser(limit) if self.kind == "sse" else None
        self.pieces: list[bytes] = []
        self.size = 0
        self.finished = False

    def feed(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if self.kind == "json":
            self._json_piece(chunk)
        elif self.parser is not None:
            self._sse_piece(chunk)

    def done(self) -> None:
        """The body ended (told once, however often called)."""
        if self.finished:
            return
        self.finished = True
        if self.kind == "json" and self.pieces:
            self._tell(b"".join(self.pieces))
        elif self.kind == "json" and self.size:
            too_large(self.told, self.size, "a JSON body")

    def _json_piece(self, chunk: bytes) -> None:
        if self.size <= self.limit:
            self.pieces.append(chunk)
        else:
            self.pieces = []

    def _sse_piece(self, chunk: bytes) -> None:
        assert self.parser is not None
        try:
            found = self.parser.feed(chunk)
        except ProtocolError:
            too_large(self.told, self.size, "an SSE event")
            self.parser = None
            return
        for event in found:
            if event.data.strip():
                self._tell(event.data.encode("utf-8"))

    def _tell(self, body: bytes) -> None:
        if not body.strip():
            return
        text = body.decode("utf-8", "replace")
        self.told.crossed(Crossed(self.direction, text, jsonrpc.decode(body), self.headers, self.channel,
                                  time.monotonic()))
