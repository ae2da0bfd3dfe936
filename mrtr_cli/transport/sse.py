"""A pure, incremental Server-Sent Events parser (the WHATWG event-stream format).

Feed it bytes as they arrive, split anywhere (inside a line, between CR and LF, inside a
UTF-8 character); it returns each complete event once its blank line arrives. Lines end with
CRLF, LF or CR; lines starting with `:` are comments (keep-alives); `data` lines of one event
join with newlines. Cost is linear in the stream: each byte is scanned once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LINE_END = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Event:
    """One dispatched event."""

    data: str
    event: str = "message"
    id: str | None = None
    retry: int | None = None


class SseParser:
    """Turns a byte stream into events."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._scanned = 0
        self._started = False
        self._data: list[str] = []
        self._event = ""
        self._id: str | None = None
        self._retry: int | None = None
        self.comments = 0

    def feed(self, chunk: bytes) -> list[Event]:
        """The events completed by `chunk`."""
        self._buffer += chunk
        if not self._started and not self._strip_bom():
            return []
        events = []
        for line in self._lines():
            event = self._line(line)
            if event is not None:
                events.append(event)
        return events

    def _strip_bom(self) -> bool:
        if len(self._buffer) < len(_BOM) and _BOM.startswith(bytes(self._buffer)):
            return False  # could still be a byte-order mark
        if self._buffer.startswith(_BOM):
            del self._buffer[:len(_BOM)]
        self._started = True
        return True

    def _lines(self) -> list[str]:
        lines = []
        start = 0
        while True:
            match = _LINE_END.search(self._buffer, max(self._scanned, start))
            if match is None or (match.group() == b"\r" and match.end() == len(self._buffer)):
                self._scanned = match.start() if match else len(self._buffer)
                break
            lines.append(self._buffer[start:match.start()].decode("utf-8", "replace"))
            start = match.end()
        del self._buffer[:start]
        self._scanned -= start
        return lines

    def _line(self, line: str) -> Event | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            self.comments += 1
            return None
        field, _, value = line.partition(":")
        self._field(field, value[1:] if value.startswith(" ") else value)
        return None

    def _field(self, field: str, value: str) -> None:
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        elif field == "id" and "\0" not in value:
            self._id = value
        elif field == "retry" and value.isdigit():
            self._retry = int(value)

    def _dispatch(self) -> Event | None:
        data, event = self._data, self._event
        self._data, self._event = [], ""
        if not data:
            return None
        return Event("\n".join(data), event or "message", self._id, self._retry)
