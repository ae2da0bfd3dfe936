"""What the engine reports as it works. Renderers, the JSON report and the recorder subscribe.

Events are plain named tuples (cheap to define: start-up is a budget); the engine never knows
who listens. An observer is any callable taking one event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from mrtr_cli.protocol import lint_rules
from mrtr_cli.protocol.jsonrpc import Message

Finding = lint_rules.Finding
"""Something the server did against the spec: an event too, which the linter emits."""
Purpose = Literal["request", "retry", "probe", "era", "list", "reissue", "handshake"]
"""Why a request was sent: a conversation's first round or a retry, one of `mrtr check`'s probes, the
era probe (server/discover), a page of a list, a request sent again after a broken stream, the older
era's initialize."""
Era = Literal["modern", "older"]
"""The era mrtr speaks with a server: 2026-07-28 (modern) or the initialize handshake's (older)."""


class RequestSent(NamedTuple):
    """A request left mrtr. `round` is set for the rounds of an MRTR conversation."""

    id: int
    method: str
    params: dict[str, Any]
    text: str
    round: int | None = None
    purpose: Purpose = "request"


class CancelSent(NamedTuple):
    """mrtr cancelled request `id` (timeout or Ctrl-C); `text` is the frame sent, if any."""

    id: int
    reason: str
    text: str


class FrameReceived(NamedTuple):
    """A frame arrived from the server, decoded (or Malformed), with its raw text."""

    message: Message


class WireNote(NamedTuple):
    """Transport detail of request `request_id`: text for `-v`, fields for the transcript."""

    direction: str  # "in" | "out"
    text: str
    fields: dict[str, Any] | None = None
    request_id: int | None = None


class AuthorizationStep(NamedTuple):
    """A step of logging in to a server behind OAuth (auth/): what was fetched, which client
    identity and scopes, why a step failed. `fields` go to the transcript; never a secret."""

    step: str
    text: str
    fields: dict[str, Any] | None = None


class ServerStderr(NamedTuple):
    """A line the server process wrote to its stderr."""

    line: str


class NotificationReceived(NamedTuple):
    """A notification for the request in flight (progress, log message, ...)."""

    method: str
    params: dict[str, Any]
    request_id: int | None


class FrameIgnored(NamedTuple):
    """A frame mrtr read but could not use: garbage, an unknown id, a duplicate response."""

    raw: str
    reason: str


class ResponseReceived(NamedTuple):
    """The response to request `id` arrived after `elapsed_ms`."""

    id: int
    method: str
    result: Any
    error: dict[str, Any] | None
    elapsed_ms: float
    round: int | None = None


class Reissued(NamedTuple):
    """The response stream of request `id` ended before its response; mrtr sends it again."""

    id: int
    method: str


class VersionChanged(NamedTuple):
    """The server did not speak the requested version; mrtr retries with another."""

    old: str
    new: str
    supported: list[str]


class ServerIdentified(NamedTuple):
    """The server's `serverInfo` (from server/discover or a result's `_meta`)."""

    info: dict[str, Any]


class InputRequested(NamedTuple):
    """Round `round` ended with input_required: these questions (maybe none) and maybe state. In the
    older era (`in_flight`), one request the server sent while request `id` was in flight (id None:
    outside a call), keyed by its synthetic key."""

    round: int
    id: int | None
    requests: dict[str, dict[str, Any]]
    state: str | None
    in_flight: bool = False


class MessageSent(NamedTuple):
    """mrtr sent a message that expects no response: a notification, or its response to a server request."""

    what: str
    text: str


class Unanswered(NamedTuple):
    """A server request outside a call (older era) that nothing answered: it got an error, and mrtr goes on."""

    key: str
    reason: str


class EraChosen(NamedTuple):
    """Which era mrtr speaks with this server (modern or older), in which version, and why."""

    era: Era
    version: str
    reason: str


class AnswerChosen(NamedTuple):
    """The answer to question `key` of round `round`, and which answerer gave it."""

    round: int
    key: str
    method: str
    response: dict[str, Any]
    source: str


class BackingOff(NamedTuple):
    """A round carried only requestState: mrtr waits `seconds` before retrying."""

    round: int
    seconds: float


class OutcomeReached(NamedTuple):
    """The conversation ended."""

    outcome: Any  # session.Outcome; typed loosely to keep this module free of the engine


Observer = Callable[[Any], None]


@dataclass
class Broadcast:
    """Sends each event to every observer, in the order they subscribed.

    Events can be held back while mrtr works without waiting (`hold`), and go out together when
    it is about to wait (`release`): a conversation's round is shown and checked while the server
    works on the retry, not before the retry is sent. Nothing is held while mrtr waits.
    """

    observers: list[Observer] = field(default_factory=list)
    held: list[Any] | None = None
    """The events held back, in order; None when events go out at once."""

    def subscribe(self, observer: Observer) -> None:
        self.observers.append(observer)

    def unsubscribe(self, observer: Observer) -> None:
        """`observer` gets no more events (one that watched a single step, e.g. the era probe)."""
        self.observers.remove(observer)

    def hold(self) -> None:
        """From now on, keep events back until `release`."""
        if self.held is None:
            self.held = []

    def release(self) -> None:
        """Send the events held back, in order, and every later one at once (an observer's own
        events, emitted as it handles one of them, go out where they were caused). When an observer
        raises (Ctrl-C lands), the events not yet sent are held again, for the next release."""
        held, self.held = self.held or [], None
        for index, event in enumerate(held):
            try:
                for observer in self.observers:
                    observer(event)
            except BaseException:
                self.held = held[index + 1:]
                raise

    def __call__(self, event: Any) -> None:
        if self.held is not None:
            self.held.append(event)
            return
        for observer in self.observers:
            observer(event)
