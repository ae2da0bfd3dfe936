"""The tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663), the client's side.

A server that the client declared the extension to may answer a `tools/call` with a
`CreateTaskResult` (`resultType: "task"`, the task's fields flat beside it) instead of the tool's
result; the client then follows the task with `tasks/get`, whose `DetailedTask` inlines the
outstanding `inputRequests`, the final `result` or the `error`; answers go back with
`tasks/update` (`inputResponses`, keyed as asked), and `tasks/cancel` asks the server to stop.

Everything here reads what a server said and trusts none of it: a field of the wrong type is a
`ProtocolError` naming it. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

from mrtr_cli.errors import ProtocolError
from mrtr_cli.protocol.mrtr import INPUT_REQUESTS, INPUT_RESPONSES, input_request_problem

EXTENSION = "io.modelcontextprotocol/tasks"
"""The extension's identifier, declared under `clientCapabilities.extensions`."""
TASK = "task"
"""`resultType` of a `CreateTaskResult`."""
TASK_METHODS = ("tools/call",)
"""The requests a server may answer with a task."""
GET, UPDATE, CANCEL = "tasks/get", "tasks/update", "tasks/cancel"
"""The extension's three requests."""
STATUS_NOTIFICATION = "notifications/tasks"
"""The notification a server may push on a subscriptions/listen stream: a whole DetailedTask."""
LISTEN = "subscriptions/listen"
"""The request that opens a stream of `notifications/tasks` for the task ids it names."""
NOT_ON_TASK_STREAM = ("notifications/progress", "notifications/message")
"""Notifications a server MUST NOT send on a task's listen stream."""

Status = Literal["working", "input_required", "completed", "failed", "cancelled"]
"""A task's status."""
STATUSES: tuple[Status, ...] = get_args(Status)
TERMINAL = ("completed", "failed", "cancelled")
"""Statuses a task never leaves."""
POLL_FLOOR, POLL_CEILING = 0.1, 10.0
"""The server's `pollIntervalMs` is held between these (seconds)."""
DEFAULT_POLL = 1.0
"""How often to poll a server that suggests no interval (seconds)."""
LONGEST_ID = 1024
"""A task id longer than this is no id mrtr keeps (it travels in a header and in files)."""
MESSAGE_LIMIT = 2000
"""The longest statusMessage kept; the rest is cut (a hostile server may send megabytes on every poll)."""


@dataclass(frozen=True)
class TaskState:
    """A task as one response (or notification) showed it: its id and status, and what that status carries."""

    task_id: str
    status: Status
    status_message: str | None = None
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None
    input_requests: dict[str, dict[str, Any]] = field(default_factory=dict)
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL


def declaration() -> dict[str, Any]:
    """What goes under `clientCapabilities.extensions`: the extension, with no settings."""
    return {EXTENSION: {}}


def is_task(result: Any) -> bool:
    """Whether a result is a `CreateTaskResult` (`resultType: "task"`)."""
    return isinstance(result, dict) and result.get("resultType") == TASK


def read_created(method: str, result: dict[str, Any]) -> TaskState:
    """The task a `CreateTaskResult` made; `ProtocolError` when it cannot be followed."""
    if method not in TASK_METHODS:
        raise ProtocolError(f"the server answered {method} with a task, which only "
                            f"{', '.join(TASK_METHODS)} may be")
    state = _read_task(f"the CreateTaskResult of {method}", result)
    if state.terminal:
        return _with_payload(f"the CreateTaskResult of {method}", state, result)
    return state


def read_detailed(result: Any, task_id: str, where: str | None = None) -> TaskState:
    """The `DetailedTask` a `tasks/get` returned for `task_id` (or a `notifications/tasks` carried: `where`
    says which), with what its status carries."""
    where = where or f"the tasks/get result for task {task_id!r}"
    if not isinstance(result, dict):
        raise ProtocolError(f"{where} is not a JSON object")
    state = _read_task(where, result)
    if state.task_id != task_id:
        raise ProtocolError(f"{where} is about another task ({state.task_id!r})")
    return _with_payload(where, state, result)


