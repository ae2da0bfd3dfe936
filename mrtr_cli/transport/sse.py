"""A pure, incremental Server-Sent Events parser (the WHATWG event-stream format).

Feed it bytes as they arrive, split anywhere (inside a line, between CR and LF, inside a
UTF-8 character); it returns each complete event once its blank line arrives. Lines end with
CRLF, LF or CR; lines starting with `:` are comments (keep-alives); `data` lines of one event
join with newlines. Cost is linear in the stream: each byte is scanned once. With a limit,
an event whose lines (the unfinished one included) pass it raises `message_too_large`.
"""

from __future__ import annotations

from dataclasses import dataclass

from mrtr_cli.transport.base import message_too_large

_BOM = b"\xef\xbb\xbf"
RETRY_CAP_MS = 1000
"""The longest `retry:` delay kept (milliseconds): bigger values are clamped to it, the cap of
mrtr's own backoff (session.BACKOFF_CAP)."""


@dataclass(frozen=True)
class Event:
    """One dispatched event."""

    data: str
    event: str = "message"
    id: str | None = None
    retry: int | None = None


class SseParser:
    """Turns a byte stream into events."""

    def __init__(self, max_event_size: int | None = None) -> None:
        self.max_event_size = max_event_size
        self._event_size = 0
        """Bytes of the lines of the event being read (its `data`, `event`, `id` ... lines)."""
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
        self._check_size(len(self._buffer))
        return events

    def _check_size(self, pending: int) -> None:
        """Raise when the event being read, with `pending` bytes not yet a line, passes the limit."""
        if self.max_event_size is not None and self._event_size + pending > self.max_event_size:
            raise message_too_large(self.max_event_size, "an SSE event")

    def _strip_bom(self) -> bool:
        if len(self._buffer) < len(_BOM) and _BOM.startswith(bytes(self._buffer)):
            return False  # could still be a byte-order mark
        if self._buffer.startswith(_BOM):
            del self._buffer[:len(_BOM)]
        self._started = True
        return True

    def _lines(self) -> list[tuple[str, str] | None]:
        """The complete lines in the buffer, as (field, value), or None for a blank line."""
        lines = []
        start = 0
        while True:
            end = self._line_end(max(self._scanned, start))
            if end is None:
                break
            self._event_size = 0 if end == start else self._event_size + end - start  # a blank line ends the event
            self._check_size(0)
            lines.append(self._split(start, end) if end > start else None)
            start = end + (2 if self._buffer[end:end + 2] == b"\r\n" else 1)
        del self._buffer[:start]
        self._scanned -= start
        return lines

    def _split(self, start: int, end: int) -> tuple[str, str]:
        """The line at buffer[start:end] as (field, value), each decoded straight from the buffer:
        a big data line is decoded once and never copied (UTF-8 splits cleanly at the colon)."""
        colon = self._buffer.find(b":", start, end)
        if colon == start:
            return "", ""  # a comment: nothing to decode
        if colon < 0:
            colon = value_start = end  # a field with no value
        else:
            value_start = colon + 2 if self._buffer[colon + 1:colon + 2] == b" " else colon + 1
        with memoryview(self._buffer) as view:
            return str(view[start:colon], "utf-8", "replace"), str(view[value_start:end], "utf-8", "replace")

    def _line_end(self, position: int) -> int | None:
        """Where the next line ends (CR, LF or CRLF); None until it is known.

        A CR is looked for only before the next LF, so lines ending in LF cost one scan.
        """
        newline = self._buffer.find(b"\n", position)
        carriage = self._buffer.find(b"\r", position, newline if newline >= 0 else len(self._buffer))
        end = carriage if carriage >= 0 else newline
        if end < 0:
            self._scanned = len(self._buffer)
            return None
        if carriage >= 0 and end + 1 == len(self._buffer):
            self._scanned = end  # a CR at the very end: a CRLF may be split
            return None
        return end

    def _line(self, line: tuple[str, str] | None) -> Event | None:
        if line is None:
            return self._dispatch()
        field, value = line
        if not field:  # the line starts with a colon: a comment (a keep-alive)
            self.comments += 1
            return None
        self._field(field, value)
        return None

    def _field(self, field: str, value: str) -> None:
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        elif field == "id" and "\0" not in value:
            self._id = value
        elif field == "retry" and value.isascii() and value.isdigit():  # not "²" or "٣": ASCII digits only
            digits = value.lstrip("0")[:5] or "0"  # five digits are past the cap: no int() of 5 000 digits
            self._retry = min(int(digits), RETRY_CAP_MS)

    @property
    def last_event_id(self) -> str | None:
        """The last `id:` seen, dispatched or not (what a reconnection sends as `Last-Event-ID`)."""
        return self._id or None

    @property
    def retry(self) -> int | None:
        """The last `retry:` delay seen (milliseconds, capped), if any."""
        return self._retry

    def _dispatch(self) -> Event | None:
        data, event = self._data, self._event
        self._data, self._event = [], ""
        if not data:
            return None
        return Event("\n".join(data), event or "message", self._id, self._retry)
