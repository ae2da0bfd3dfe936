"""The exit-code table of the manual (docs/exit-codes.md): one enum, one precedence rule."""

from __future__ import annotations

import enum
import os
import sys
from collections.abc import Iterable


class ExitCode(enum.IntEnum):
    """What mrtr's exit status means. The JSON error line names the member in lower case."""

    OK = 0
    USAGE = 1
    PROTOCOL = 2
    AUTH = 3
    UNREACHABLE = 4
    TOOL_ERROR = 5
    DIVERGED = 6
    INCOMPLETE = 7
    HANGUP = 129
    INTERRUPTED = 130
    TERMINATED = 143

    @property
    def label(self) -> str:
        """The name used in `{"error": {"code": NAME}}`."""
        return self.name.lower()


PIPE_CLOSED = 141
"""The exit code when stdout's reader went away (`mrtr ... | head`): 128 + SIGPIPE, as a shell
reports a program that SIGPIPE ended. Nothing more is written, not even the JSON error line."""


def pipe_closed() -> int:
    """stdout's reader went away: point stdout at /dev/null, so that the interpreter's last flush
    does not fail again, and give PIPE_CLOSED."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return PIPE_CLOSED

PRECEDENCE = (
    ExitCode.INTERRUPTED,
    ExitCode.TERMINATED,
    ExitCode.HANGUP,
    ExitCode.USAGE,
    ExitCode.UNREACHABLE,
    ExitCode.AUTH,
    ExitCode.PROTOCOL,
    ExitCode.INCOMPLETE,
    ExitCode.DIVERGED,
    ExitCode.TOOL_ERROR,
)
"""When several codes apply, the first of these that applies wins (docs/exit-codes.md)."""


def decide(codes: Iterable[ExitCode]) -> ExitCode:
    """The code to exit with when every code in `codes` applies."""
    present = set(codes)
    for code in PRECEDENCE:
        if code in present:
            return code
    return ExitCode.OK
