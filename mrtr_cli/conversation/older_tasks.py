"""A call run as a task in the older era (2025-11-25 tasks): whether to ask for one, and following it.

The call's response is a CreateTaskResult: mrtr says so (TaskCreated), polls `tasks/get` at the
server's pollInterval (clamped to 0.1-10 s, or --poll-interval; between polls a plain sleep, no busy loop)
and says each change of status or statusMessage (TaskStatusChanged). At `input_required`, or once
the task is terminal, it sends `tasks/result`: the server delivers its questions on that stream and
mrtr answers them as it answers any request in flight (conversation/server_requests.py, through the
same chain); `tasks/result` returns when the task ends. `--timeout` bounds each request (the one to
`tasks/result` from the last question answered); `--task-timeout` the polls and `tasks/result` together,
also while the server asks question after question on that stream (exit 4 naming the task). completed gives the result; failed and cancelled are errors (exit 2) naming
the task. Such a task belongs to the session mrtr ends on exit: its id is not kept for `tasks resume`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.conversation.client import Client, Reply
from mrtr_cli.conversation.explain import explain
from mrtr_cli.conversation.task_follower import TaskDeadline, TaskRecord, TaskSettings, TaskTimedOut
from mrtr_cli.errors import ProtocolError, UsageError
from mrtr_cli.protocol import older_task_rules as rules, tasks
from mrtr_cli.protocol.older_task_rules import OlderTask

MODERN_REFUSAL = ("--task is for the older era: since 2026-07-28 the server decides whether a call runs as a task "
                  "(mrtr follows it when it does)")


def as_task(client: Client, method: str, params: dict[str, Any], support: str | None, asked: bool) -> dict[str, Any]:
    """The request's params, made a task when the rules say so: `support` is the tool's
    execution.taskSupport (None: the tool is not listed), `asked` whether --task was given."""
    if asked:
        _check_asked(client, method, params.get("name"), support)
    takes_tasks = client.era.takes_tool_tasks()
    if method == "tools/call" and takes_tasks and (support == "required" or (support == "optional" and asked)):
        return rules.task_params(params)
    return params


def _check_asked(client: Client, method: str, name: Any, support: str | None) -> None:
    """--task where no task can be made is a usage error (exit 1) saying why."""
    if method != "tools/call":
        raise UsageError(f"--task: only a tool call runs as a task, not {method}", "leave --task out")
    if not client.era.asks_for_tasks:
        raise UsageError(MODERN_REFUSAL, "leave --task out")
    if not client.era.takes_tool_tasks():
        raise UsageError(f"--task: the server declares no tasks.requests.tools.call capability, so no tool of "
                         f"it may be called as a task (not {name!r})", "leave --task out")
    if support not in ("required", "optional"):
        said = f"its execution.taskSupport is {support!r}" + (" (or absent)" if support == "forbidden" else "")
        why = "the server does not list it" if support is None else said
        raise UsageError(f"--task: the tool {name!r} cannot be called as a task: {why}", "leave --task out")


def is_task_call(client: Client, params: dict[str, Any]) -> bool:
    """Whether the call was sent as an older-era task (its result is then a CreateTaskResult)."""
    return client.era.asks_for_tasks and isinstance(params.get("task"), dict)


class OlderTaskFollower:
    """Follows one task from its CreateTaskResult to its end; `sleep` waits between polls. The
    server's `notifications/tasks/status` for the task, which it MAY send (mrtr does not rely on
    them), are said as changes too: while `tasks/result` blocks they are all there is to see."""

    def __init__(self, client: Client, settings: TaskSettings = TaskSettings(),
                 sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic) -> None:
        self.client = client
        self.settings = settings
        self.sleep = sleep
        self.clock = clock
        self.deadline = TaskDeadline(settings.task_timeout, clock)
        """--task-timeout: bounds the polls and tasks/result (started again when following starts)."""
        self.emit = client.emit
        self.latest: OlderTask | None = None
        """The task as last told (created, polled or notified)."""
        self.record: TaskRecord | None = None
        """What was seen of the task (the `--json` report's `task`); None: no task yet."""

    def follow(self, reply: Reply) -> dict[str, Any]:
        """The task's result, once it completed; a failed or cancelled task raises."""
        created = rules.created_task(reply.result)
        if created is None:
            raise ProtocolError("the server answered a task-augmented tools/call with no CreateTaskResult (a "
                                "`task` with a string taskId and status)", "-v shows the frame")
        self.latest, self.deadline = created, TaskDeadline(self.settings.task_timeout, self.clock)
        self.record = TaskRecord(created.task_id, [(created.status, created.status_message)])
        self.emit(events.TaskCreated(reply.id, created.task_id, created.status, created.status_message,
                                     created.poll_interval_ms, created.ttl_ms,
                                     tasks.poll_seconds(created.poll_interval_ms, self.settings.poll_interval), True))
        self.emit.subscribe(self._notified)
        try:
            return self._follow(created)
        finally:
            self.emit.unsubscribe(self._notified)
            self.record.elapsed_ms = reply.elapsed_ms + (self.clock() - self.deadline.started) * 1000

    def _follow(self, seen: OlderTask) -> dict[str, Any]:
        while seen.status not in tasks.TERMINAL and seen.status != rules.INPUT_REQUIRED:
            self.deadline.check(seen.task_id, seen.status)
            self.emit.held.before_waiting()  # all shown before mrtr sleeps
            self.sleep(max(0.0, min(tasks.poll_seconds(seen.poll_interval_ms, self.settings.poll_interval),
                                    self.deadline.left())))
            seen = self._poll(seen)
        if seen.status == "cancelled":
            raise _ended(seen, None)
        reply = self._result(seen)
        if seen.status not in tasks.TERMINAL:
            seen = self._poll(seen, after_result=reply.error is None)
        if seen.status in ("failed", "cancelled"):
            raise _ended(seen, reply)
        if reply.error is not None:
            raise explain("tasks/result", reply.error)
        if not isinstance(reply.result, dict):
            raise ProtocolError(f"the result of tasks/result for task {seen.task_id!r} is not a JSON object")
        return reply.result

    def _result(self, seen: OlderTask) -> Reply:
        """tasks/result, waited for within the task's time; when it runs out, the last status told is named."""
        try:
            return self.deadline.request(self.client, "tasks/result", {"taskId": seen.task_id}, seen.task_id,
                                         seen.status)
        except TaskTimedOut:
            raise self.deadline.expired(seen.task_id, (self.latest or seen).status) from None

    def _poll(self, before: OlderTask, after_result: bool = False) -> OlderTask:
        """tasks/get; a change of status or statusMessage is said. After tasks/result returned, a
        server that no longer knows the task (it may drop it once its result is read) leaves it completed."""
        params = tasks.get_params(before.task_id)
        reply = self.client.request(tasks.GET, params, purpose="task") if after_result else \
            self.deadline.request(self.client, tasks.GET, params, before.task_id, before.status)
        if self.record is not None:
            self.record.polls += 1
        if reply.error is not None:
            if after_result:
                return before._replace(status="completed")
            raise explain(tasks.GET, reply.error)
        now = rules.read_task(reply.result)
        if now is None or now.task_id != before.task_id:
            raise ProtocolError(f"the server answered tasks/get for task {before.task_id!r} with no such Task",
                                "-v shows the frame")
        self._told(now)
        return now

    def _notified(self, event: object) -> None:
        """A `notifications/tasks/status` of this task is a change seen like a poll's."""
        if isinstance(event, events.NotificationReceived) and event.method == "notifications/tasks/status":
            told = rules.read_task(event.params)
            if told is not None and self.latest is not None and told.task_id == self.latest.task_id:
                self._told(told)

    def _told(self, now: OlderTask) -> None:
        """Say a change of status or statusMessage since the task was last told."""
        before = self.latest
        self.latest = now
        if before is None or (now.status, now.status_message) != (before.status, before.status_message):
            if self.record is not None:
                self.record.saw(now.status, now.status_message)
            self.emit(events.TaskStatusChanged(now.task_id, now.status, now.status_message))



def _ended(task: OlderTask, reply: Reply | None) -> ProtocolError:
    """A task that failed or was cancelled, as the error it ends the call with (exit 2): why, in
    its statusMessage, else in what tasks/result returned (`reply`; None: not asked)."""
    said = task.status_message or _said_by(reply)
    verb = "was cancelled" if task.status == "cancelled" else "failed"
    return ProtocolError(f"the task {task.task_id} {verb}{f': {said}' if said else ''}",
                         "the server ended it; its logs may say why")


def _said_by(reply: Reply | None) -> str | None:
    """The error message, or the first text, of what tasks/result returned (cut short)."""
    if reply is None:
        return None
    if reply.error is not None:
        message = reply.error.get("message")
        return message[:tasks.MESSAGE_LIMIT] if isinstance(message, str) else None
    content = reply.result.get("content") if isinstance(reply.result, dict) else None
    texts = [item["text"] for item in content or [] if isinstance(item, dict) and isinstance(item.get("text"), str)] \
        if isinstance(content, list) else []
    return texts[0][:tasks.MESSAGE_LIMIT] if texts else None
