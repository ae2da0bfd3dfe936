"""A blocking producer in a thread of its own, read by the caller within a deadline.

A read from a socket cannot be bounded in total time: a server that trickles one byte a second
satisfies every per-read timeout. So the HTTP exchange runs in a daemon thread and hands over
what it yields through a small queue; the caller waits on the queue no longer than the deadline
allows, as it waits on the stdio inbox. A thread left behind is a daemon and cannot hold mrtr
up: it ends when its connection is closed or its own read times out.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable, Generator, Iterator
from typing import Any

from mrtr_cli.process import signals
from mrtr_cli.transport.base import Deadline, TransportTimeout

AHEAD = 4
"""How many items the producer may read ahead of the caller (each is at most one message)."""
POLL_SECONDS = 0.1
"""How often a producer that waits for room checks whether the caller went away."""


class Pump:
    """Runs `produce()` in a daemon thread; `items(deadline)` yields what it yields."""

    def __init__(self, produce: Callable[[], Generator[Any, None, None]], name: str) -> None:
        self._queue: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=AHEAD)
        self._stopped = threading.Event()
        self._offers = threading.Lock()
        self._sealed = False
        """Set by `take_unread`: offers are refused from then on."""
        signals.start(threading.Thread(target=self._run, args=(produce,), name=name, daemon=True))

    def items(self, deadline: Deadline) -> Iterator[Any]:
        """The producer's items, its exception re-raised here; `TransportTimeout` when the deadline passes."""
        while True:
            notice = deadline.notice()
            if notice is not None:
                yield notice
                continue
            if deadline.remaining() <= 0:
                raise TransportTimeout()
            try:
                kind, value = self._queue.get(timeout=deadline.wait_seconds())
            except queue.Empty:
                continue  # a notice is due, or the deadline passed: both are seen above
            if kind == "end":
                return
            if kind == "error":
                raise value
            yield value

    def stop(self) -> None:
        """The caller reads no more: the producer stops at its next item."""
        self._stopped.set()

    @property
    def stopped(self) -> threading.Event:
        """Set when the caller reads no more (a wait on it ends early)."""
        return self._stopped

    def offer(self, item: Any) -> bool:
        """Hand over an item from another thread (the GET stream); False when the caller is gone
        or has taken what it left unread."""
        while not self._stopped.is_set():
            with self._offers:
                if self._sealed:
                    return False
                try:
                    self._queue.put_nowait(("item", item))
                    return True
                except queue.Full:
                    pass
            self._stopped.wait(POLL_SECONDS)
        return False

    def take_unread(self) -> list[Any]:
        """Refuse further offers, and return the items handed over that the caller never read
        (a GET-stream message that came after the response it was reading)."""
        with self._offers:
            self._sealed = True
        unread: list[Any] = []
        while True:
            try:
                kind, value = self._queue.get_nowait()
            except queue.Empty:
                return unread
            if kind == "item":
                unread.append(value)

    def _run(self, produce: Callable[[], Generator[Any, None, None]]) -> None:
        try:
            with contextlib.closing(produce()) as items:
                for item in items:
                    if not self._put("item", item):
                        return
        except Exception as error:  # handed to the caller, who raises it
            self._put("error", error)
            return
        self._put("end", None)

    def _put(self, kind: str, value: Any) -> bool:
        while not self._stopped.is_set():
            try:
                self._queue.put((kind, value), timeout=POLL_SECONDS)
                return True
            except queue.Full:
                continue
        return False
