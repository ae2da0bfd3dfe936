"""The lines of a server's stdout, read by the thread that waits for them.

A reader thread handing each line on costs every round two thread wake-ups instead of one, and on
a busy machine each wake-up waits for a core. `PipeLines` waits on the pipe itself (`select`,
within the caller's deadline) and reads what is there; it holds at most one line past the size
limit, as the reader thread's `readline(limit + 2)` did.
"""

from __future__ import annotations

import os
import select
from typing import IO, Any

from mrtr_cli.transport.base import Deadline

READ_SIZE = 1 << 16
"""Bytes asked of the pipe per read (a pipe holds 64 KiB). Asking for more costs each read an
allocation of that size, even for a line of 300 bytes: 1 MiB made a read ten times slower."""

TIMED_OUT = ("timeout", None)


class PipeLines:
    """Newline-delimited lines of one pipe, each as ("out", text or bytes), or how reading ended:
    ("eof", b""), ("too-large", limit) or ("broken", reason); the end is returned again after."""

    def __init__(self, stream: IO[bytes], limit: int) -> None:
        self._fd = stream.fileno()
        self._limit = limit
        self._buffer = bytearray()
        self._scanned = 0
        """How much of the buffer is known to hold no newline."""
        self._ended: tuple[str, Any] | None = None

    def next(self, deadline: Deadline | None) -> tuple[str, Any]:
        """The next line, or TIMED_OUT when none is complete before the deadline (None: no deadline)."""
        while True:
            if self._ended is not None and self._ended[0] != "eof":
                return self._ended
            line = self._complete_line()
            if line is not None:
                return line
            if self._ended is not None:
                return self._ended
            if not select.select([self._fd], [], [], deadline and deadline.remaining())[0]:
                return TIMED_OUT
            self._read()

    def _complete_line(self) -> tuple[str, Any] | None:
        end = self._buffer.find(b"\n", self._scanned)
        if end < 0 and self._ended is not None and self._buffer:
            end = len(self._buffer) - 1  # the last line, without its newline
        elif end < 0:
            self._scanned = len(self._buffer)
            if self._scanned > self._limit + 2:  # no line ending within the limit
                self._ended = ("too-large", self._limit)
            return None
        if self._content_size(end) > self._limit:
            self._ended = ("too-large", self._limit)
            return None
        with memoryview(self._buffer) as view:
            line = _text(view[:end + 1])
        del self._buffer[:end + 1]
        self._scanned = 0
        return ("out", line)

    def _content_size(self, end: int) -> int:
        """The size of the line ending at `end`, without its line ending (\\n, \\r\\n)."""
        size = end + (self._buffer[end] != 10)
        while size > self._limit and self._buffer[size - 1] in (10, 13):
            size -= 1
        return size

    def _read(self) -> None:
        try:
            chunk = os.read(self._fd, READ_SIZE)
        except OSError as error:
            self._ended = ("broken", f"{type(error).__name__}: {error}")
            return
        if chunk:
            self._buffer += chunk
        else:
            self._ended = ("eof", b"")


def _text(line: memoryview) -> str | bytes:
    """A line as text, decoded straight from the buffer; bytes that are not UTF-8 stay bytes
    (jsonrpc.decode reports them). The line ending stays: JSON ignores it."""
    try:
        return str(line, "utf-8")
    except UnicodeDecodeError:
        return bytes(line)
