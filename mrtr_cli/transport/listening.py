"""The older era's GET stream: what the server sends outside the stream of a POST.

After the initialize handshake mrtr GETs the endpoint (`Accept: text/event-stream`) once, in a
daemon thread, and waits at most READY_SECONDS for the answer's headers (a server sends its
requests there only once the stream is open). HTTP 405, or anything but an event stream, means
the server offers none. The server's requests and notifications that arrive on it go to the
request being read (through its pump), or are kept (at most KEPT) for the next one, as are
those the pump took after its reader had read its response. A stream that
ends is opened again with `Last-Event-ID` after its `retry:` delay, at most MAX_REOPENS times.
Closing the transport stops it.
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterator
from typing import Any

from mrtr_cli.process import signals
from mrtr_cli.transport.base import Deadline, Frame, Incoming
from mrtr_cli.transport.pump import Pump
from mrtr_cli.transport.resume import StreamPosition

READY_SECONDS = 2.0
"""How long the handshake waits for the GET stream's headers before going on without it."""
KEPT = 64
"""How many messages that arrive between requests are kept for the next one."""
MAX_REOPENS = 3
"""How many times an ended GET stream is opened again."""

Connect = Callable[[StreamPosition, threading.Event], Generator[Incoming, None, bool]]
"""Opens the GET stream once and yields what arrives; returns whether the server offers one.
It reads until the stream ends or the event is set."""


class ListeningStream:
    """One session's GET stream, read in a daemon thread."""

    def __init__(self, connect: Connect) -> None:
        self._connect = connect
        self.position = StreamPosition()
        self.stopped = threading.Event()
        self.ready = threading.Event()
        self._lock = threading.Lock()
        self._sink: Pump | None = None
        self._kept: deque[Incoming] = deque(maxlen=KEPT)

    def start(self) -> None:
        """Open the stream; return once its headers came (or READY_SECONDS passed)."""
        signals.start(threading.Thread(target=self._run, name="mrtr-http-get", daemon=True))
        self.ready.wait(READY_SECONDS)

    def stop(self) -> None:
        self.stopped.set()

    def attach(self, pump: Pump) -> list[Incoming]:
        """From now on what arrives goes to `pump`; returns what was kept for it."""
        with self._lock:
            self._sink = pump
            kept = list(self._kept)
            self._kept.clear()
        return kept

    def detach(self, pump: Pump) -> None:
        """The request is read: what arrives goes to the kept messages again, and so do the
        messages the pump took but its reader never read."""
        with self._lock:
            if self._sink is pump:
                self._sink = None
            self._kept.extend(item for item in pump.take_unread() if isinstance(item, Frame))

    def _run(self) -> None:
        try:
            for _ in range(MAX_REOPENS + 1):
                if not self._read_once() or self.stopped.is_set() or not self.position.wait(self.stopped):
                    return
        except Exception:  # noqa: BLE001 - a broken GET stream only ends it (`message_too_large` too)
            return
        finally:
            self.ready.set()

    def _read_once(self) -> bool:
        stream = self._connect(self.position, self.stopped)
        while True:
            try:
                item = next(stream)
            except StopIteration as end:
                return bool(end.value)
            self.ready.set()
            self._deliver(item)

    def _deliver(self, item: Any) -> None:
        item = item._replace(outside=True) if isinstance(item, Frame) else item
        with self._lock:
            sink = self._sink
        if sink is not None and sink.offer(item):
            return
        if isinstance(item, Frame):
            with self._lock:
                self._kept.append(item)


@contextlib.contextmanager
def attached(listening: ListeningStream | None, pump: Pump) -> Iterator[list[Incoming]]:
    """While a request is read, the GET stream's messages go to its pump; yields what was kept."""
    if listening is None:
        yield []
        return
    try:
        yield listening.attach(pump)
    finally:
        listening.detach(pump)


class Listened:
    """The GET stream read while no request is (an `Exchange`: a replay waiting for the requests the
    server sends of its own accord, conversation/client.py): what was kept for the next request, then
    what arrives, until closed."""

    def __init__(self, listening: ListeningStream) -> None:
        self._listening = listening
        self._closed = threading.Event()
        self._pump = Pump(self._idle, "mrtr-get-stream")
        self._kept = listening.attach(self._pump)

    def _idle(self) -> Generator[Any, None, None]:
        """The pump's producer: nothing of its own, until the exchange is closed (the GET stream offers)."""
        self._closed.wait()
        yield from ()

    def frames(self, deadline: Deadline) -> Iterator[Incoming]:
        yield from self._kept
        yield from self._pump.items(deadline)

    def cancel(self, notification: str) -> None:
        """Nothing to cancel: no request is in flight."""

    def close(self) -> None:
        self._listening.detach(self._pump)
        self._pump.stop()
        self._closed.set()
