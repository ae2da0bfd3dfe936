"""The tasks a server keeps (the io.modelcontextprotocol/tasks extension, SEP-2663), stepped by the clock.

A task runs a `TaskPlan` (task_plans.py). Nothing runs in the background: whenever a task is
looked at (tasks/get, tasks/update, tasks/cancel) it is first brought up to date, each `Work`
stage over once its seconds have passed since the stage began, each `Ask` stage over once every
question was answered. Task ids are random (unguessable, as the spec asks of ids that act as
bearer tokens); a task is kept for its `ttlMs` from creation, then forgotten (-32602); at most
`MAX_TASKS` are kept, the oldest dropped first. A listen stream's `TaskWatch` looks at the tasks it
agreed to and sends each change as `notifications/tasks` (the whole DetailedTask, as tasks/get gives it).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from mrtr_cli.protocol import jsonrpc
from mrtr_cli.protocol.meta import SUBSCRIPTION_ID
from mrtr_cli.protocol.tasks import TERMINAL
from mrtr_cli.server.app import RpcError
from mrtr_cli.server.task_plans import Ask, TaskPlan, Work, open_questions, refused, take_answers

TTL_MS = 600_000
"""How long a task is kept from its creation (10 minutes)."""
POLL_INTERVAL_MS = 500
MAX_TASKS = 1000


@dataclass
class Task:
    """One task: its plan, where it stands, and what it ended with."""

    task_id: str
    plan: TaskPlan
    created: float
    status: str = "working"
    message: str | None = None
    updated: float = 0.0
    stage: int = 0
    stage_began: float = 0.0
    answers: dict[str, Any] = field(default_factory=dict)
    ending: dict[str, Any] = field(default_factory=dict)
    """`result` (completed) or `error` (failed)."""

    def advance(self, now: float) -> None:
        """Bring the task up to `now`: past every stage that is over, into the one that is not."""
        while self.status not in TERMINAL:
            if self.stage == len(self.plan.stages) or refused(self.answers):
                self._finish(now)
            elif not self._in_stage(self.plan.stages[self.stage], now):
                self.stage += 1
            else:
                return

    def _in_stage(self, stage: Work | Ask, now: float) -> bool:
        """Whether the task is still in `stage` at `now` (its status says so); else the next stage begins."""
        if isinstance(stage, Work):
            if now < self.stage_began + stage.seconds:
                self.set("working", stage.message, now)
                return True
            self.stage_began += stage.seconds
            return False
        if open_questions(stage, self.answers):
            self.set("input_required", stage.message, now)
            return True
        self.stage_began = now
        return False

    def _finish(self, now: float) -> None:
        try:
            self.ending = {"result": self.plan.finish(self.answers)}
            self.set("completed", None, now)
        except RpcError as error:
            self.ending = {"error": error.error_object()}
            self.set("failed", error.message, now)

    def set(self, status: str, message: str | None, now: float) -> None:
        if (status, message) != (self.status, self.message) or not self.updated:
            self.status, self.message, self.updated = status, message, now

    def answer(self, responses: dict[str, Any], now: float) -> None:
        """Keep the answers to the questions open now; any other key is ignored (the spec's SHOULD)."""
        if self.status == "input_required":
            take_answers(self._current_ask(), self.answers, responses)
            self.advance(now)

    def _current_ask(self) -> Ask:
        stage = self.plan.stages[self.stage]
        assert isinstance(stage, Ask)  # input_required is only ever set in an Ask stage
        return stage

    def wire(self) -> dict[str, Any]:
        """The task as tasks/get gives it (a DetailedTask)."""
        task = self.seed()
        if self.status == "input_required":
            task["inputRequests"] = open_questions(self._current_ask(), self.answers)
        return {**task, **self.ending}

    def seed(self) -> dict[str, Any]:
        """The task's fields without its questions, result or error (a CreateTaskResult's)."""
        task: dict[str, Any] = {"taskId": self.task_id, "status": self.status, "createdAt": _iso(self.created),
                                "lastUpdatedAt": _iso(self.updated), "ttlMs": TTL_MS,
                                "pollIntervalMs": POLL_INTERVAL_MS}
        if self.message is not None:
            task["statusMessage"] = self.message
        return task


class TaskStore:
    """The tasks of one server, safe to use from its serving threads; `clock` tells the time (seconds)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._tasks: dict[str, Task] = {}
        self._lock = threading.Lock()
        self._clock = clock

    def create(self, plan: TaskPlan) -> dict[str, Any]:
        """A new task running `plan`; its CreateTaskResult (it can be read as soon as this returns)."""
        now = self._clock()
        task = Task(secrets.token_urlsafe(18), plan, now, stage_began=now)
        with self._lock:
            self._forget_expired(now)
            while len(self._tasks) >= MAX_TASKS:
                self._tasks.pop(next(iter(self._tasks)))
            self._tasks[task.task_id] = task
            task.advance(now)
            return {"resultType": "task", **task.seed()}

    def get(self, task_id: Any) -> dict[str, Any]:
        with self._lock:
            return self._current(task_id).wire()

    def update(self, task_id: Any, responses: Any) -> None:
        if not isinstance(responses, dict):
            raise RpcError(jsonrpc.INVALID_PARAMS, "Invalid params: tasks/update needs inputResponses (an object)")
        with self._lock:
            self._current(task_id).answer(responses, self._clock())

    def cancel(self, task_id: Any) -> None:
        """Cancel a task that is still running; a task already ended stays as it ended."""
        with self._lock:
            task = self._current(task_id)
            if task.status not in TERMINAL:
                task.set("cancelled", "Cancelled at the client's request.", self._clock())

    def known(self, task_ids: list[str]) -> list[str]:
        """Those of `task_ids` the store keeps (a listen stream agrees to these)."""
        with self._lock:
            return [task_id for task_id in task_ids if task_id in self._tasks]

    def _current(self, task_id: Any) -> Task:
        if not isinstance(task_id, str):
            raise RpcError(jsonrpc.INVALID_PARAMS, "Invalid params: taskId must be a string")
        now = self._clock()
        task = self._tasks.get(task_id)
        if task is not None and _expired(task, now):
            del self._tasks[task_id]
            raise RpcError(jsonrpc.INVALID_PARAMS, "Failed to retrieve task: Task has expired")
        if task is None:
            raise RpcError(jsonrpc.INVALID_PARAMS, "Failed to retrieve task: Task not found")
        task.advance(now)
        return task

    def _forget_expired(self, now: float) -> None:
        for task_id in [t.task_id for t in self._tasks.values() if _expired(t, now)]:
            del self._tasks[task_id]


class TaskWatch:
    """A listen stream's tasks: each looked at sends its DetailedTask as `notifications/tasks` when it
    changed since last sent (tagged with the subscription id); True once all have ended or are gone."""

    def __init__(self, store: TaskStore, task_ids: list[str], subscription_id: Any,
                 send: Callable[[str, dict[str, Any]], None]) -> None:
        self.store = store
        self.watched = list(task_ids)
        self.subscription_id = subscription_id
        self.send = send
        self._told: dict[str, dict[str, Any]] = {}

    def __call__(self) -> bool:
        for task_id in list(self.watched):
            try:
                task = self.store.get(task_id)
            except RpcError:  # expired
                self.watched.remove(task_id)
                continue
            if task != self._told.get(task_id):
                self._told[task_id] = task
                self.send("notifications/tasks", {**task, "_meta": {SUBSCRIPTION_ID: self.subscription_id}})
            if task["status"] in TERMINAL:
                self.watched.remove(task_id)
        return not self.watched


def _expired(task: Task, now: float) -> bool:
    return now > task.created + TTL_MS / 1000


def _iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
