"""The conformance suite's fixture tools for the tasks extension (`mrtr demo-server --conformance-fixtures`).

The suite's `tasks-*` server scenarios call tools of fixed names: `greet` (never a task),
`slow_compute` (works `seconds`, ends `cancelled` when cancelled meanwhile), `failing_job` (a
task only: ends with a tool error), `protocol_error_job` (ends `failed`), `confirm_delete` (one
question), `multi_input` (two questions at once) and `test_tool_with_task` (a task only: asks a
name through MRTR first, then becomes a task that greets it). "A task only" means a call that
may not become one is refused with -32021.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mrtr_cli.protocol import jsonrpc
from mrtr_cli.server.app import Call, NeedInput, RpcError
from mrtr_cli.server.asking import form, text_result, walk
from mrtr_cli.server.task_plans import Ask, TaskPlan, Work, missing_tasks_capability, task_tool

Handler = Callable[[Call], "dict[str, Any] | NeedInput"]
NO_ARGUMENTS: dict[str, Any] = {"type": "object", "properties": {}}
CONFIRM = {"confirm": {"type": "boolean", "title": "Confirm"}}
NAME = {"name": {"type": "string", "title": "Name"}}


def greet(call: Call) -> dict[str, Any]:
    return text_result(f"Hello, {call.arguments.get('name', 'World')}!")


def _computed(label: str, seconds: float) -> TaskPlan:
    return TaskPlan((Work(seconds, f"Computing {label}"),),
                    lambda answers: text_result(f"Computed {label} after {seconds:g} s."))


def slow_compute_plan(call: Call) -> TaskPlan:
    return _computed(str(call.arguments.get("label", "a result")), float(call.arguments.get("seconds", 1)))


def failing_job_plan(call: Call) -> TaskPlan:
    return TaskPlan((Work(1.0, "Running a job that will fail"),),
                    lambda answers: text_result("The job failed: the input was invalid.", is_error=True))


def _internal_error(answers: dict[str, Any]) -> dict[str, Any]:
    raise RpcError(jsonrpc.INTERNAL_ERROR, "protocol_error_job broke: a simulated internal error")


def protocol_error_job_plan(call: Call) -> TaskPlan:
    return TaskPlan((Work(0.5, "Running a job that will break"),), _internal_error)


def _confirmed(what: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def finish(answers: dict[str, Any]) -> dict[str, Any]:
        confirmed = all(a.get("action") == "accept" and a["content"].get("confirm", True) for a in answers.values())
        return text_result(f"{what} done." if confirmed else f"{what} not done: not confirmed.", answers)
    return finish


def confirm_delete_plan(call: Call) -> TaskPlan:
    filename = str(call.arguments.get("filename", "a file"))
    question = form(f"Delete {filename}?", CONFIRM, ["confirm"])
    return TaskPlan((Ask({"confirm": question}, f"Waiting to confirm deleting {filename}"),),
                    _confirmed(f"Deleting {filename}"))


def multi_input_plan(call: Call) -> TaskPlan:
    questions = {"name": form("What is your name?", NAME, ["name"]),
                 "confirm": form("Shall I go on?", CONFIRM, ["confirm"])}
    return TaskPlan((Ask(questions, "Waiting for two answers"),), _confirmed("Both inputs received:"))


def tool_with_task(call: Call) -> dict[str, Any] | NeedInput:
    """MRTR first (a name), then a task that greets it (SEP-2663: input before a task is asked synchronously)."""
    if call.start_task is None:
        raise missing_tasks_capability(f"tool {call.subject}")
    progress = walk(call, [lambda answers: {"user_name": form("What is your name?", NAME, ["name"])}])
    if progress.refusal:
        return text_result(f"Nothing done: you chose {progress.refusal[1]}.")
    if progress.need:
        return progress.need
    name = progress.answers["user_name"].get("name", "?")
    plan = TaskPlan((Work(0.5, f"Greeting {name}"),), lambda answers: text_result(f"Hello, {name}!"))
    return call.start_task(plan)


def _entry(name: str, description: str, handler: Handler,
           properties: dict[str, Any] | None = None) -> tuple[str, tuple[dict[str, Any], Handler]]:
    return name, ({"name": name, "description": description,
                   "inputSchema": {"type": "object", "properties": properties} if properties else NO_ARGUMENTS},
                  handler)


TOOLS = dict([
    _entry("greet", "Greets at once (never a task).", greet, {"name": {"type": "string"}}),
    _entry("slow_compute", "A task that works `seconds`, then gives a result.", task_tool(slow_compute_plan),
           {"seconds": {"type": "number", "minimum": 0, "maximum": 600}, "label": {"type": "string"}}),
    _entry("failing_job", "A task only: ends after a second with a tool error.",
           task_tool(failing_job_plan, required=True)),
    _entry("protocol_error_job", "A task that fails with a JSON-RPC error.", task_tool(protocol_error_job_plan)),
    _entry("confirm_delete", "A task that asks to confirm, then deletes (nothing).", task_tool(confirm_delete_plan),
           {"filename": {"type": "string"}}),
    _entry("multi_input", "A task that asks two questions at once.", task_tool(multi_input_plan)),
    _entry("test_tool_with_task", "A task only: asks a name (MRTR), then a task greets it.", tool_with_task),
])
