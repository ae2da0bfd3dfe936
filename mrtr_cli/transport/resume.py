"""Resuming a broken SSE stream with `Last-Event-ID` (the older era's Streamable HTTP).

When a POST's event stream ends before the response to its request arrived, and the server gave
its events ids, the client GETs the endpoint again with `Last-Event-ID` and the server replays
what followed. mrtr waits the stream's `retry:` delay first (capped by sse.RETRY_CAP_MS, the cap
of its own backoff), tries at most MAX_RESUMES times, and never past the request's deadline.
Events with empty data (a server's priming event: an id and no message) carry no frame.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

from mrtr_cli.text import safe_line
from mrtr_cli.transport.base import Deadline, Frame, Incoming
from mrtr_cli.transport.sse import SseParser

MAX_RESUMES = 3
"""How many times one request's stream is resumed before mrtr gives up on it."""
DEFAULT_RETRY_MS = 50
"""The wait before a reconnection when the server named none (mrtr's first backoff step)."""


class StreamPosition:
    """Where a stream got to: its last event id and `retry:` delay, kept across reconnections."""

    def __init__(self) -> None:
        self.last_event_id: str | None = None
        self.retry_ms: int | None = None

    def follow(self, parser: SseParser, items: Iterator[Incoming]) -> Iterator[Incoming]:
        """What one connection yields (read through `parser`); then keep where it got to."""
        try:
            for item in items:
                if isinstance(item, Frame):
                    self.saw(str(item.data), (parser.last_event_id or self.last_event_id) is not None)
                yield item
        finally:
            self.last_event_id = parser.last_event_id or self.last_event_id
            self.retry_ms = parser.retry if parser.retry is not None else self.retry_ms
            self.ended()

    def saw(self, data: str, resumable: bool) -> None:
        """A message arrived on the stream (`resumable`: the stream has given an event id)."""

    def ended(self) -> None:
        """The connection ended (`last_event_id` is where it got to)."""

    def delay_seconds(self) -> float:
        return (self.retry_ms if self.retry_ms is not None else DEFAULT_RETRY_MS) / 1000

    def wait(self, stopped: threading.Event, deadline: Deadline | None = None) -> bool:
        """Wait the retry delay (within the deadline); False when stopped or out of time."""
        delay = self.delay_seconds()
        if deadline is not None and deadline.remaining() <= delay:
            return False
        return not stopped.wait(delay)


class Resumption(StreamPosition):
    """One request's stream: whether its response came, and whether to resume it."""

    def __init__(self, request_text: str) -> None:
        super().__init__()
        self.request_id = _request_id(request_text)
        self.answered = False
        self.tries = 0
        self._unread: str | None = None
        """A message that may be the response, not parsed yet (see `saw`)."""

    def saw(self, data: str, resumable: bool) -> None:
        """A message arrived on the stream: is it the response to the request? It matters only
        if the stream can be resumed, so a message on a stream without event ids is kept unread
        (one at most) until an id or the next message comes: a big response is not parsed twice
        (here and by the client) when no resumption can follow."""
        if self.request_id is None or self.answered or '"id"' not in data:
            return
        self._read_unread()
        self._unread = data
        if resumable:
            self._read_unread()

    def ended(self) -> None:
        if self.last_event_id is not None:
            self._read_unread()
        self._unread = None

    def _read_unread(self) -> None:
        data, self._unread = self._unread, None
        if data is None or self.answered:
            return
        try:
            message = json.loads(data)
        except ValueError:
            return
        if isinstance(message, dict) and "method" not in message and message.get("id") == self.request_id:
            self.answered = True

    def describe(self) -> str:
        """What -v shows before a resumption."""
        return (f"the stream ended before the response; resuming after {self.delay_seconds() * 1000:.0f} ms "
                f"with Last-Event-ID {safe_line(self.last_event_id or '', 40)}")

    def wanted(self) -> bool:
        """Resume: no response yet, the server gave an event id, tries left. Counts the try."""
        if self.answered or self.last_event_id is None or self.tries >= MAX_RESUMES:
            return False
        self.tries += 1
        return True


def _request_id(text: str) -> Any:
    try:
        message = json.loads(text)
    except ValueError:
        return None
    return message.get("id") if isinstance(message, dict) else None
