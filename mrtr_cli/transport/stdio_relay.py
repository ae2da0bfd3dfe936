"""The stdio shim's pipes: a server process between the host's stdin and stdout.

Each byte goes on as it came, in the chunk it came in: the host's stdin to the server's stdin, the
server's stdout to the host's stdout, its stderr to the host's stderr. Nothing is decoded or
re-encoded on the way; a copy of each whole line (up to `max_message_size`) is handed to
`on_seen` after the bytes went on, and a longer line is only measured. One thread
a direction, so neither side's full pipe holds up the other, as when they are joined directly.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import IO, NamedTuple

from mrtr_cli.process import signals
from mrtr_cli.transport.stdio import GRACE_SECONDS, signal_server_group, spawn_server

CHUNK = 64 * 1024
"""The most read from a pipe at once."""
EXIT_GRACE_SECONDS = 0.5
"""Once the server exited, how long its stdout and stderr may take to end before what it left
running is stopped."""
TO_SERVER = "to_server"
TO_CLIENT = "to_client"


class Seen(NamedTuple):
    """A whole line that crossed, without its newline; `line` is None past the size limit, where
    only its `size` was counted (it was passed on all the same)."""

    direction: str
    line: bytes | None
    size: int


class LineSplitter:
    """Cuts a stream of chunks into lines for the watchers, keeping at most `limit` bytes of one."""

    def __init__(self, direction: str, limit: int) -> None:
        self.direction = direction
        self.limit = limit
        self._pieces: list[bytes] = []
        self._size = 0
        self._oversize = False

    def cut(self, chunk: bytes) -> list[Seen]:
        """The lines `chunk` completes."""
        seen: list[Seen] = []
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                self._add(chunk[start:])
                return seen
            self._add(chunk[start:end])
            self._line_ended(seen)
            start = end + 1

    def _add(self, piece: bytes) -> None:
        self._size += len(piece)
        if self._oversize or not piece:
            return
        if self._size > self.limit:
            self._oversize, self._pieces = True, []
        else:
            self._pieces.append(piece)

    def _line_ended(self, seen: list[Seen]) -> None:
        line, size, oversize = b"".join(self._pieces), self._size, self._oversize
        self._pieces, self._size, self._oversize = [], 0, False
        if oversize:
            seen.append(Seen(self.direction, None, size))
        elif line.strip():
            seen.append(Seen(self.direction, line.rstrip(b"\r"), size))


class StdioRelay:
    """A server process spawned without a shell, in its own process group, relayed to fds 0, 1, 2.

    `on_seen` gets the lines in the order they crossed: each one is queued before its bytes go on
    (so a response is never queued before its request) and delivered after, by whichever thread
    comes first, one at a time."""

    def __init__(self, command: list[str], max_message_size: int, on_seen: Callable[[Seen], None],
                 host_in: int = 0, host_out: int = 1, host_err: int = 2) -> None:
        self.process = spawn_server(command, None, None)
        self.on_seen = on_seen
        self._host = (host_in, host_out, host_err)
        self._splitters = {way: LineSplitter(way, max_message_size) for way in (TO_SERVER, TO_CLIENT)}
        self._threads: list[threading.Thread] = []
        self._stopping = threading.Lock()
        self._queue: deque[Seen] = deque()
        self._queueing = threading.Lock()
        self._delivering = threading.Lock()

    def run(self) -> int:
        """Relay until the server exits; its exit code (128 + N when signal N ended it)."""
        process = self.process
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        host_in, host_out, host_err = self._host
        self._start(self._host_to_server, host_in, process.stdin.fileno())
        self._start(self._copy, process.stdout.fileno(), host_out, self._splitters[TO_CLIENT])
        self._start(self._copy, process.stderr.fileno(), host_err, None)
        code = signals.awake(process.wait, subprocess.TimeoutExpired)  # the server's exit: a SIGTERM still lands
        if not self._copied_within(EXIT_GRACE_SECONDS):  # what the server wrote before it ended reaches the host
            self._stop_leftovers()
        return code if code >= 0 else 128 - code

    def _copied_within(self, seconds: float) -> bool:
        """Wait up to `seconds` for the server's stdout and stderr to end; whether they did."""
        until = time.monotonic() + seconds
        for thread in self._threads[1:]:
            thread.join(max(0.0, until - time.monotonic()))
        return not any(thread.is_alive() for thread in self._threads[1:])

    def _stop_leftovers(self) -> None:
        """The server exited, but what it started still holds its pipes open: SIGTERM its process
        group, wait; then SIGKILL, wait; then close the pipes to what is left (a process that left the
        group): the copying threads are daemons, and keep nothing from ending."""
        for step in (signal.SIGTERM, signal.SIGKILL):
            signal_server_group(self.process, step)
            if self._copied_within(GRACE_SECONDS):
                return
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                _cut(stream.fileno())

    def stop(self) -> None:
        """Close the server's stdin, wait; then SIGTERM, wait; then SIGKILL to its process group."""
        with self._stopping:
            if self.process.stdin is not None:
                _close(self.process.stdin)
            for step in (None, signal.SIGTERM, signal.SIGKILL):
                if step is not None:
                    signal_server_group(self.process, step)
                try:
                    self.process.wait(GRACE_SECONDS)
                    return
                except subprocess.TimeoutExpired:
                    continue

    def _start(self, target: Callable[..., None], *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True, name=f"relay-{len(self._threads)}")
        self._threads.append(thread)
        signals.start(thread)

    def _host_to_server(self, source: int, sink: int) -> None:
        """The host's messages to the server; the host closing its stdin stops the server."""
        self._copy(source, sink, self._splitters[TO_SERVER])
        if self.process.poll() is None:
            self.stop()

    def _copy(self, source: int, sink: int, splitter: LineSplitter | None) -> None:
        """Copy `source` to `sink` chunk by chunk until either ends; the lines queued before each
        chunk goes on, delivered after."""
        while True:
            try:
                chunk = os.read(source, CHUNK)
            except OSError:
                chunk = b""
            if not chunk:
                break
            if splitter is not None:
                with self._queueing:
                    self._queue.extend(splitter.cut(chunk))
            if not _write_all(sink, chunk):
                break
            self._deliver()

    def _deliver(self) -> None:
        """Hand the queued lines to `on_seen`, in order, one at a time."""
        with self._delivering:
            while True:
                with self._queueing:
                    if not self._queue:
                        return
                    seen = self._queue.popleft()
                self.on_seen(seen)


def _write_all(fd: int, data: bytes) -> bool:
    """Write all of `data`; False when the reader is gone."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view):]
        except OSError:
            return False
    return True


def _cut(descriptor: int) -> None:
    """Close a pipe another thread may be reading: its descriptor becomes /dev/null (that thread's
    next read ends it, and the number is never reused by a file opened meanwhile)."""
    nothing = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(nothing, descriptor)
    finally:
        os.close(nothing)


def _close(stream: IO[bytes]) -> None:
    try:
        stream.close()
    except OSError:
        pass
