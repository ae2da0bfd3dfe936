"""The watchers of one proxy, told one frame at a time: frames cross in several threads (the two
directions of the stdio shim, the HTTP proxy's exchanges), and each watcher sees them in order."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from mrtr_cli import events
from mrtr_cli.proxy.watching import Crossed, Watcher


class Told:
    """Every watcher, and `note`: where what is no frame goes (a message past the size limit)."""

    def __init__(self, watchers: Sequence[Watcher], note: events.Observer) -> None:
        self.watchers = list(watchers)
        self.note = note
        self._lock = threading.Lock()

    def crossed(self, frame: Crossed) -> None:
        with self._lock:
            for watcher in self.watchers:
                watcher.crossed(frame)

    def noted(self, event: Any) -> None:
        with self._lock:
            self.note(event)

    def ended(self) -> None:
        with self._lock:
            for watcher in self.watchers:
                watcher.ended()
