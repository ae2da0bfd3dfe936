"""Following a task of the tasks extension (2026-07-28, `io.modelcontextprotocol/tasks`) to its end.

A `tools/call` answered with `resultType: "task"` hands its task here (Session), and so can a command
that knows only a task id and a connected client (`follow_id`, for resuming). The follower polls
`tasks/get` at the server's `pollIntervalMs` (held between 0.1 and 10 s; `--poll-interval` overrides),
reports each status and statusMessage it sees (`events.TaskStatusChanged`), reads `input_required` as a
round of questions (`events.InputRequested`, round numbers going on from the call's), answers them
through the session's chain and sends the answers with `tasks/update`, until the task ends:
`completed` gives the result as a call would, `failed` its error, `cancelled` says so. The whole task
is bounded by `--task-timeout`; each request by `--timeout`. Between polls it blocks (`sleep`) until
the next poll or the deadline: no busy loop.

mrtr polls; it does not open a subscriptions/listen stream for `notifications/tasks` (a server need
not offer one, and polling is what every server of the extension must serve).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mrtr_cli import events
from mrtr_cli.conversation.client import Client, Reply
from mrtr_cli.conversation.explain import explain
from mrtr_cli.errors import ProtocolError, ServerError, UnreachableError
from mrtr_cli.protocol import tasks
from mrtr_cli.protocol.tasks import TaskState

DEFAULT_TASK_TIMEOUT = 600.0
"""How long a whole task is followed unless `--task-timeout` says otherwise (seconds)."""


@dataclass(frozen=True)
class TaskSettings:
    """How tasks are followed: `--poll-interval` (None: the server's suggestion) and `--task-timeout`."""

    poll_interval: float | None = None
    task_timeout: float = DEFAULT_TASK_TIMEOUT


@dataclass
class TaskRecord:
    """What following a task saw: its id, each status (with its statusMessage) in order, and how many
    polls it took (the `--json` report's `task`)."""

    task_id: str
    statuses: list[tuple[str, str | None]]
    polls: int = 0

    def as_dict(self) -> dict[str, Any]:
        statuses = [{"status": status, **({"message": message} if message is not None else {})}
                    for status, message in self.statuses]
        return {"id": self.task_id, "statuses": statuses, "polls": self.polls}


class TaskFailed(ServerError):
    """The task ended `failed`: its JSON-RPC error (exit 2)."""

    def __init__(self, task_id: str, error: dict[str, Any], message: str | None) -> None:
        said = message if message and message != error.get("message") else ""
        super().__init__(f"task {task_id}", error, said)


class TaskCancelled(ProtocolError):
    """The task ended `cancelled` (exit 2)."""


class TaskTimedOut(UnreachableError):
    """The task did not end within `--task-timeout` (exit 4); the server may still run it."""


Asker = Callable[[int, Reply, dict[str, Any], dict[str, dict[str, Any]]], dict[str, Any]]
"""Asks round `number` (the tasks/get `reply` with its params) these questions through the chain (the
session's: it keeps the round), returning the inputResponses."""


class TaskFollower:
    """Follows one task over `client`; `ask` answers each input round."""

    def __init__(self, client: Client, ask: Asker, settings: TaskSettings, *,
                 sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic) -> None:
        self.client = client
        self.ask = ask
        self.settings = settings
        self.sleep = sleep
        self.clock = clock
        self.record: TaskRecord | None = None
        """What was seen of the task so far (None: no task yet)."""
        self._last: Reply | None = None
        """The last tasks/get's reply (an input round is that reply's)."""
        self._answered: set[str] = set()
        """The inputRequests keys answered: a server shows a question again until it takes the answer."""

    def follow_created(self, reply: Reply, next_round: int) -> dict[str, Any]:
        """Follow the task a `CreateTaskResult` (`reply`, to a tools/call) made; its result, when it completes."""
        created = tasks.read_created(reply.method, reply.result)
        self.record = TaskRecord(created.task_id, [(created.status, created.status_message)])
        self.client.emit(events.TaskCreated(reply.id, created.task_id, created.status, created.status_message,
                                            created.poll_interval_ms, created.ttl_ms))
        return self._follow(created, next_round)

    def follow_id(self, task_id: str, next_round: int = 1) -> dict[str, Any]:
        """Follow a task known only by its id (a task mrtr made before, resumed): asked first, then followed."""
        self.record = TaskRecord(task_id, [])
        first = self._get(task_id)
        self._seen(first)
        return self._follow(first, next_round, seen=first)

    def _follow(self, state: TaskState, next_round: int, seen: TaskState | None = None) -> dict[str, Any]:
        deadline = self.clock() + self.settings.task_timeout
        last = seen or state
        while True:
            if state.status == "input_required" and self._unanswered(state):
                next_round = self._answer_round(state, next_round)
            elif state.terminal:
                return self._ended(state)
            else:
                self._wait(state, deadline)
            state = self._get(state.task_id)
            if (state.status, state.status_message) != (last.status, last.status_message):
                self._seen(state)
            last = state

    def _seen(self, state: TaskState) -> None:
        """A status (or statusMessage) not seen just before: kept, and told."""
        if self.record is not None:
            self.record.statuses.append((state.status, state.status_message))
        self.client.emit(events.TaskStatusChanged(state.task_id, state.status, state.status_message))

    def _unanswered(self, state: TaskState) -> dict[str, dict[str, Any]]:
        return {key: request for key, request in state.input_requests.items() if key not in self._answered}

    def _wait(self, state: TaskState, deadline: float) -> None:
        """Block until the next poll is due, or raise when the task's time is up."""
        left = deadline - self.clock()
        if left <= 0:
            raise TaskTimedOut(f"task {state.task_id} did not end within --task-timeout "
                               f"{self.settings.task_timeout:g} s (last status: {state.status})",
                               f"the server may still run it; its task id is {state.task_id}")
        self.client.emit.held.before_waiting()
        self.sleep(min(tasks.poll_seconds(state.poll_interval_ms, self.settings.poll_interval), left))

    def _get(self, task_id: str) -> TaskState:
        if self.record is not None:
            self.record.polls += 1
        reply = self.client.request(tasks.GET, tasks.get_params(task_id), purpose="task")
        if reply.error is not None:
            raise explain(tasks.GET, reply.error)
        self._last = reply
        return tasks.read_detailed(reply.result, task_id)

    def _answer_round(self, state: TaskState, number: int) -> int:
        """One round of the task's questions: asked, answered through the chain, sent with tasks/update."""
        asked, reply = self._unanswered(state), self._last or Reply(0, tasks.GET, None, None, 0.0)
        self.client.emit(events.InputRequested(number, reply.id, asked, None))
        responses = self.ask(number, reply, tasks.get_params(state.task_id), asked)
        self._answered.update(asked)
        update = self.client.request(tasks.UPDATE, tasks.update_params(state.task_id, responses), purpose="task")
        if update.error is not None:
            raise explain(tasks.UPDATE, update.error)
        return number + 1

    def _ended(self, state: TaskState) -> dict[str, Any]:
        if state.status == "completed" and state.result is not None:
            return state.result
        if state.status == "failed" and state.error is not None:
            raise TaskFailed(state.task_id, state.error, state.status_message)
        why = f": {state.status_message}" if state.status_message else ""
        raise TaskCancelled(f"task {state.task_id} was cancelled{why}", "the server stopped it before it ended")
