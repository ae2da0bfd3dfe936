"""What the engine reports as it works. Renderers, the JSON report and the recorder subscribe.

Events are plain named tuples (cheap to define: start-up is a budget); the engine never knows
who listens. An observer is any callable taking one event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, get_args

from mrtr_cli.protocol import lint_rules
from mrtr_cli.protocol.jsonrpc import Message

Finding = lint_rules.Finding
"""Something the server did against the spec: an event too, which the linter emits."""
Purpose = Literal["request", "retry", "probe", "era", "list", "reissue", "handshake", "task"]
"""Why a request was sent: a conversation's first round or a retry, one of `mrtr check`'s probes, the
era probe (server/discover), a page of a list, a request sent again after a broken stream, the older
era's initialize, a request that follows a task (tasks/get, tasks/update, tasks/cancel)."""
Era = Literal["modern", "older"]
"""The era mrtr speaks with a server: 2026-07-28 (modern) or the initialize handshake's (older)."""
OutcomeStatus = Literal["complete", "error", "incomplete", "aborted"]
"""How a conversation ended (conversation/session.py's `Outcome.status`)."""
OUTCOME_STATUSES: tuple[OutcomeStatus, ...] = get_args(OutcomeStatus)


def outcome_status(said: str) -> OutcomeStatus:
    """`said` (a transcript's recorded outcome) as a status; anything else reads as aborted."""
    return next((status for status in OUTCOME_STATUSES if status == said), "aborted")


class RequestSent(NamedTuple):
    """A request left mrtr. `round` is set for the rounds of an MRTR conversation."""

    id: int
    method: str
    params: dict[str, Any]
    text: str
    round: int | None = None
    purpose: Purpose = "request"
    state_as_received: bool = True
    """Whether a retry's requestState is the one the server sent: mrtr's is, but for the first retry of
    a check probe's conversation resumed with another (`Session.resume`); a client's, seen through the
    proxy, may not be."""


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


class StillWaiting(NamedTuple):
    """A server that has said nothing yet is still waited for: `seconds` since request `id` (`method`) was sent."""

    method: str
    id: int
    seconds: float


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


class InstanceChosen(NamedTuple):
    """Round `round` goes to instance `position` (0: where the conversation began), named `name`
    (`--replica URL`, `--restart-between-rounds`: conversation/instances.py)."""

    round: int
    position: int
    name: str


class Continued(NamedTuple):
    """A recorded conversation was continued by `mrtr answer` from round `from_round`, at `at` (UTC), by `by`,
    its retry sent to `target` (the transcript's form), `waited_seconds` after the paused round was sent."""

    from_round: int
    at: str
    by: str
    target: dict[str, Any]
    waited_seconds: int


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
    outside a call), keyed by its synthetic key; `unprompted`: one that is not the call's question (a
    `roots/list`, or any request outside the call: conversation/server_requests.py)."""

    round: int
    id: int | None
    requests: dict[str, dict[str, Any]]
    state: str | None
    in_flight: bool = False
    unprompted: bool = False


class MessageSent(NamedTuple):
    """mrtr sent a message that expects no response: a notification, or its response to a server request."""

    what: str
    text: str


class Unanswered(NamedTuple):
    """A server request (older era) refused, or that nothing answered: it got an error, and mrtr goes
    on. `source`: the answerer that refused it (None: nothing answered it), `said`: why, in its words
    (what a transcript keeps); `unprompted`: as in `InputRequested`."""

    key: str
    reason: str
    round: int = 0
    method: str = ""
    source: str | None = None
    unprompted: bool = False
    said: str = ""


class ProbeUnanswered(NamedTuple):
    """The era probe (request `id`) got no answer within --era-probe-wait: mrtr tries the handshake
    and keeps listening for it, so a late answer is still an answer."""

    id: int
    method: str
    seconds: float


class EraReprobed(NamedTuple):
    """Replay spoke the recorded era without a probe, and the server refused it: the era is probed once."""

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
    unprompted: bool = False
    """The answer to a request that is not the call's question (`InputRequested.unprompted`)."""


class BackingOff(NamedTuple):
    """A round carried only requestState: mrtr waits `seconds` before retrying."""

    round: int
    seconds: float


