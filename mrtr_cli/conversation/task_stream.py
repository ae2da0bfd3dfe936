"""A task's status notifications (the tasks extension, 2026-07-28): one `subscriptions/listen` stream that
asks for one task id, read beside the polling (conversation/task_follower.py).

The listen request is a POST of its own whose event stream stays open (Streamable HTTP): a daemon thread
reads it and hands each item over through a small queue, so the follower's wait between polls wakes as soon
as something arrives, and otherwise blocks until the next poll is due (no busy loop). What arrives is told on
the follower's thread (the observers are not thread-safe): -v shows each frame (WireNote), and what the
extension does not allow is linted (TaskStreamProblem, each rule once): progress or log messages on the
stream, a notifications/tasks for a task id not asked for or that is no DetailedTask, garbage. None of it is
fatal: the transport bounds each message (--max-message-size), and a broken stream only ends it.

The stream is `pending` until the server acknowledges it (at most ACK_SECONDS), then `acknowledged` (the
acknowledgement names the task id) or `ended` (refused with an error or an HTTP status, acknowledged without
the id, silent, or closed): the follower then polls as it would have without it.

Over stdio mrtr opens no such stream: every frame shares the one channel, read in the caller's thread while
a request waits for its response, so a notification arriving during a tasks/get would belong to that
request's reading, not to this stream.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Any, Literal

from mrtr_cli.conversation import events
from mrtr_cli.conversation.client import Client
from mrtr_cli.errors import MrtrError, ProtocolError
from mrtr_cli.process import signals
from mrtr_cli.protocol import jsonrpc, tasks
from mrtr_cli.protocol.jsonrpc import Malformed, Notification, Response
from mrtr_cli.protocol.meta import SUBSCRIPTION_ACKNOWLEDGED
from mrtr_cli.protocol.tasks import TaskState
from mrtr_cli.transport.base import Deadline, Exchange, Frame, TransportTimeout, WireInfo

ACK_SECONDS = 5.0
"""How long the acknowledgement is waited for (or --timeout, when shorter) before mrtr polls instead."""
AHEAD = 16
"""How many items the reading thread may hold for the follower (each is at most one message)."""
ROOM_SECONDS = 0.1
"""How often a reading thread that waits for room checks whether the stream was closed."""

StreamState = Literal["pending", "acknowledged", "ended"]
PollSeconds = Callable[[TaskState], float]
"""The poll interval of a task as it stands (the server's suggestion held between bounds, or --poll-interval)."""


class TaskStream:
    """One subscriptions/listen stream for task `task_id` over `client`."""

    def __init__(self, client: Client, task_id: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.client = client
        self.task_id = task_id
        self.clock = clock
        self.state: StreamState = "pending"
        self.why = ""
        """Why the stream ended (for the timeline)."""
        self.request_id = 0
        self.told: dict[str, Any] | None = None
        """The params of the last notifications/tasks read (the task as the server told it)."""
        self._exchange: Exchange | None = None
        self._items: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=AHEAD)
        self._closed = threading.Event()
        self._reported: set[str] = set()
        self._ack_by = clock() + min(ACK_SECONDS, client.settings.timeout)

    def open(self, seconds: float) -> None:
        """Send the listen request, and read its stream (for at most `seconds`) in a thread of its own."""
        try:
            self.request_id, self._exchange = self.client.open_stream(tasks.LISTEN, tasks.listen_params(self.task_id))
        except MrtrError as error:
            self._end(error.message)
            return
        signals.start(threading.Thread(target=self._read, args=(self._exchange, Deadline(seconds)),
                                       name="mrtr-task-stream", daemon=True))

    def wait(self, seconds: float) -> TaskState | None:
        """Wait at most `seconds` for the next thing on the stream and tell it; the task as a
        notifications/tasks showed it (None: nothing came, something else did, or the stream is over)."""
        if self.state == "pending" and self.clock() >= self._ack_by:
            self._end("no acknowledgement came")
        if self.state == "ended":
            return None
        if self.state == "pending":
            seconds = min(seconds, self._ack_by - self.clock())
        try:
            kind, value = self._items.get(timeout=max(0.0, seconds))
        except queue.Empty:
            return None
        if kind == "end":
            self._end(value)
            return None
        return self._take(value)

    def close(self) -> None:
        """Stop reading: the exchange is closed (over HTTP, the stream's connection)."""
        self._closed.set()
        if self._exchange is not None:
            self._exchange.close()

    def _read(self, exchange: Exchange, deadline: Deadline) -> None:
        """Runs in the reading thread: each item handed over, then why the stream ended."""
        try:
            for item in exchange.frames(deadline):
                if not self._put(("item", item)):
                    return
            self._put(("end", "the server ended the stream"))
        except TransportTimeout:
            self._put(("end", "the stream outlived the task's time"))
        except MrtrError as error:
            self._put(("end", error.message))
        except Exception as error:  # noqa: BLE001 - a broken stream only ends it
            self._put(("end", f"the stream broke ({type(error).__name__})"))

    def _put(self, entry: tuple[str, Any]) -> bool:
        while not self._closed.is_set():
            try:
                self._items.put(entry, timeout=ROOM_SECONDS)
                return True
            except queue.Full:
                continue
        return False

    def _take(self, item: Any) -> TaskState | None:
        if isinstance(item, WireInfo):
            self.client.emit(events.WireNote(item.direction, item.text, item.fields, self.request_id))
        if not isinstance(item, Frame):
            return None
        message = jsonrpc.decode(item.data)
        self.client.emit(events.WireNote("in", message.raw, None, self.request_id))
        if isinstance(message, Notification):
            return self._notified(message)
        if isinstance(message, Response):
            error = message.error
            self._end(f"it refused subscriptions/listen: error {error.get('code')}" if isinstance(error, dict)
                      else "the server ended the stream")
        elif isinstance(message, Malformed):
            self._problem("not-jsonrpc", f"on the listen stream of task {self.task_id}: {message.reason}")
        return None

    def _notified(self, message: Notification) -> TaskState | None:
        if message.method == SUBSCRIPTION_ACKNOWLEDGED:
            self._acknowledged(message.params)
        elif message.method in tasks.NOT_ON_TASK_STREAM:
            self._problem("task-stream-progress", f"the server sent {message.method} on the listen stream of "
                          f"task {self.task_id}, which it MUST NOT")
        elif message.method == tasks.STATUS_NOTIFICATION:
            return self._status(message.params)
        return None

    def _acknowledged(self, params: dict[str, Any]) -> None:
        if self.state != "pending":
            return
        if self.task_id in tasks.acknowledged_ids(params):
            self.state = "acknowledged"
        else:
            self._end("the server acknowledged the stream without the task's id")

    def _status(self, params: dict[str, Any]) -> TaskState | None:
        named = params.get("taskId")
        if named != self.task_id:
            shown = repr(named)[:60]
            self._problem("task-notification-unknown", f"a notifications/tasks for task {shown}, which mrtr did "
                          f"not ask for (it asked for {self.task_id})")
            return None
        try:
            state = tasks.read_detailed(params, self.task_id, f"the notifications/tasks for task {self.task_id!r}")
        except ProtocolError as error:
            self._problem("task-notification-invalid", error.message)
            return None
        self.told = params
        return state

    def _problem(self, rule: str, message: str) -> None:
        """Lint what the stream carried: each rule once (a hostile stream may repeat it endlessly)."""
        if rule not in self._reported:
            self._reported.add(rule)
            self.client.emit(events.TaskStreamProblem(rule, message))

    def _end(self, why: str) -> None:
        if self.state != "ended":
            self.state, self.why = "ended", why
            self.close()


class StreamedPolls:
    """The polls of a task with a notification stream: when the next tasks/get is due (one poll interval
    while the stream is pending, the backstop once the server acknowledged it, the poll interval again once
    it ended), and the wait for it, which a notification cuts short."""

    def __init__(self, stream: TaskStream, poll_seconds: PollSeconds, sleep: Callable[[float], None]) -> None:
        self.stream = stream
        self.poll_seconds = poll_seconds
        self.sleep = sleep
        self.due = 0.0
        """When the next tasks/get is due (the stream's clock)."""

    def polled(self, state: TaskState) -> None:
        """A tasks/get or tasks/update just went: the next poll is one interval away."""
        self.due = self.stream.clock() + self.interval(state)

    def interval(self, state: TaskState) -> float:
        """The backstop while notifications follow the task, else the poll interval."""
        if self.stream.state == "acknowledged":
            return tasks.backstop_seconds(state.poll_interval_ms)
        return self.poll_seconds(state)

    def wait(self, state: TaskState, time_left: Callable[[], float]) -> TaskState | None:
        """Wait on the stream until the next poll is due or `time_left()` (the task's) runs out; the task as
        a notification brought it (None: the poll is due)."""
        stream = self.stream
        while True:
            left = min(self.due - stream.clock(), time_left())
            if left <= 0:
                return None
            if stream.state == "ended":
                self.sleep(left)
                return None
            was = stream.state
            notified = stream.wait(left)
            if stream.state != was:
                self._turned(state, was)
            if notified is not None:
                return notified

    def _turned(self, state: TaskState, was: StreamState) -> None:
        """Acknowledged: a poll at once catches up on what came before, then the backstop. Ended: polls
        as without it. The timeline says which (events.TaskFollowing)."""
        stream = self.stream
        if stream.state == "acknowledged":
            self.due = stream.clock()
            stream.client.emit(events.TaskFollowing(state.task_id, "notifications", self.interval(state)))
            return
        seconds = self.poll_seconds(state)
        self.due = min(self.due, stream.clock() + seconds)
        why = f"the stream ended: {stream.why}" if was == "acknowledged" else stream.why
        stream.client.emit(events.TaskFollowing(state.task_id, "polling", seconds, why))
