"""The in-memory transport: a server in this process, reached as a stdio server is, without a process.

A server here is anything that takes the client's lines one at a time (`Connection.receive`) and
writes its own to the sink it was given, one JSON-RPC message per line: the demo's dispatcher
behind its stdio connection (commands/in_memory.py), or a test's own handler. It runs on a thread
of its own, as a process would, so a slow tool or a question waiting for its answer blocks the
server and never the client; the client reads what arrives within its deadline. Modelled on
httpx's `MockTransport`: the same contract as the real transports (transport/base.py), nothing
spawned, nothing listening.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import IO, Any, Protocol

from mrtr_cli.errors import UnreachableError
from mrtr_cli.process import signals
from mrtr_cli.transport.base import ChannelExchange, Deadline, Frame, Headers, Incoming, TransportTimeout

CLOSING_WAIT_SECONDS = 5.0
"""How long the server thread may take to finish once the client has closed (as stdio's grace)."""


class Connection(Protocol):
    """One client of the server: its lines in, in order; `close` when the client has gone."""

    def receive(self, line: bytes) -> None:
        """One line from the client."""

    def close(self) -> None:
        """The client closed its side (stdin's end, for a process)."""


Serve = Callable[[IO[bytes]], Connection]
"""Makes the server's side of one connection, given the sink it writes its lines to."""


class LineSink:
    """The server's stdout, in memory: each complete line it writes becomes one frame for the client."""

    def __init__(self, arrived: queue.Queue[Frame | None]) -> None:
        self._arrived = arrived
        self._partial = b""
        self._lock = threading.Lock()

    def write(self, data: bytes) -> int:
        with self._lock:
            *lines, self._partial = (self._partial + data).split(b"\n")
        for line in lines:
            if line.strip():
                self._arrived.put(Frame(line.decode("utf-8")))
        return len(data)

    def flush(self) -> None:
        """Each line is delivered as it is written: nothing is held back."""


class MemoryTransport:
    """A server served by `serve` in this process, on its own thread; `name` is how messages name it."""

    def __init__(self, serve: Serve, name: str = "the in-memory server") -> None:
        self.name = name
        self._to_server: queue.Queue[bytes | None] = queue.Queue()
        self._from_server: queue.Queue[Frame | None] = queue.Queue()
        connection = serve(LineSink(self._from_server))  # type: ignore[arg-type]
        self._thread = threading.Thread(target=self._run, args=(connection,), name=name, daemon=True)
        self._closed = False
        signals.start(self._thread)

    def _run(self, connection: Connection) -> None:
        """The server's loop: each line in turn until the client closes; then its end, as EOF."""
        try:
            for line in iter(self._to_server.get, None):
                connection.receive(line)
        finally:
            connection.close()
            self._from_server.put(None)

    def describe(self) -> str:
        return self.name

    def start(self, text: str, headers: Headers, before_waiting: Callable[[], None] | None = None) -> ChannelExchange:
        """As over stdio: the one channel carries every frame; no headers, the version in the handshake."""
        self.write(text)
        return ChannelExchange(self)

    def send(self, text: str, headers: Headers) -> None:
        self.write(text)

    def write(self, text: str) -> None:
        if self._closed or not self._thread.is_alive():
            raise self.gone()
        self._to_server.put(text.encode("utf-8"))

    def receive(self, deadline: Deadline) -> Incoming:
        """The next line the server wrote; `TransportTimeout` when the deadline passes."""
        while True:
            try:
                frame = self._from_server.get(timeout=deadline.wait_seconds())
            except queue.Empty:
                notice = deadline.notice()
                if notice is not None:
                    return notice
                if not deadline.remaining():
                    raise TransportTimeout() from None
                continue
            if frame is None:
                self._from_server.put(None)  # the end stays the end for every later read
                raise self.gone()
            return frame

    def gone(self) -> UnreachableError:
        return UnreachableError(f"{self.name} has stopped", "its thread ended; see the error above, if any")

    def close(self) -> None:
        """The client's end: the server finishes the line it is on, then its connection closes."""
        if self._closed:
            return
        self._closed = True
        self._to_server.put(None)
        self._thread.join(CLOSING_WAIT_SECONDS)



_demo: list[Callable[[], Any]] = []
"""How `--demo` reaches the demo while an Environment that serves it in memory is installed
(entry.py): a stack, the innermost run's last. Empty: `--demo` spawns `mrtr demo-server` as always."""


def serving_demo(factory: Callable[[], Any]) -> Callable[[], None]:
    """From now on `--demo` opens `factory()` (a transport); returns the call that undoes it."""
    _demo.append(factory)
    return lambda: _demo.remove(factory)


def demo_transport() -> Any | None:
    """A transport to the demo in memory, when a run asked for one; else None (spawn it)."""
    return _demo[-1]() if _demo else None
