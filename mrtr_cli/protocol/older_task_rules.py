"""The wire's rules of the older era's tasks (2025-11-25, `basic/utilities/tasks`): which calls may be
tasks, and what a task says of itself. Standard library only; nothing here sends. How often to poll
is protocol/tasks.py's `poll_seconds`, the statuses a task never leaves its `TERMINAL`, the longest
statusMessage kept its `MESSAGE_LIMIT` (the same in both eras).

A client augments a `tools/call` with a `task` field only when the server declares
`tasks.requests.tools.call` in its initialize result (else it MUST NOT), and then by the tool's
`execution.taskSupport`: `required` MUST be a task, `optional` MAY be, anything else MUST NOT.
The client's own `tasks` capability says which of the *server's* requests the client would run as
tasks (`tasks.requests.elicitation.create`, ...): a server does not need it to accept a
task-augmented call, and mrtr declares none (tasks the server asks the client to run are not
supported).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from mrtr_cli.protocol.tasks import MESSAGE_LIMIT

INPUT_REQUIRED = "input_required"
"""The task waits for the client: its questions come on the `tasks/result` stream."""
SUPPORT_LEVELS = ("required", "optional", "forbidden")
"""The values of a tool's `execution.taskSupport` (absent means forbidden)."""
ID_LIMIT = 200
"""The longest task id mrtr takes (a hostile server may send a megabyte)."""


class OlderTask(NamedTuple):
    """What the server said of a task (CreateTaskResult's `task`, or a `tasks/get` result)."""

    task_id: str
    status: str
    status_message: str | None = None
    poll_interval_ms: int | None = None
    ttl_ms: int | None = None


def takes_tool_tasks(initialize_result: Any) -> bool:
    """Whether the server declared `tasks.requests.tools.call` in its initialize result."""
    capabilities = initialize_result.get("capabilities") if isinstance(initialize_result, dict) else None
    tasks = capabilities.get("tasks") if isinstance(capabilities, dict) else None
    requests = tasks.get("requests") if isinstance(tasks, dict) else None
    tools = requests.get("tools") if isinstance(requests, dict) else None
    return isinstance(tools, dict) and isinstance(tools.get("call"), dict)


def task_support(tool: Any) -> str:
    """A tool definition's `execution.taskSupport`: required, optional or forbidden (absent or odd)."""
    execution = tool.get("execution") if isinstance(tool, dict) else None
    said = execution.get("taskSupport") if isinstance(execution, dict) else None
    return said if isinstance(said, str) and said in SUPPORT_LEVELS else "forbidden"


def task_params(params: dict[str, Any]) -> dict[str, Any]:
    """The params of a call made a task: the `task` field, with no ttl (the server chooses)."""
    return {**params, "task": {}}


def read_task(value: Any) -> OlderTask | None:
    """A Task object as a OlderTask; None when it has no string taskId and status."""
    if not isinstance(value, dict):
        return None
    task_id, status = value.get("taskId"), value.get("status")
    if not isinstance(task_id, str) or not task_id or len(task_id) > ID_LIMIT or not isinstance(status, str):
        return None
    message = value.get("statusMessage")
    return OlderTask(task_id, status[:60], message[:MESSAGE_LIMIT] if isinstance(message, str) else None,
                     _milliseconds(value.get("pollInterval")), _milliseconds(value.get("ttl")))


def created_task(result: Any) -> OlderTask | None:
    """The task of a CreateTaskResult (`{"task": {...}}`); None when the result is no such thing."""
    return read_task(result.get("task")) if isinstance(result, dict) else None


def _milliseconds(value: Any) -> int | None:
    """A whole, finite, non-negative number of milliseconds; None for anything else."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        return None
    return int(value)
