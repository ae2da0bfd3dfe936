"""One server process for many conversations in turn: `replay --demo` of many transcripts.

At 2026-07-28 the demo server keeps no state between requests (its state is sealed in
requestState), so the conversations of a replay run can take turns on one process instead of
starting one each. A conversation borrows the process (`ServerPool.open`); when it ends cleanly
(the last request answered) it is kept for the next one (`keep`), otherwise it is shut down as
usual, so nothing a broken conversation left in the pipe reaches the next one.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from mrtr_cli.transport.base import Transport, Wrapped


class ServerPool:
    """Idle server processes, by what started them; `close` ends those still idle."""

    def __init__(self) -> None:
        self._idle: dict[Hashable, Transport] = {}

    def open(self, key: Hashable, start: Callable[[], Transport]) -> Transport:
        """The idle process started as `key`, or a new one from `start`."""
        inner = self._idle.pop(key, None)
        return Lent(inner if inner is not None else start(), self, key)

    def give_back(self, key: Hashable, transport: Transport) -> None:
        """Keep `transport` idle for the next conversation (one per key: another is shut down)."""
        if key in self._idle:
            transport.close()
        else:
            self._idle[key] = transport

    def close(self) -> None:
        """Shut down every idle process (stdin closed, then SIGTERM, then SIGKILL)."""
        idle, self._idle = list(self._idle.values()), {}
        for transport in idle:
            transport.close()


def keep(transport: Any) -> None:
    """Keep a borrowed process for the next conversation once this one closes (a no-op for any
    other transport)."""
    if isinstance(transport, Lent):
        transport.kept = True


class Lent(Wrapped):
    """A pooled process lent to one conversation: a transport whose `close` hands it back when kept."""

    def __init__(self, inner: Transport, pool: ServerPool, key: Hashable) -> None:
        super().__init__(inner)
        self.pool, self.key = pool, key
        self.kept = self.closed = False

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.kept:
            self.pool.give_back(self.key, self.inner)
        else:
            self.inner.close()
