"""Server requests in flight: each waits, bounded, for the client's response to arrive.

In the initialize-handshake era the server asks its questions as JSON-RPC requests of its
own while the client's call is in flight. The transport delivers the client's responses
here; the call that asked waits for its one.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

ASK_TIMEOUT_SECONDS = 600.0
"""How long a question waits for its answer: a person may be typing it."""


class AskFailed(Exception):
    """No usable response came: the wait ran out, or the session ended."""


class _Slot:
    def __init__(self) -> None:
        self.arrived = threading.Event()
        self.response: dict[str, Any] | None = None
        self.failure = "the session ended before the client answered"


class PendingAsks:
    """The server requests of one session that await a response, by id."""

    def __init__(self, timeout: float = ASK_TIMEOUT_SECONDS) -> None:
        self.timeout = timeout
        self._ids = itertools.count(1)
        self._slots: dict[int, _Slot] = {}
        self._lock = threading.Lock()
        self._closed = False

    def open(self) -> int:
        """A fresh request id, now awaiting its response."""
        with self._lock:
            if self._closed:
                raise AskFailed("the session has ended")
            request_id = next(self._ids)
            self._slots[request_id] = _Slot()
            return request_id

    def wait(self, request_id: int) -> dict[str, Any]:
        """The response to `request_id` (a result or an error object); `AskFailed` when none comes."""
        slot = self._slots[request_id]
        try:
            if not slot.arrived.wait(self.timeout):
                raise AskFailed(f"no response within {self.timeout:g} s")
            if slot.response is None:
                raise AskFailed(slot.failure)
            return slot.response
        finally:
            with self._lock:
                self._slots.pop(request_id, None)

    def deliver(self, message: dict[str, Any]) -> bool:
        """Hand a client's response to the question that waits for it; False when none does."""
        request_id = message.get("id")
        if not isinstance(request_id, int) or isinstance(request_id, bool):
            return False
        with self._lock:
            slot = self._slots.get(request_id)
        if slot is None or slot.arrived.is_set():
            return False
        slot.response = message
        slot.arrived.set()
        return True

    def fail(self, request_id: int, reason: str) -> None:
        """End one wait without a response (its call was cancelled)."""
        with self._lock:
            slot = self._slots.get(request_id)
        if slot is not None and not slot.arrived.is_set():
            slot.failure = reason
            slot.arrived.set()

    def close(self) -> None:
        """End every wait: the session is over."""
        with self._lock:
            self._closed = True
            slots = list(self._slots.values())
        for slot in slots:
            slot.arrived.set()
