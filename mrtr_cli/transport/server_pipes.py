"""A server process's three pipes, read and written in the caller's thread (Linux and macOS).

One selector waits on the server's stdout and stderr, and on its stdin while a write waits for
room in a full pipe. What arrives is cut into lines and queued in arrival order: stdout lines as
frames, stderr lines kept in a tail (and queued too, for `-v`). So a server that floods stdout
while mrtr writes a big request never deadlocks the two (mrtr reads while it waits to write),
and a line reaches the caller without a hand-off between threads.
"""

from __future__ import annotations

import collections
import os
import selectors
import time
from collections.abc import Callable
from typing import IO, Any

from mrtr_cli.transport.base import Frame, Incoming, StderrLine, TransportTimeout

READ_SIZE = 64 * 1024
"""Bytes asked for at each read: a pipe's whole capacity on Linux."""


class PartLine:
    """The bytes of a line not yet ended, kept in the pieces they arrived in (never re-copied)."""

    def __init__(self) -> None:
        self.pieces: list[bytes] = []
        self.size = 0

    def add(self, piece: bytes) -> None:
        self.pieces.append(piece)
        self.size += len(piece)

    def take(self, last: bytes = b"") -> bytes:
        """The whole line, `last` piece included; the buffer starts empty again."""
        if not self.pieces:
            return last
        self.pieces.append(last)
        line = b"".join(self.pieces)
        self.pieces, self.size = [], 0
        return line


