"""Ctrl-C, SIGTERM and SIGHUP: each unwinds as Ctrl-C does, and none cuts a file's part in two.

SIGTERM and SIGHUP end mrtr as Ctrl-C does, with their own exit codes (143 and 129). Python's
default for either signal is to die at once, leaving a stdio server running (it leads its own
process group, so the signal never reaches it) and a transcript unfinished. Here each signal
raises `Signalled` in the main thread instead, which unwinds like Ctrl-C: the request is
cancelled, the transcript finished, the server's stdin closed, then SIGTERM and SIGKILL sent to
its group. Only the first of them raises: a second one must not cut the clean-up short.

Inside `held()` (the recorder writing a round) any of the three signals waits until the block
ends, then raises as it would have: a transcript never holds half a round.

Python runs a handler in the main thread alone, between its own steps. So the threads mrtr starts
are started by `start`, with the three signals blocked in them: a signal sent to the process lands on
any thread that does not block it, and one landing elsewhere would wait for the main thread to wake.
And the main thread's long waits (the stdio shim's for its server, a login's) wake each second: a
signal that lands just before a wait begins interrupts nothing.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TypeVar

from mrtr_cli.errors import HungUp, Interrupted, Signalled, Terminated

_ERRORS: dict[str, type[Interrupted]] = {"SIGTERM": Terminated, "SIGHUP": HungUp}
_raised = False
_holding = 0
_first_held: int | None = None
"""The first signal that came while held (the others add nothing: it alone is raised)."""
WAKE_SECONDS = 1.0
"""How long one of the main thread's long waits blocks at a time (`awake`)."""
Waited = TypeVar("Waited")


def awake(wait: Callable[[float], Waited], expired: type[Exception]) -> Waited:
    """What `wait` returns, called with WAKE_SECONDS again each time it raises `expired`: a wait with no end
    would handle a signal that lands just before it begins only when it ends (Python runs a handler between
    its own steps, and the signal interrupts no wait not yet begun)."""
    while True:
        try:
            return wait(WAKE_SECONDS)
        except expired:
            continue


def start(thread: threading.Thread) -> threading.Thread:
    """Start `thread` with Ctrl-C, SIGTERM and SIGHUP blocked in it (a new thread takes the mask of
    the one that starts it, which gets its own back at once; a signal meanwhile waits, then lands).
    Not for a thread that starts a process: the process would keep them blocked."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _numbers())
    try:
        thread.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
    return thread


def _numbers() -> list[int]:
    return [signal.SIGINT, *(getattr(signal, name) for name in _ERRORS if hasattr(signal, name))]


def install() -> None:
    """Handle Ctrl-C, SIGTERM and SIGHUP (where the platform has them) from now on."""
    signal.signal(signal.SIGINT, _arrived)
    for name in _ERRORS:
        number = getattr(signal, name, None)
        if number is not None:
            signal.signal(number, _arrived)


def forget() -> None:
    """A run in-process has ended (entry.main with an Environment): the next one starts as a process
    would, no signal raised or held yet."""
    global _raised, _first_held
    _raised, _first_held = False, None


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Hold the three signals while the block runs; the first one that came raises when it ends.
    Signals reach the main thread alone: in another thread (the proxy's watchers) the block holds
    nothing back, so that a signal is never kept for a thread it cannot reach."""
    global _holding, _first_held
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _holding += 1
    try:
        yield
    except BaseException:
        if _holding == 1:
            _first_held = None  # the block's own error unwinds already
        raise
    finally:
        _holding -= 1
    if not _holding and _first_held is not None:
        number, _first_held = _first_held, None
        _raise(number)


def _arrived(number: int, frame: FrameType | None) -> None:
    global _first_held
    if not _holding:
        _raise(number)
    elif _first_held is None:
        _first_held = number


def _raise(number: int) -> None:
    global _raised
    if number == signal.SIGINT:
        raise KeyboardInterrupt
    if _raised:
        return  # already unwinding: let the clean-up finish
    _raised = True
    raise Signalled(_ERRORS[signal.Signals(number).name])
