"""The watchers of one proxy, told in order by one thread of their own.

Frames cross in several threads (the two directions of the stdio shim, the HTTP proxy's exchanges).
Each is queued before its bytes go on, so a response is never queued before its request, and the
watchers' work (the timeline, the transcripts, the judge) is done by the telling thread, off the
path of the bytes: a round through the proxy waits for no watcher.
"""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from mrtr_cli import events
from mrtr_cli.proxy.watching import Crossed, Watcher

SWITCH_SECONDS = 0.0002
"""How long a thread holding the GIL runs before another may take it (Python's default: 5 ms): the
relaying threads get their turn at once while the telling thread works."""


class Told:
    """Every watcher, and `note`: where what is no frame goes (a message past the size limit)."""

    def __init__(self, watchers: Sequence[Watcher], note: events.Observer) -> None:
        self.watchers = list(watchers)
        self.note = note
        self._queue: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._tell, name="told", daemon=True)
        sys.setswitchinterval(SWITCH_SECONDS)
        self._thread.start()

    def crossed(self, frame: Crossed) -> None:
        """Queue `frame` for every watcher (call it before the frame's bytes go on)."""
        self._queue.put(lambda: self._each_sees(frame))

    def noted(self, event: Any) -> None:
        self._queue.put(lambda: self.note(event))

    def ended(self) -> None:
        """The proxy ends: every frame queued is told, then each watcher's `ended`."""
        self._queue.put(self._each_ends)
        self._queue.put(None)
        self._thread.join()

    def _each_sees(self, frame: Crossed) -> None:
        for watcher in self.watchers:
            watcher.crossed(frame)

    def _each_ends(self) -> None:
        for watcher in self.watchers:
            watcher.ended()

    def _tell(self) -> None:
        while True:
            telling = self._queue.get()
            if telling is None:
                return
            try:
                telling()
            except Exception as error:  # noqa: BLE001 - a watcher's failure must not stop the others
                self.note(events.FrameIgnored(f"a watcher failed: {type(error).__name__}: {error}", "watcher"))
