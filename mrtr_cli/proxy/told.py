"""The watchers of one proxy, told in order by one thread of their own.

Frames cross in several threads (the two directions of the stdio shim, the HTTP proxy's exchanges).
Each is queued before its bytes go on, so a response is never queued before its request, and the
watchers' work (the timeline, the transcripts, the judge) is done by the telling thread, off the
path of the bytes: a round through the proxy waits for no watcher. Each watcher is told on its own:
one that fails does not keep a frame from the others. When the watchers fall so far behind that
the queue holds MAX_QUEUED frames or MAX_QUEUED_BYTES, watching stops (said once): the bytes are
never slowed, and memory stays bounded.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.process import signals
from mrtr_cli.proxy.watching import Crossed, Watcher
from mrtr_cli.transport.base import format_size

MAX_QUEUED = 10_000
"""The most frames waiting for the watchers."""
MAX_QUEUED_BYTES = 256 * 1024 * 1024
"""The most characters of frames waiting for the watchers."""
FELL_BEHIND = ("the watchers fell behind the traffic (more than {frames} frames or {size} waiting): from here on, "
               "messages still pass through but are neither shown, recorded nor judged")


class Told:
    """Every watcher, and `note`: where what is no frame goes (a message past the size limit)."""

    def __init__(self, watchers: Sequence[Watcher], note: events.Observer, max_queued: int = MAX_QUEUED,
                 max_queued_bytes: int = MAX_QUEUED_BYTES) -> None:
        self.watchers = list(watchers)
        self.note = note
        self.limits = (max_queued, max_queued_bytes)
        self._queue: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._queueing = threading.Lock()  # between the threads that queue; the telling thread never takes it
        self._queued_size = 0  # characters ever queued (written under _queueing)
        self._told_size = 0  # characters ever told (written by the telling thread alone)
        self.dropped = False
        self._thread = threading.Thread(target=self._tell, name="told", daemon=True)
        signals.start(self._thread)

    def crossed(self, frame: Crossed) -> None:
        """Queue `frame` for every watcher (call it before the frame's bytes go on); past the
        limits, stop watching instead."""
        size = len(frame.text)
        if self._room_for(size):
            self._queue.put(lambda: self._each_sees(frame, size))

    def noted(self, event: Any) -> None:
        if self._room_for(0):
            self._queue.put(lambda: self._guarded(lambda: self.note(event)))

    def _room_for(self, size: int) -> bool:
        """Whether one more piece of `size` characters may wait; the first time not, watching stops.
        (The queue's size, and what was queued less what was told: no lock the telling thread
        takes, so queueing never waits for it.)"""
        with self._queueing:
            if self.dropped:
                return False
            waiting = self._queued_size - self._told_size
            if self._queue.qsize() >= self.limits[0] or waiting + size > self.limits[1]:
                self.dropped = True
                self._queue.put(self._fell_behind)
                return False
            self._queued_size += size
            return True

    def ended(self) -> None:
        """The proxy ends: every frame queued is told, then each watcher's `ended`."""
        self._queue.put(self._each_ends)
        self._queue.put(None)
        while self._thread.is_alive():  # a second at a time: a signal is handled between the waits
            self._thread.join(signals.WAKE_SECONDS)

    def _each_sees(self, frame: Crossed, size: int) -> None:
        for watcher in self.watchers:
            self._guarded(lambda: watcher.crossed(frame))
        self._told_size += size

    def _each_ends(self) -> None:
        for watcher in self.watchers:
            self._guarded(watcher.ended)

    def _fell_behind(self) -> None:
        said = FELL_BEHIND.format(frames=self.limits[0], size=format_size(self.limits[1]))
        self._guarded(lambda: self.note(events.FrameIgnored(said, "fell behind")))

    def _guarded(self, telling: Callable[[], None]) -> None:
        """Tell one watcher; its failure is noted, and the others are told all the same."""
        try:
            telling()
        except Exception as error:  # noqa: BLE001 - a watcher's failure must not stop the others
            self._note_failure(error)

    def _note_failure(self, error: Exception) -> None:
        try:
            self.note(events.FrameIgnored(f"a watcher failed: {type(error).__name__}: {error}", "watcher"))
        except Exception:  # noqa: BLE001 - the timeline itself failed: nothing more to tell
            pass

    def _tell(self) -> None:
        while True:
            telling = self._queue.get()
            if telling is None:
                return
            telling()
