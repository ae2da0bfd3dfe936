"""The transport contract: start an exchange, read what arrives for it, cancel, close.

A transport only moves text. It knows nothing of MCP methods, prints nothing, asks nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple, Protocol, Union

from mrtr_cli.errors import ProtocolError, UnreachableError

DEFAULT_MAX_MESSAGE_SIZE = 64 * 1024 * 1024
"""The largest frame mrtr accepts by default (`--max-message-size`, 64M): a stdio line, an HTTP
body after decoding, or one SSE event."""


def message_too_large(limit: int, what: str = "a message") -> ProtocolError:
    """The error for a frame past `--max-message-size` (the transport stops reading it)."""
    return ProtocolError(f"the server sent {what} larger than the limit of {format_size(limit)}",
                         "raise it with --max-message-size SIZE (bytes, or with K, M or G) if the server is right")


SIZE_UNITS = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}
"""The suffixes of `--max-message-size`: powers of 1024."""


def parse_size(text: str) -> int:
    """`--max-message-size`'s value in bytes: 1000, 512K, 64M, 1G (powers of 1024; a trailing B is
    allowed). A bad value raises ValueError with the reason."""
    cleaned = text.strip().upper().removesuffix("B")
    number, suffix = (cleaned[:-1], cleaned[-1]) if cleaned[-1:] in ("K", "M", "G") else (cleaned, "")
    if not number.isdigit() or not number.isascii():
        raise ValueError(f"{text!r} is not a size: give bytes, or a whole number with K, M or G (e.g. 64M)")
    size = int(number) * SIZE_UNITS[suffix]
    if size < 1:
        raise ValueError(f"{text!r} is too small: a message needs at least 1 byte")
    return size


def format_size(size: int) -> str:
    """`size` in bytes as the flag writes it: 64M, 512K, 1G, or bytes."""
    for suffix, unit in (("G", 1024 ** 3), ("M", 1024 ** 2), ("K", 1024)):
        if size >= unit and size % unit == 0:
            return f"{size // unit}{suffix}"
    return f"{size} bytes"


class Frame(NamedTuple):
    """One JSON-RPC frame as it arrived (a stdio line, a JSON body, an SSE `data`); `outside`: on no
    request's stream (the older era's GET stream, transport/listening.py)."""

    data: str | bytes
    outside: bool = False


class StderrLine(NamedTuple):
    """A line the server process wrote to stderr."""

    text: str


class WireInfo(NamedTuple):
    """Transport detail: `text` for -v (HTTP status and headers, SSE events); `fields` for the
    transcript (`headers` sent; `status` and `content_type` received)."""

    direction: str
    text: str
    fields: dict[str, Any] | None = None


class AuthNote(NamedTuple):
    """A step of the authorization flow (auth/): `text` for the timeline, `fields` for the
    transcript and --json (never a secret)."""

    step: str
    text: str
    fields: dict[str, Any] | None = None


class PlainReply(NamedTuple):
    """The answer to one plain HTTP request of the authorization flow: status, headers (names in
    lower case), body."""

    status: int
    headers: dict[str, str]
    body: bytes


Fetch = Callable[[str, str, dict[str, str], "bytes | None"], PlainReply]
"""One plain request of the authorization flow: method, URL, headers, body."""


class AuthChallenge(Exception):
    """The server answered 401 or 403 and an authorizer may answer it: the status, the
    `WWW-Authenticate` header, and the error to raise when nothing can."""

    def __init__(self, status: int, challenge: str | None, error: Exception) -> None:
        super().__init__(status)
        self.status = status
        self.challenge = challenge
        self.error = error


class StillWaiting(NamedTuple):
    """Nothing arrived for a while: `seconds` since the request was sent (a Deadline's notice)."""

    seconds: float


Incoming = Union[Frame, StderrLine, WireInfo, AuthNote, StillWaiting]

class Headers(NamedTuple):
    """The headers of one message, as the era spoken made them (conversation/eras.py): HTTP sends them
    after its Content-Type and Accept (and the -H headers); stdio has none to send."""

    own: Mapping[str, str]
    """The message's own headers (a 2026-07-28 request mirrors its body in them)."""
    session: Mapping[str, str] | None = None
    """The headers of the session the message belongs to, with the `Mcp-Session-Id` the server gave
    when it gave one; the first message that names any opens the session's GET stream, and its GET
    and DELETE name them too. None: the message belongs to no session."""


NO_HEADERS = Headers({})
"""A message's headers where it has none of its own and no session (a probe sent over stdio's pipe)."""


class Deadline:
    """A per-request timeout that progress resets, at most `MAX_RESETS` (10) times: so one
    request waits at most 11 x the timeout (`ceiling_seconds`) of the server's own time. mrtr's own
    time (answering a question, logging in) is excluded: it starts the timeout again, and never counts
    towards the ceiling, yet a server asking without end reaches the ceiling all the same. `not_after`
    (a time.monotonic() time; None: none) is a hard end that neither restarts nor progress pass: a
    task's --task-timeout."""

    MAX_RESETS = 10
    CEILING = MAX_RESETS + 1
    """The longest wait, in timeouts."""

    NOTICE_AFTER, NOTICE_EVERY = 5.0, 15.0
    """With notices: the first after this many seconds of silence, then one each NOTICE_EVERY."""

    def __init__(self, seconds: float, not_after: float | None = None, notices: bool = False) -> None:
        self.seconds = seconds
        self.resets = 0
        """How many times progress has reset the timeout."""
        self.restarts = 0
        """How many times mrtr's own time (an answer, a login) started it again."""
        self.not_after = not_after
        self._own = 0.0
        """Seconds of mrtr's own time so far: excluded from the server's."""
        self._started = time.monotonic()
        self._expires = self._bounded(self._started + seconds)
        self._notice: float | None = self._started + self.NOTICE_AFTER if notices else None
        """When the next StillWaiting is due (None: none are given)."""

    @property
    def ceiling_seconds(self) -> float:
        """The longest one request may wait: the timeout, and every reset used to the full."""
        return self.seconds * self.CEILING

    def remaining(self) -> float:
        """Seconds left before the request times out (never negative)."""
        return max(0.0, self._expires - time.monotonic())

    def elapsed(self) -> float:
        """Seconds since the request was sent."""
        return time.monotonic() - self._started

    def server_seconds(self) -> float:
        """Seconds since the request was sent, mrtr's own time excluded."""
        return self.elapsed() - self._own

    def at_ceiling(self) -> bool:
        """Whether the server's time has reached the ceiling (what ended the wait, when it ends)."""
        return self.server_seconds() >= self.ceiling_seconds - 0.001

    def wait_seconds(self) -> float:
        """How long a transport may block now: until the request times out or the next notice is due."""
        if self._notice is None:
            return self.remaining()
        return max(0.0, min(self._expires, self._notice) - time.monotonic())

    def notice(self) -> StillWaiting | None:
        """The notice that is due, if one is (checked before the timeout, so a late wake-up never
        skips it), saying the seconds it was due at (5, 20, ...: however late mrtr woke); the next is
        scheduled. Nothing else depends on it."""
        now = time.monotonic()
        due = self._notice
        if due is None or now < due:
            return None
        self._notice = due + self.NOTICE_EVERY
        while self._notice <= now:
            self._notice += self.NOTICE_EVERY
        return StillWaiting(due - self._started)

    def restart(self, spent: float) -> None:
        """mrtr spent `spent` seconds of its own (it answered a question of the server's, or logged
        in): the timeout starts again (not a reset: mrtr's own time never counts against the
        server), within the ceiling of the server's time."""
        self._own += spent
        self.restarts += 1
        self._expires = self._bounded(time.monotonic() + self.seconds)

    def extend(self) -> None:
        """Progress was reported: start the timeout again, unless it was reset 10 times already."""
        if self.resets < self.MAX_RESETS:
            self.resets += 1
            self._expires = self._bounded(time.monotonic() + self.seconds)

    def _bounded(self, expires: float) -> float:
        """`expires`, or the ceiling or the hard end when one comes first."""
        expires = min(expires, self._started + self.ceiling_seconds + self._own)
        return expires if self.not_after is None else min(expires, self.not_after)


class TransportTimeout(Exception):
    """The deadline passed before the exchange ended."""


class Exchange(Protocol):
    """What arrives for one request."""

    def frames(self, deadline: Deadline) -> Iterator[Incoming]:
        """Everything that arrives, until the caller stops reading or the stream ends.

        Raises `TransportTimeout` when the deadline passes, `UnreachableError` when the
        server is gone.
        """

    def cancel(self, notification: str) -> None:
        """Stop the request: stdio sends the `notifications/cancelled` frame, HTTP closes."""

    def close(self) -> None:
        """Release what the exchange holds."""


class Transport(Protocol):
    """A way to reach one server."""

    def start(self, text: str, headers: Headers, before_waiting: Callable[[], None] | None = None) -> Exchange:
        """Send one request frame and return the exchange that carries its answer. HTTP sends it
        with `headers` (and sends nothing yet). stdio writes the frame, and calls `before_waiting`
        before a write waits for room in a full pipe."""

    def send(self, text: str, headers: Headers) -> None:
        """Send one frame that expects no response (a notification, or mrtr's response to a server
        request): stdio writes a line, HTTP POSTs it and expects 202 Accepted."""

    def describe(self) -> str:
        """The command or URL, for messages that name the server."""

    def close(self) -> None:
        """Shut the connection or the process down, gracefully."""


class Wrapped:
    """A transport that hands every call to the one it wraps (`inner`); subclasses change what they
    must: a pooled process lent to a conversation (transport/shared.py), a stdio server across its
    restarts (commands/hops.py)."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner

    def start(self, text: str, headers: Headers, before_waiting: Callable[[], None] | None = None) -> Exchange:
        return self.inner.start(text, headers, before_waiting)

    def send(self, text: str, headers: Headers) -> None:
        self.inner.send(text, headers)

    def describe(self) -> str:
        return self.inner.describe()

    def close(self) -> None:
        self.inner.close()


def ties_requests(transport: Transport) -> bool:
    """Whether a server request arriving through `transport` is tied to the request it answers on:
    Streamable HTTP sends it on that request's own response stream (`TIES_REQUESTS`); stdio's one
    pipe ties nothing, so when such a request arrives is all there is."""
    while isinstance(transport, Wrapped):
        transport = transport.inner
    return bool(getattr(transport, "TIES_REQUESTS", False))


def listener(transport: Transport) -> Exchange | None:
    """What the server sends with no request of mrtr's in flight, read as an exchange's frames (stdio's
    one pipe: `listen`); None where there is no such channel to read."""
    while isinstance(transport, Wrapped):
        transport = transport.inner
    listen = getattr(transport, "listen", None)
    return listen() if callable(listen) else None


class Channel(Protocol):
    """A transport whose frames all share one channel (stdio, the in-memory transport)."""

    def receive(self, deadline: Deadline) -> Incoming: ...

    def write(self, line: str) -> None: ...


class ChannelExchange:
    """Frames for one request on a `Channel`: every frame shares it, so the request's are all of them."""

    def __init__(self, channel: Channel) -> None:
        self._channel = channel

    def frames(self, deadline: Deadline) -> Iterator[Incoming]:
        while True:
            yield self._channel.receive(deadline)

    def cancel(self, notification: str) -> None:
        try:
            self._channel.write(notification)
        except UnreachableError:
            pass  # nothing left to cancel

    def close(self) -> None:
        pass
