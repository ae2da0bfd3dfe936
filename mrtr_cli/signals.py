"""SIGTERM and SIGHUP end mrtr as Ctrl-C does, with their own exit codes (143 and 129).

Python's default for either signal is to die at once, leaving a stdio server running (it leads
its own process group, so the signal never reaches it) and a transcript unfinished. Here each
signal raises `Signalled` in the main thread instead, which unwinds like Ctrl-C: the request is
cancelled, the transcript finished, the server's stdin closed, then SIGTERM and SIGKILL sent to
its group. Only the first signal raises: a second one must not cut the clean-up short.
"""

from __future__ import annotations

import signal
from types import FrameType

from mrtr_cli.errors import HungUp, Interrupted, Signalled, Terminated

_ERRORS: dict[str, type[Interrupted]] = {"SIGTERM": Terminated, "SIGHUP": HungUp}
_raised = False


def install() -> None:
    """Handle SIGTERM and SIGHUP (where the platform has them) from now on."""
    for name in _ERRORS:
        number = getattr(signal, name, None)
        if number is not None:
            signal.signal(number, _raise_once)


def _raise_once(number: int, frame: FrameType | None) -> None:
    global _raised
    if _raised:
        return  # already unwinding: let the clean-up finish
    _raised = True
    raise Signalled(_ERRORS[signal.Signals(number).name])