class ServerPipes:
    """Lines from the server's stdout and stderr, and writes to its stdin that never block for good
    while the server waits for mrtr to read."""

    def __init__(self, stdin: IO[bytes], stdout: IO[bytes], stderr: IO[bytes], *, max_message_size: int,
                 stderr_line_limit: int, stderr_tail: int, forward_stderr: bool) -> None:
        self.pending: collections.deque[Incoming] = collections.deque()
        """What arrived and was not yet taken, in arrival order."""
        self.ended: tuple[str, Any] | None = None
        """How stdout ended: ("eof", b"") or ("too-large", the limit); lines before it stay pending."""
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=stderr_tail)
        self._stdin = stdin.fileno()
        os.set_blocking(self._stdin, False)
        self._limit = max_message_size
        self._stderr_limit = stderr_line_limit
        self._forward_stderr = forward_stderr
        self._out, self._err = PartLine(), PartLine()
        self._skipping = False
        """The stderr line being read went past the limit: the rest of it, to its newline, is skipped."""
        self._stderr_open = True
        self._closed = False
        self._selector = selectors.DefaultSelector()
        self._selector.register(stdout.fileno(), selectors.EVENT_READ, self._read_stdout)
        self._selector.register(stderr.fileno(), selectors.EVENT_READ, self._read_stderr)

    def wait(self, seconds: float) -> bool:
        """Read what arrives within `seconds`; False when nothing did. Ctrl-C and the signals of
        signals.py raise out of the wait."""
        events = self._selector.select(seconds)
        for key, _ in events:
            key.data(key.fd)
        return bool(events)

    def write(self, data: bytes, seconds: float | None = None,
              before_waiting: Callable[[], None] | None = None) -> bool:
        """Write all of `data`, reading stdout and stderr while the pipe is full (`before_waiting` is
        called before the first wait). False when stdout went past the size limit first (the server
        may be stuck writing it); `TransportTimeout` when the pipe stays full for `seconds` (the
        server reads no more of its stdin); OSError (BrokenPipeError) when the server's stdin is
        closed, or these pipes are (the descriptor may be another file's by now)."""
        if self._closed:
            raise BrokenPipeError("the server's pipes are closed")
        written = _write_some(self._stdin, data)
        if written == len(data):
            return True
        if before_waiting is not None:
            before_waiting()
        rest = memoryview(data)[written:]
        while rest:
            until = None if seconds is None else time.monotonic() + seconds  # again after each write
            if not self._wait_writable(until):
                return False
            rest = rest[_write_some(self._stdin, rest):]
        return True

    def drain_stderr(self, seconds: float) -> None:
        """Read until stderr ends, for at most `seconds` (stdout is read on too, never dropped)."""
        until = time.monotonic() + seconds
        while self._stderr_open and not self._closed:
            left = until - time.monotonic()
            if left <= 0 or not self.wait(left):
                return

    def reading(self) -> bool:
        """Whether a pipe is still open to read: a server blocked writing it waits for mrtr."""
        return not self._closed and bool(self._selector.get_map())

    def close(self) -> None:
        """Read no more: stdout ends here, if it had not (a later read says the server is gone)."""
        self._closed = True
        self.ended = self.ended or ("eof", b"")
        self._selector.close()

    def _wait_writable(self, until: float | None) -> bool:
        self._selector.register(self._stdin, selectors.EVENT_WRITE, None)
        try:
            while True:
                left = None if until is None else until - time.monotonic()
                if left is not None and left <= 0:
                    raise TransportTimeout()
                for key, _ in self._selector.select(left):
                    if key.data is None:
                        return True
                    key.data(key.fd)
                if self.ended is not None and self.ended[0] == "too-large":
                    return False
        finally:
            self._selector.unregister(self._stdin)

    def _read_stdout(self, fd: int) -> None:
        """Queue the complete lines of one read; a line past the limit ends stdout."""
        chunk = _read(fd)
        if not chunk:
            return self._end_stdout(fd)
        start = 0
        newline = chunk.find(b"\n")
        while newline >= 0:
            if not self._add_frame(fd, self._out.take(chunk[start:newline + 1])):
                return
            start = newline + 1
            newline = chunk.find(b"\n", start)
        if start < len(chunk):
            self._out.add(chunk[start:])
            if self._out.size > self._limit + 1:  # room for the \r of a \r\n ending
                self._stop_stdout(fd, ("too-large", self._limit))

    def _add_frame(self, fd: int, line: bytes) -> bool:
        """Queue one stdout line; False when it is past the limit (stdout is read no further)."""
        if len(line) > self._limit and len(line.rstrip(b"\r\n")) > self._limit:
            self._stop_stdout(fd, ("too-large", self._limit))
            return False
        self.pending.append(Frame(_text(line)))
        return True

    def _end_stdout(self, fd: int) -> None:
        """The end of stdout: a last line without its newline is still a line."""
        if self._out.size and not self._add_frame(fd, self._out.take()):
            return
        self._stop_stdout(fd, ("eof", b""))

    def _stop_stdout(self, fd: int, how: tuple[str, Any]) -> None:
        self.ended = how
        self._out = PartLine()
        self._selector.unregister(fd)

    def _read_stderr(self, fd: int) -> None:
        chunk = _read(fd)
        if not chunk:
            self._selector.unregister(fd)
            self._stderr_open = False
            if self._err.size and not self._skipping:
                self._stderr_line(self._err.take())
            return
        start = 0
        newline = chunk.find(b"\n")
        while newline >= 0:
            piece = chunk[start:newline + 1]
            if self._skipping:
                self._skipping = False
            else:
                self._stderr_line(self._err.take(piece))
            start = newline + 1
            newline = chunk.find(b"\n", start)
        if start < len(chunk) and not self._skipping:
            self._err.add(chunk[start:])
            if self._err.size >= self._stderr_limit:  # shown by its first part
                self._stderr_line(self._err.take()[:self._stderr_limit])
                self._skipping = True

    def _stderr_line(self, raw: bytes) -> None:
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        self.stderr_tail.append(line)
        if self._forward_stderr:
            self.pending.append(StderrLine(line))


def _read(fd: int) -> bytes:
    """One read; a pipe closed under mrtr (at shutdown) reads as its end."""
    try:
        return os.read(fd, READ_SIZE)
    except OSError:
        return b""


def _write_some(fd: int, data: bytes | memoryview) -> int:
    try:
        return os.write(fd, data)
    except BlockingIOError:
        return 0


def _text(line: bytes) -> str | bytes:
    """A line as text, decoded here so that only one copy of a big frame is kept; bytes that are
    not UTF-8 stay bytes (jsonrpc.decode reports them). The line ending stays: JSON ignores it."""
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return line