class TaskCreated(NamedTuple):
    """The server made request `id` a task (modern era: a result with `resultType: "task"`, the
    io.modelcontextprotocol/tasks extension; older era: a CreateTaskResult of the 2025-11-25 tasks).
    mrtr follows it until it ends. Every field as the server said it (a hostile server may say
    anything: `status` is not checked here)."""

    id: int
    task_id: str
    status: str
    status_message: str | None = None
    poll_interval_ms: int | None = None
    ttl_ms: int | None = None
    poll_seconds: float | None = None
    """How often mrtr polls it: the server's suggestion held between bounds, or --poll-interval (None: not said)."""
    session_bound: bool = False
    """An older-era task (2025-11-25): it belongs to the session mrtr ends, so no later run comes back to it."""


class TaskStatusChanged(NamedTuple):
    """Task `task_id` moved to `status` (or its `statusMessage` changed), seen by polling or told by
    a notification. Its questions, when `input_required`, come as InputRequested and AnswerChosen."""

    task_id: str
    status: str
    status_message: str | None = None


class TaskFollowing(NamedTuple):
    """How mrtr follows task `task_id` once a subscriptions/listen stream for it was tried: `by`
    "notifications" (the server acknowledged it: polled every `seconds` only as a backstop) or "polling"
    (every `seconds`; `why`: what the stream did instead)."""

    task_id: str
    by: Literal["notifications", "polling"]
    seconds: float
    why: str = ""


class TaskStreamProblem(NamedTuple):
    """Something on a task's subscriptions/listen stream the tasks extension does not allow, for the
    linter to report (`rule`: a lint_rules rule); the stream goes on."""

    rule: str
    message: str


class OutcomeReached(NamedTuple):
    """The conversation ended."""

    outcome: Any  # session.Outcome; typed loosely to keep this module free of the engine


Observer = Callable[[Any], None]


@dataclass
class Broadcast:
    """Sends each event to every observer, in the order they subscribed; what `held` keeps back
    goes out when it is released."""

    observers: list[Observer] = field(default_factory=list)
    held: HeldEvents = field(init=False, repr=False, compare=False)
    """The one owner of held events: events of a round wait there until mrtr is about to wait."""

    def __post_init__(self) -> None:
        self.held = HeldEvents(self._deliver)

    def subscribe(self, observer: Observer, *, first: bool = False) -> None:
        """`first`: before every observer so far (the keeper of task ids: a task is kept before the timeline
        shows it, so a Ctrl-C at that line finds it kept)."""
        if first:
            self.observers.insert(0, observer)
        else:
            self.observers.append(observer)

    def unsubscribe(self, observer: Observer) -> None:
        """`observer` gets no more events (one that watched a single step, e.g. the era probe)."""
        self.observers.remove(observer)

    def __call__(self, event: Any) -> None:
        if not self.held.keeps(event):
            self._deliver(event)

    def _deliver(self, event: Any) -> None:
        for observer in self.observers:
            observer(event)


class HeldEvents:
    """The one owner of held events. The rule, whole: a conversation's round is shown and checked
    while the server works on the retry, not before the retry is sent, and nothing is held while
    mrtr waits. So, while a conversation runs (`conversation_starts` .. `conversation_ends`, the
    Session), the events of each round are held from its response's frame on (`response_arrived`,
    which `Waiting` calls), and go out, in order, as soon as mrtr is about to wait (`before_waiting`):
    the client before it awaits a response, stdio before a write waits on a full pipe, an answerer
    that waits, a backoff, the conversation's end. Outside a conversation events go out at once."""

    def __init__(self, deliver: Observer) -> None:
        self._deliver = deliver
        self._held: list[Any] | None = None
        """The events held back, in order; None when events go out at once."""
        self._in_conversation = False

    def conversation_starts(self) -> None:
        """From now on, each response awaited holds the events from its frame on."""
        self._in_conversation = True

    def conversation_ends(self) -> None:
        """The conversation's end: no more holding, and what was held goes out."""
        self._in_conversation = False
        self.before_waiting()

    def response_arrived(self) -> None:
        """The frame of a response awaited arrived: in a conversation, its round's events are held
        from here on (the frame is checked and shown with its round, while the server works on the next)."""
        if self._in_conversation and self._held is None:
            self._held = []

    def keeps(self, event: Any) -> bool:
        """Whether `event` is held back (kept, in order, for the next release)."""
        if self._held is None:
            return False
        self._held.append(event)
        return True

    def before_waiting(self) -> None:
        """mrtr is about to wait: send the events held back, in order, and every later one at once
        (an observer's own events, emitted as it handles one of them, go out where they were
        caused). When an observer raises (Ctrl-C lands), the events not yet sent are held again, for
        the next release."""
        held, self._held = self._held or [], None
        for index, event in enumerate(held):
            try:
                self._deliver(event)
            except BaseException:
                self._held = held[index + 1:]
                raise
