"""A round's time as the server's: from the request to its response, the waits for an answer left out.

In the 2026-07-28 era the questions come in a result, and are answered between two requests: no
round's time holds them. In the older era the server asks while the request is in flight, and a
person may type for a minute before the response can come; that minute is not the server's, so the
stopwatch leaves out what `excluding` measures, and both eras' closing lines add up the same time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class Stopwatch:
    """Milliseconds since it started, less the time spent in `excluding()`."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._started = clock()
        self._excluded = 0.0

    @contextmanager
    def excluding(self) -> Iterator[None]:
        """A wait that is not the server's (an answer to its question being made)."""
        began = self._clock()
        try:
            yield
        finally:
            self._excluded += self._clock() - began

    def elapsed_ms(self) -> float:
        return max(0.0, self._clock() - self._started - self._excluded) * 1000
