"""Following a task of the tasks extension (2026-07-28, `io.modelcontextprotocol/tasks`) to its end.

A `tools/call` answered with `resultType: "task"` hands its task here (Session), and so can a command
that knows only a task id and a connected client (`follow_id`, for resuming). The follower polls
`tasks/get` at the server's `pollIntervalMs` (held between 0.1 and 10 s; `--poll-interval` overrides),
reports each status and statusMessage it sees (`events.TaskStatusChanged`), reads `input_required` as a
round of questions (`events.InputRequested`, round numbers going on from the call's), answers them
through the session's chain and sends the answers with `tasks/update`, until the task ends:
`completed` gives the result as a call would, `failed` its error, `cancelled` says so. The whole task
is bounded by `--task-timeout` (checked on every pass, and no request waits past it), each request by
`--timeout`, its input rounds by `--max-rounds`. Between polls, and after each tasks/update, it blocks
(`sleep`) for one poll interval or until the deadline: no busy loop. What it keeps is bounded
(`TaskRecord`: the first statuses and the last).

Where the transport can read a second stream beside the polls (`TaskSettings.listen`: Streamable HTTP)
and no `--poll-interval` forces polling, it also opens a subscriptions/listen stream for the task's
`notifications/tasks` (conversation/task_stream.py). Once the server acknowledges the task id, each
notification is read exactly as a tasks/get result (the same statuses, questions and answers), the wait
between polls wakes on it, and tasks/get goes on only as a backstop (`tasks.backstop_seconds`: 10 s, or the
server's interval when longer). A stream refused, not acknowledged or ended leaves the polling as it was.
The timeline says once which way it went (`events.TaskFollowing`); the stream is closed when following ends.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.conversation.client import Client, Reply
from mrtr_cli.conversation.explain import explain
from mrtr_cli.conversation.stopwatch import Stopwatch
from mrtr_cli.conversation.task_stream import StreamedPolls, TaskStream
from mrtr_cli.errors import (IncompleteError, MrtrError, ProtocolError, RequestTimeout, ServerError,
                             UnreachableError)
from mrtr_cli.protocol import tasks
from mrtr_cli.protocol.tasks import TaskState

DEFAULT_TASK_TIMEOUT = 600.0
"""How long a whole task is followed unless `--task-timeout` says otherwise (seconds)."""
KEPT_STATUSES = 50
"""The most statuses a record keeps: the first ones and the last (a server may change its statusMessage on
every poll); how many were left out between is counted."""


@dataclass(frozen=True)
class TaskSettings:
    """How tasks are followed: `--poll-interval` (None: the server's suggestion) and `--task-timeout`;
    `listen`: whether the transport can read a task's notification stream beside the polls (HTTP)."""

    poll_interval: float | None = None
    task_timeout: float = DEFAULT_TASK_TIMEOUT
    listen: bool = False


@dataclass
class TaskRecord:
    """What following a task saw: its id, each status (with its statusMessage) in order, and how many
    polls it took (the `--json` report's `task`)."""

    task_id: str
    statuses: list[tuple[str, str | None]]
    polls: int = 0
    left_out: int = 0
    """Statuses seen but not kept (past KEPT_STATUSES, only the last is kept)."""
    elapsed_ms: float | None = None
    """How long the task was followed, from the call that made it (None: not followed to an end yet)."""

    def saw(self, status: str, message: str | None) -> None:
        """Keep a status seen: the first KEPT_STATUSES - 1, then only the last (the others counted)."""
        if len(self.statuses) < KEPT_STATUSES:
            self.statuses.append((status, message))
        else:
            self.statuses[-1] = (status, message)
            self.left_out += 1

    def as_dict(self) -> dict[str, Any]:
        statuses = [status_entry(status, message) for status, message in self.statuses]
        left_out = {"statuses_left_out": self.left_out} if self.left_out else {}
        return {"id": self.task_id, "statuses": statuses, **left_out, "polls": self.polls}


def status_entry(status: str, message: str | None) -> dict[str, Any]:
    """A status seen, as the `--json` report and the transcript write it (no `message` when it had none)."""
    return {"status": status, **({"message": message} if message is not None else {})}


class TaskFailed(ServerError):
    """The task ended `failed`: its JSON-RPC error (exit 2)."""

    def __init__(self, task_id: str, error: dict[str, Any], message: str | None) -> None:
        said = message if message and message != error.get("message") else ""
        super().__init__(f"task {task_id}", error, said)


class TaskCancelled(ProtocolError):
    """The task ended `cancelled` (exit 2)."""


class TaskTimedOut(UnreachableError):
    """The task did not end within `--task-timeout` (exit 4); the server may still run it."""


class TaskDeadline:
    """The whole task's time (`--task-timeout`), which bounds every pass, wait and request of its following."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.clock = clock
        self.started = clock()
        self.ends = self.started + seconds

    def left(self) -> float:
        return self.ends - self.clock()

    def check(self, task_id: str, status: str) -> None:
        """Raise TaskTimedOut once the time is up."""
        if self.left() <= 0:
            raise self.expired(task_id, status)

    def expired(self, task_id: str, status: str) -> TaskTimedOut:
        return TaskTimedOut(f"task {task_id} did not end within --task-timeout {self.seconds:g} s (last status: "
                            f"{status})", f"the server may still run it; its task id is {task_id}")

    def request(self, client: Client, method: str, params: dict[str, Any], task_id: str, status: str) -> Reply:
        """`method` for the task, waited for no longer than --timeout nor than what is left of the task's time,
        also when answering the server's questions on its stream starts the --timeout again."""
        left, limit = self.left(), client.settings.timeout
        if left <= 0:
            raise self.expired(task_id, status)
        try:
            return client.request(method, params, purpose="task", timeout=min(limit, left), within=left)
        except RequestTimeout:
            if left < limit or self.left() <= 0:
                raise self.expired(task_id, status) from None
            raise


Asker = Callable[[int, Reply, dict[str, Any], dict[str, dict[str, Any]]], dict[str, Any]]
"""Asks round `number` (the tasks/get `reply` with its params) these questions through the chain (the
session's: it keeps the round), returning the inputResponses."""


class TaskFollower:
    """Follows one task over `client`; `ask` answers each input round, up to round `max_rounds`."""

    def __init__(self, client: Client, ask: Asker, settings: TaskSettings, *, max_rounds: int = 10,
                 sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic) -> None:
        self.client = client
        self.ask = ask
        self.settings = settings
        self.max_rounds = max_rounds
        self.sleep = sleep
        self.clock = clock
        self.record: TaskRecord | None = None
        """What was seen of the task so far (None: no task yet)."""
        self._deadline = TaskDeadline(settings.task_timeout, clock)
        """The task's time; started again when following starts."""
        self._stopwatch = Stopwatch(clock)
        """The task's time as the closing line gives it: the answering of its questions left out."""
        self._last: Reply | None = None
        """The last tasks/get's reply (an input round is that reply's)."""
        self._answered: set[str] = set()
        """The inputRequests keys answered: a server shows a question again until it takes the answer."""
        self._streamed: StreamedPolls | None = None
        """The polls of a task with a notification stream, and the stream (None: no stream opened)."""

    def follow_created(self, reply: Reply, next_round: int) -> dict[str, Any]:
        """Follow the task a `CreateTaskResult` (`reply`, to a tools/call) made; its result, when it completes."""
        try:
            created = tasks.read_created(reply.method, reply.result)
        except ProtocolError as error:
            raise self._unfollowable(error, reply.result) from None
        self._deadline, self._stopwatch = TaskDeadline(self.settings.task_timeout, self.clock), Stopwatch(self.clock)
        self.record = TaskRecord(created.task_id, [(created.status, created.status_message)])
        self.client.emit(events.TaskCreated(reply.id, created.task_id, created.status, created.status_message,
                                            created.poll_interval_ms, created.ttl_ms, self._poll_seconds(created)))
        self._listen(created)
        return self._follow(created, next_round, reply.elapsed_ms)

    def follow_id(self, task_id: str, next_round: int = 1) -> dict[str, Any]:
        """Follow a task known only by its id (a task mrtr made before, resumed): asked first, then followed."""
        self._deadline, self._stopwatch = TaskDeadline(self.settings.task_timeout, self.clock), Stopwatch(self.clock)
        self.record = TaskRecord(task_id, [])
        first = self._get(task_id, "not yet known")
        self._seen(first)
        self._listen(first)
        return self._follow(first, next_round)

    def _follow(self, state: TaskState, next_round: int, started_ms: float = 0.0) -> dict[str, Any]:
        """Poll until the task ends; the time it took, from the call that made it, goes in the record."""
        try:
            return self._polled(state, next_round)
        finally:
            if self._streamed is not None:
                self._streamed.stream.close()
            if self.record is not None:
                self.record.elapsed_ms = started_ms + self._stopwatch.elapsed_ms()

    def _polled(self, state: TaskState, next_round: int) -> dict[str, Any]:
        """Each pass: the end, the task's time, the questions not answered yet, one poll interval, a poll."""
        last = state
        while True:
            if state.terminal:
                return self._ended(state)
            self._deadline.check(state.task_id, state.status)
            if state.status == "input_required" and self._unanswered(state):
                next_round = self._answer_round(state, next_round)
            state = self._next(state)
            if (state.status, state.status_message) != (last.status, last.status_message):
                self._seen(state)
            last = state

    def _seen(self, state: TaskState) -> None:
        """A status (or statusMessage) not seen just before: kept, and told."""
        if self.record is not None:
            self.record.saw(state.status, state.status_message)
        self.client.emit(events.TaskStatusChanged(state.task_id, state.status, state.status_message))

    def _unanswered(self, state: TaskState) -> dict[str, dict[str, Any]]:
        return {key: request for key, request in state.input_requests.items() if key not in self._answered}

    def _poll_seconds(self, state: TaskState) -> float:
        return tasks.poll_seconds(state.poll_interval_ms, self.settings.poll_interval)

    def _listen(self, state: TaskState) -> None:
        """Open the task's notification stream, where the transport allows it and polling is not forced."""
        if not self.settings.listen or self.settings.poll_interval is not None or state.terminal:
            return
        stream = TaskStream(self.client, state.task_id, self.clock)
        stream.open(max(self._deadline.left(), 0.1))
        self._streamed = StreamedPolls(stream, self._poll_seconds, self.sleep)
        self._streamed.polled(state)

    def _next(self, state: TaskState) -> TaskState:
        """The task's next state: polled after one poll interval or, with a stream, what a notification
        brings meanwhile (else polled once the next poll is due)."""
        streamed = self._streamed
        if streamed is None:
            self._wait(state)
            return self._get(state.task_id, state.status)
        self.client.emit.held.before_waiting()
        notified = streamed.wait(state, self._deadline.left)
        if notified is not None:
            self._last = Reply(streamed.stream.request_id, tasks.STATUS_NOTIFICATION, streamed.stream.told, None, 0.0)
            return notified
        polled = self._get(state.task_id, state.status)
        streamed.polled(polled)
        return polled

    def _wait(self, state: TaskState) -> None:
        """Block until the next poll is due, or the task's time is up (no busy loop)."""
        self.client.emit.held.before_waiting()
        left = self._deadline.left()
        if left > 0:
            self.sleep(min(self._poll_seconds(state), left))

    def _get(self, task_id: str, status: str) -> TaskState:
        if self.record is not None:
            self.record.polls += 1
        reply = self._deadline.request(self.client, tasks.GET, tasks.get_params(task_id), task_id, status)
        if reply.error is not None:
            raise explain(tasks.GET, reply.error)
        self._last = reply
        return tasks.read_detailed(reply.result, task_id)

    def _answer_round(self, state: TaskState, number: int) -> int:
        """One round of the task's questions: asked, answered through the chain, sent with tasks/update."""
        asked, reply = self._unanswered(state), self._last or Reply(0, tasks.GET, None, None, 0.0)
        self.client.emit(events.InputRequested(number, reply.id, asked, None))
        if number > self.max_rounds:
            raise IncompleteError(f"task {state.task_id} still asks for input at round {number}, past --max-rounds "
                                  f"{self.max_rounds}", "raise --max-rounds if it needs more")
        with self._stopwatch.excluding():
            responses = self.ask(number, reply, tasks.get_params(state.task_id), asked)
        self._answered.update(asked)
        update = self._deadline.request(self.client, tasks.UPDATE, tasks.update_params(state.task_id, responses),
                                        state.task_id, state.status)
        if update.error is not None:
            raise explain(tasks.UPDATE, update.error)
        if self._streamed is not None:
            self._streamed.polled(state)
        return number + 1

    def _unfollowable(self, error: ProtocolError, result: Any) -> ProtocolError:
        """A CreateTaskResult mrtr cannot follow may still have started a task: when its taskId can be read,
        tasks/cancel is sent for it (best effort), and the error says so."""
        task_id = tasks.readable_id(result)
        if task_id is None:
            return error
        try:
            reply = self.client.request(tasks.CANCEL, tasks.cancel_params(task_id), purpose="task")
            done = "mrtr sent tasks/cancel for it" if reply.error is None else \
                f"tasks/cancel for it was refused (error {reply.error.get('code')})"
        except MrtrError as failure:
            done = f"tasks/cancel for it failed ({failure.message})"
        return ProtocolError(error.message, f"the server may have started task {task_id}: {done}")

    def _ended(self, state: TaskState) -> dict[str, Any]:
        if state.status == "completed" and state.result is not None:
            return state.result
        if state.status == "failed" and state.error is not None:
            raise TaskFailed(state.task_id, state.error, state.status_message)
        why = f": {state.status_message}" if state.status_message else ""
        raise TaskCancelled(f"task {state.task_id} was cancelled{why}", "the server stopped it before it ended")
