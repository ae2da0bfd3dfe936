"""The stdio shim's pipes: a server process between the host's stdin and stdout.

Each byte goes on as it came, in the chunk it came in: the host's stdin to the server's stdin, the
server's stdout to the host's stdout, its stderr to the host's stderr. Nothing is decoded or
re-encoded on the way; a copy of each whole line (up to `max_message_size`) is handed to
`on_line` after the bytes went on, and a longer line is only measured (`on_oversize`). One thread
a direction, so neither side's full pipe holds up the other, as when they are joined directly.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Callable
from typing import IO

from mrtr_cli.transport.stdio import GRACE_SECONDS, signal_server_group, spawn_server

CHUNK = 64 * 1024
"""The most read from a pipe at once."""
TO_SERVER = "to_server"
TO_CLIENT = "to_client"

LineSeen = Callable[[str, bytes], None]
"""A whole line that crossed (without its newline), and its direction."""
OversizeSeen = Callable[[str, int], None]
"""A line past the size limit ended after this many bytes, in this direction: passed on, not kept."""


class LineSplitter:
    """Cuts a stream of chunks into lines for the watchers, keeping at most `limit` bytes of one."""

    def __init__(self, direction: str, limit: int, on_line: LineSeen, on_oversize: OversizeSeen) -> None:
        self.direction = direction
        self.limit = limit
        self.on_line = on_line
        self.on_oversize = on_oversize
        self._pieces: list[bytes] = []
        self._size = 0
        self._oversize = False

    def feed(self, chunk: bytes) -> None:
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                self._add(chunk[start:])
                return
            self._add(chunk[start:end])
            self._line_ended()
            start = end + 1

    def _add(self, piece: bytes) -> None:
        self._size += len(piece)
        if self._oversize or not piece:
            return
        if self._size > self.limit:
            self._oversize, self._pieces = True, []
        else:
            self._pieces.append(piece)

    def _line_ended(self) -> None:
        line, size, oversize = b"".join(self._pieces), self._size, self._oversize
        self._pieces, self._size, self._oversize = [], 0, False
        if oversize:
            self.on_oversize(self.direction, size)
        elif line.strip():
            self.on_line(self.direction, line.rstrip(b"\r"))


class StdioRelay:
    """A server process spawned without a shell, in its own process group, relayed to fds 0, 1, 2."""

    def __init__(self, command: list[str], max_message_size: int, on_line: LineSeen, on_oversize: OversizeSeen,
                 host_in: int = 0, host_out: int = 1, host_err: int = 2) -> None:
        self.process = spawn_server(command, None, None)
        self._host = (host_in, host_out, host_err)
        self._splitters = {way: LineSplitter(way, max_message_size, on_line, on_oversize)
                           for way in (TO_SERVER, TO_CLIENT)}
        self._threads: list[threading.Thread] = []
        self._stopping = threading.Lock()

    def run(self) -> int:
        """Relay until the server exits; its exit code (128 + N when signal N ended it)."""
        process = self.process
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        host_in, host_out, host_err = self._host
        self._start(self._host_to_server, host_in, process.stdin.fileno(), daemon=True)
        self._start(self._copy, process.stdout.fileno(), host_out, self._splitters[TO_CLIENT].feed)
        self._start(self._copy, process.stderr.fileno(), host_err, None)
        code = process.wait()
        for thread in self._threads[1:]:
            thread.join(GRACE_SECONDS)  # what the server wrote before it ended still reaches the host
        return code if code >= 0 else 128 - code

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

    def _start(self, target: Callable[..., None], *args: object, daemon: bool = False) -> None:
        thread = threading.Thread(target=target, args=args, daemon=daemon, name=f"relay-{len(self._threads)}")
        self._threads.append(thread)
        thread.start()

    def _host_to_server(self, source: int, sink: int) -> None:
        """The host's messages to the server; the host closing its stdin stops the server."""
        self._copy(source, sink, self._splitters[TO_SERVER].feed)
        if self.process.poll() is None:
            self.stop()

    @staticmethod
    def _copy(source: int, sink: int, seen: Callable[[bytes], None] | None) -> None:
        """Copy `source` to `sink` chunk by chunk until either ends; `seen` gets each chunk after."""
        while True:
            try:
                chunk = os.read(source, CHUNK)
            except OSError:
                chunk = b""
            if not chunk or not _write_all(sink, chunk):
                break
            if seen is not None:
                seen(chunk)


def _write_all(fd: int, data: bytes) -> bool:
    """Write all of `data`; False when the reader is gone."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view):]
        except OSError:
            return False
    return True


def _close(stream: IO[bytes]) -> None:
    try:
        stream.close()
    except OSError:
        pass
