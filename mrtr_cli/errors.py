"""The exception tree. Each error explains itself in one line and knows its exit code.

    MrtrError                  base: `message` (what happened), `hint` (what to do), `details`
    ├── UsageError             1  a bad flag, an invalid scripted answer, an unreadable file
    ├── ProtocolError          2  the server sent something mrtr cannot use
    │   ├── ServerError        2  the server answered with a JSON-RPC error
    │   └── LegacyServerError  2  the server speaks the initialize-handshake era
    │       ├── EndpointMissing  2  HTTP 404 (an unknown session, or no endpoint at the URL)
    │       └── SilentToProbe    2  no response to server/discover in time
    ├── AuthError              3  the server wants authentication (HTTP 401/403)
    ├── UnreachableError       4  spawn failure, refused connection, DNS, dead process
    │   ├── RequestTimeout     4  no response within --timeout
    │   └── NotAServer         4  what answers is no MCP server (it echoes, or writes only text)
    ├── IncompleteError        7  a question nothing answered, a refusal, the round limit
    └── Interrupted          130  Ctrl-C
        ├── Terminated       143  SIGTERM
        └── HungUp           129  SIGHUP

Messages may quote what a server sent; renderers pass every message through `text.safe`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from mrtr_cli.exit_codes import ExitCode


class MrtrError(Exception):
    """Something the user must hear about, in one line, with what to do next."""

    exit_code = ExitCode.USAGE

    def __init__(self, message: str, hint: str = "", details: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.details = list(details)
        """Lines worth showing under the message, e.g. a dead server's last stderr lines."""

    def one_line(self) -> str:
        """The message and the hint, joined for a single line of output."""
        return f"{self.message}; {self.hint}" if self.hint else self.message

    def __str__(self) -> str:
        return self.one_line()


class UsageError(MrtrError):
    """The command line, a scripted answer or a file the user named is wrong."""

    exit_code = ExitCode.USAGE


class ProtocolError(MrtrError):
    """The server sent something mrtr cannot use."""

    exit_code = ExitCode.PROTOCOL


class ServerError(ProtocolError):
    """The server answered a request with a JSON-RPC error object."""

    def __init__(self, method: str, error: dict[str, Any], hint: str = "") -> None:
        self.error = error
        super().__init__(f"{method} failed: error {error.get('code')}: {error.get('message')}", hint)


class HopRefused(ServerError):
    """The retry went to another instance of the server than the one that made its requestState
    (`words`: "another instance (127.0.0.1:8002)", "a restarted server"), and was refused."""

    def __init__(self, method: str, error: dict[str, Any], words: str, hint: str) -> None:
        super().__init__(method, error, hint)
        self.message = f"the retry went to {words} and was refused: error {error.get('code')} {error.get('message')!r}"


_Legacy = TypeVar("_Legacy", bound="LegacyServerError")


class LegacyServerError(ProtocolError):
    """The server speaks the initialize-handshake era (2025-11-25 or earlier)."""

    status = ""
    """Over HTTP, when an HTTP status said so: the status line with what the server said."""

    @classmethod
    def seen(cls: type[_Legacy], what: str, hint: str, *, subject: str = "the server",
             other_cause: str = "") -> _Legacy:
        """The one sentence for every sign of that era: "{what}: {subject} looks like one of the
        initialize-handshake era (MCP 2025-11-25 or earlier)[, or {other_cause}]"."""
        other = f", or {other_cause}" if other_cause else ""
        return cls(f"{what}: {subject} looks like one of the initialize-handshake era (MCP 2025-11-25 or "
                   f"earlier){other}", hint)


class EndpointMissing(LegacyServerError):
    """HTTP 404 with no JSON-RPC response: an older-era server that knows no such session, or no MCP
    endpoint at this URL."""


class SilentToProbe(LegacyServerError):
    """No response to server/discover in time: an older-era server may leave it unanswered."""


class AuthError(MrtrError):
    """The server wants credentials mrtr did not send."""

    exit_code = ExitCode.AUTH


class UnreachableError(MrtrError):
    """mrtr could not reach the server, or lost it."""

    exit_code = ExitCode.UNREACHABLE


class RequestTimeout(UnreachableError):
    """No response arrived within the time allowed."""


class NotAServer(UnreachableError):
    """What answers is no MCP server: it sent mrtr's own request back (`cat`, an echo loop), or
    wrote only text that is not JSON-RPC and answered neither server/discover nor initialize."""


class IncompleteError(MrtrError):
    """The conversation stopped before a result: a question went unanswered."""

    exit_code = ExitCode.INCOMPLETE


class Interrupted(MrtrError):
    """The user pressed Ctrl-C."""

    exit_code = ExitCode.INTERRUPTED
    what = "interrupted"
    """How the message says what stopped mrtr: "interrupted while waiting for ..."."""

    def __init__(self, message: str = "interrupted by the user", hint: str = "") -> None:
        super().__init__(message, hint)


class Terminated(Interrupted):
    """mrtr was sent SIGTERM."""

    exit_code = ExitCode.TERMINATED
    what = "terminated (SIGTERM)"

    def __init__(self, message: str = "terminated by SIGTERM", hint: str = "") -> None:
        super().__init__(message, hint)


class HungUp(Interrupted):
    """mrtr was sent SIGHUP: its terminal went away."""

    exit_code = ExitCode.HANGUP
    what = "hung up (SIGHUP)"

    def __init__(self, message: str = "hung up: SIGHUP, the terminal went away", hint: str = "") -> None:
        super().__init__(message, hint)


class Signalled(KeyboardInterrupt):
    """Raised in the main thread when SIGTERM or SIGHUP arrives (mrtr_cli/process/signals.py).

    A KeyboardInterrupt, so that it unwinds exactly as Ctrl-C does: the request is cancelled,
    the transcript finished, the server shut down. `interruption` turns it into its error.
    """

    def __init__(self, error: type[Interrupted]) -> None:
        super().__init__(error.what)
        self.error = error


def interruption(raised: BaseException | None = None, during: str = "") -> Interrupted:
    """The error for a KeyboardInterrupt: Ctrl-C, or a `Signalled` SIGTERM or SIGHUP.
    `during` says what mrtr was doing ("while waiting for tools/call (id 2)")."""
    kind = raised.error if isinstance(raised, Signalled) else Interrupted
    return kind(f"{kind.what} {during}") if during else kind()


_BY_LABEL: dict[str, type[MrtrError]] = {
    "usage": UsageError, "protocol": ProtocolError, "auth": AuthError, "unreachable": UnreachableError,
    "incomplete": IncompleteError, "interrupted": Interrupted, "terminated": Terminated, "hangup": HungUp,
}


def error_for(label: str, message: str) -> MrtrError:
    """An error of the kind an exit-code label names (as transcripts keep them)."""
    return _BY_LABEL.get(label, MrtrError)(message)
