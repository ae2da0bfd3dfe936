"""What arrives while one request waits for its response: sorted, reported, and the response returned.

Progress for the request extends its deadline; a request from the server (older era) goes to the
handler that answers it; anything else is reported and passed over.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from mrtr_cli.conversation import events
from mrtr_cli.errors import NotAServer, ProtocolError, RequestTimeout
from mrtr_cli.conversation.stopwatch import Stopwatch
from mrtr_cli.conversation.events import HeldEvents, Observer
from mrtr_cli.protocol import jsonrpc
from mrtr_cli.protocol.jsonrpc import Malformed, Notification, Request, Response
from mrtr_cli.transport.base import AuthNote, Deadline, Frame, StderrLine, StillWaiting, WireInfo

if TYPE_CHECKING:
    from mrtr_cli.conversation.server_requests import CallAsked


class ServerRequestHandler(Protocol):
    """Answers a request the server sends (older era): the answer goes back through the client
    (conversation/server_requests.py). A call's requests are kept from `begin_call` to `end_call`;
    `unprompted_seen`: the methods of the requests it answered that were not a call's."""

    unprompted_seen: set[str]

    def handle(self, message: Request, in_flight: int | None, outside: bool = False) -> None: ...

    def begin_call(self) -> None: ...

    def end_call(self) -> CallAsked: ...


def progress_token(request_id: int) -> str:
    """The progressToken of request `request_id`: progress for it is told apart by this."""
    return f"mrtr-{request_id}"


class Waiting:
    """Sorts what arrives while one request waits for its response."""

    def __init__(self, request_id: int, method: str, deadline: Deadline, emit: Observer,
                 server_requests: ServerRequestHandler | None = None,
                 held: HeldEvents | None = None, stopwatch: Stopwatch | None = None,
                 late: Callable[[Response], bool] | None = None) -> None:
        self.server_requests = server_requests
        self.stopwatch = stopwatch or Stopwatch()
        """The request's time, which leaves out the answering of the server's requests."""
        self.late = late
        """Takes the late answer to an earlier request left outstanding (the era probe); True: it was one."""
        self.held = held
        """Told when the frame of the response awaited arrives, before it is reported."""
        self.request_id = request_id
        self.method = method
        self.token = progress_token(request_id)
        self.deadline = deadline
        self.emit = emit
        self.status: int | None = None

    def take(self, incoming: Any) -> Response | None:
        """Report one arrival; return it when it is the response awaited."""
        if isinstance(incoming, StderrLine):
            self.emit(events.ServerStderr(incoming.text))
            return None
        if isinstance(incoming, StillWaiting):
            self.emit(events.StillWaiting(self.method, self.request_id, incoming.seconds))
            return None
        if isinstance(incoming, AuthNote):
            self.emit(events.AuthorizationStep(incoming.step, incoming.text, incoming.fields))
            return None
        if isinstance(incoming, WireInfo):
            self.status = (incoming.fields or {}).get("status", self.status)
            self.emit(events.WireNote(incoming.direction, incoming.text, incoming.fields, self.request_id))
            return None
        message = jsonrpc.decode(incoming.data)
        if self._echoed(message):
            raise NotAServer(f"the server echoed mrtr's {self.method} back: the command is not an MCP server",
                             "is it the right command? e.g. -- python server.py")
        if self.held is not None and self._awaited(message):
            self.held.response_arrived()
        self.emit(events.FrameReceived(message))
        return self._sort(message, isinstance(incoming, Frame) and incoming.outside)

    def _sort(self, message: jsonrpc.Message, outside: bool = False) -> Response | None:
        """`outside`: it came on no request's stream (HTTP's GET stream)."""
        if isinstance(message, Response):
            return self._response(message)
        if isinstance(message, Notification):
            self._notification(message)
        elif isinstance(message, Request) and self.server_requests is not None:
            started = time.monotonic()
            with self.stopwatch.excluding():  # a person typing is not the round's time either
                self.server_requests.handle(message, self.request_id, outside)
            self.deadline.restart(time.monotonic() - started)  # answering is not the server's time
        elif isinstance(message, Request):
            self.emit(events.FrameIgnored(message.raw, f"a {message.method} request from the server; "
                                          "since 2026-07-28 servers ask through input_required"))
        elif isinstance(message, Malformed):
            self.emit(events.FrameIgnored(message.raw, message.reason))
            if message.id is not None and jsonrpc.same_id(message.id, self.request_id):
                raise ProtocolError(f"the response to {self.method} (id {self.request_id}) has {message.reason}",
                                    "a server must send such a number as a string; -v shows the frame")
        return None

    def _echoed(self, message: jsonrpc.Message) -> bool:
        """Whether `message` is the request in flight come back: its method and its id (no server
        asks mrtr what mrtr asked it, under mrtr's own id)."""
        return (isinstance(message, Request) and message.method == self.method
                and jsonrpc.same_id(message.id, self.request_id))

    def _awaited(self, message: jsonrpc.Message) -> bool:
        """Whether `message` is the response awaited: its id is ours, or it is an error the server
        could not attribute (ours is the only request)."""
        return isinstance(message, Response) and (jsonrpc.same_id(message.id, self.request_id)
                                                   or (message.id is None and message.error is not None))

    def _response(self, message: Response) -> Response | None:
        if self._awaited(message):
            return message
        if self.late is not None and self.late(message):
            return None
        self.emit(events.FrameIgnored(message.raw, f"a response for id {message.id!r}, which is not "
                                      f"the request in flight (id {self.request_id})"))
        return None

    def _notification(self, message: Notification) -> None:
        token = message.params.get("progressToken")
        ours = message.method != "notifications/progress" or token == self.token
        if message.method == "notifications/progress" and ours:
            self.deadline.extend()
        self.emit(events.NotificationReceived(message.method, message.params,
                                              self.request_id if ours else None))


def timed_out(request: str, deadline: Deadline) -> RequestTimeout:
    """No response in time: the time waited and, when progress reset the timeout, the rule."""
    hint = "mrtr cancelled it; raise --timeout if the server is just slow"
    if deadline.restarts and deadline.at_ceiling():
        return RequestTimeout(f"no response to {request} after {deadline.server_seconds():.1f} s of the server's "
                              f"time: it kept asking (mrtr answered {deadline.restarts} requests; one request waits "
                              f"at most {Deadline.CEILING} x --timeout, {deadline.ceiling_seconds:g} s, "
                              "answering excluded)", hint)
    if not deadline.resets:
        since = " of the server's own time since mrtr last answered it" if deadline.restarts else ""
        return RequestTimeout(f"no response to {request} within {deadline.seconds:g} s{since}", hint)
    times = f"{deadline.resets} time{'s' if deadline.resets != 1 else ''}"
    return RequestTimeout(f"no response to {request} after {deadline.elapsed():.1f} s: progress reset the "
                          f"{deadline.seconds:g} s timeout {times} (at most {Deadline.MAX_RESETS}, so one request "
                          f"waits at most {Deadline.CEILING} x --timeout, {deadline.ceiling_seconds:g} s)", hint)