def _read_task(where: str, result: dict[str, Any]) -> TaskState:
    task_id, status = result.get("taskId"), result.get("status")
    if not isinstance(task_id, str) or not task_id or len(task_id) > LONGEST_ID:
        raise ProtocolError(f"{where} has no usable taskId (a non-empty string of at most {LONGEST_ID} characters)")
    if status not in STATUSES:
        raise ProtocolError(f"{where} has status {_shown(status)}, not one of {', '.join(STATUSES)}")
    message = result.get("statusMessage")
    if message is not None and not isinstance(message, str):
        raise ProtocolError(f"{where} has a statusMessage that is not a string")
    message = message[:MESSAGE_LIMIT] if message is not None else None
    return TaskState(task_id, status, message, _milliseconds(where, result, "ttlMs"),
                     _milliseconds(where, result, "pollIntervalMs"))


def _milliseconds(where: str, result: dict[str, Any], name: str) -> int | None:
    value = result.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ProtocolError(f"{where} has {name} {_shown(value)}, not a whole number of milliseconds")
    return value


def _with_payload(where: str, state: TaskState, result: dict[str, Any]) -> TaskState:
    """`state` with what its status carries: the questions, the result or the error."""
    if state.status == "input_required":
        return replace(state, input_requests=_input_requests(where, result))
    if state.status == "completed":
        return replace(state, result=_object(where, result, "result"))
    if state.status == "failed":
        return replace(state, error=_error(where, result))
    return state


def _input_requests(where: str, result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    requests = result.get(INPUT_REQUESTS, {})
    if not isinstance(requests, dict):
        raise ProtocolError(f"{where}: inputRequests is not a JSON object")
    for key, request in requests.items():
        problem = input_request_problem(request)
        if problem:
            raise ProtocolError(f"{where}: input request {key!r} {problem}")
    return requests


def _object(where: str, result: dict[str, Any], name: str) -> dict[str, Any]:
    value = result.get(name)
    if not isinstance(value, dict):
        raise ProtocolError(f"{where}: a {result.get('status')} task without a {name} object")
    return value


def _error(where: str, result: dict[str, Any]) -> dict[str, Any]:
    error = _object(where, result, "error")
    if isinstance(error.get("code"), bool) or not isinstance(error.get("code"), int):
        raise ProtocolError(f"{where}: the failed task's error has no integer code")
    if not isinstance(error.get("message"), str):
        raise ProtocolError(f"{where}: the failed task's error has no message string")
    return error


def readable_id(result: Any) -> str | None:
    """The taskId of a result mrtr could not follow, when it is still a usable string (to cancel it)."""
    task_id = result.get("taskId") if isinstance(result, dict) else None
    return task_id if isinstance(task_id, str) and task_id and len(task_id) <= LONGEST_ID else None


def _shown(value: Any) -> str:
    """A value the server sent, short enough for a message (the caller's text goes through text.py)."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def poll_seconds(poll_interval_ms: int | None, override: float | None = None) -> float:
    """How long to wait before the next tasks/get: `override` (--poll-interval) as given, else the
    server's suggestion held between POLL_FLOOR and POLL_CEILING."""
    if override is not None:
        return override
    if poll_interval_ms is None:
        return DEFAULT_POLL
    return min(max(poll_interval_ms / 1000, POLL_FLOOR), POLL_CEILING)


def backstop_seconds(poll_interval_ms: int | None) -> float:
    """How often a task followed by its notifications is still polled: POLL_CEILING, or the server's
    interval when it asks for less often."""
    return max(POLL_CEILING, (poll_interval_ms or 0) / 1000)


def listen_params(task_id: str) -> dict[str, Any]:
    """The params of `subscriptions/listen` asking for the status notifications of one task."""
    return {"notifications": {"taskIds": [task_id]}}


def acknowledged_ids(params: dict[str, Any]) -> list[str]:
    """The task ids a `notifications/subscriptions/acknowledged` agreed to (none when it names none, or
    names them in any other shape)."""
    agreed = params.get("notifications")
    ids = agreed.get("taskIds") if isinstance(agreed, dict) else None
    return [task_id for task_id in ids if isinstance(task_id, str)] if isinstance(ids, list) else []


def get_params(task_id: str) -> dict[str, Any]:
    """The params of `tasks/get`."""
    return {"taskId": task_id}


def update_params(task_id: str, responses: dict[str, Any]) -> dict[str, Any]:
    """The params of `tasks/update`: the answers keyed exactly as the task asked."""
    return {"taskId": task_id, INPUT_RESPONSES: responses}


def cancel_params(task_id: str) -> dict[str, Any]:
    """The params of `tasks/cancel`."""
    return {"taskId": task_id}
