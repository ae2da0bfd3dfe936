"""What a task-supporting tool does, as data: stages of work and questions, then a result.

A `TaskPlan` is run two ways. As a task (the client declared io.modelcontextprotocol/tasks on
its tools/call, and the server keeps tasks: `Call.start_task`), task_store.py steps it by the
clock: each `Work` stage keeps the task `working` with its message for its seconds, each `Ask`
stage parks it in `input_required` until tasks/update answers every question. As a plain tool
(a client without the extension, or of the older era) `run_now` runs it within the call: work
is reported as progress and takes no time, and the questions are asked through the call itself
(an input_required result, or the older era's requests in flight), the stage reached kept in
the sealed requestState. Either way a declined or cancelled question skips the remaining stages.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Union

from mrtr_cli.forms import validation
from mrtr_cli.protocol import jsonrpc
from mrtr_cli.protocol.tasks import EXTENSION
from mrtr_cli.server.app import Call, NeedInput, RpcError

TASKS_EXTENSION = EXTENSION
"""The extension a client declares for its calls to become tasks (protocol/tasks.py's)."""
REFUSALS = ("decline", "cancel")


@dataclass(frozen=True)
class Work:
    """The task works for `seconds`, saying `message` (its statusMessage, or a progress message)."""

    seconds: float
    message: str


@dataclass(frozen=True)
class Ask:
    """The task needs answers: questions by key (each key used once in a plan), and what it says meanwhile."""

    questions: dict[str, dict[str, Any]]
    message: str


Stage = Union[Work, Ask]
Finish = Callable[[dict[str, Any]], dict[str, Any]]
"""The answers (key -> the answer as kept) -> the CallToolResult; an `RpcError` makes the task `failed`."""


@dataclass(frozen=True)
class TaskPlan:
    stages: tuple[Stage, ...]
    finish: Finish


def declares_tasks(capabilities: dict[str, Any]) -> bool:
    """Whether a request's client capabilities include the tasks extension."""
    extensions = capabilities.get("extensions")
    return isinstance(extensions, dict) and isinstance(extensions.get(TASKS_EXTENSION), dict)


def missing_tasks_capability(what: str) -> RpcError:
    """-32021 naming the extension (SEP-2575's Missing Required Client Capability)."""
    return RpcError(jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY,
                    f"Missing required client capability: {what} needs the {TASKS_EXTENSION} extension",
                    {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}, status=400)


def refused(answers: dict[str, Any]) -> bool:
    return any(isinstance(a, dict) and a.get("action") in REFUSALS for a in answers.values())


def answer_to(key: str, question: dict[str, Any], response: Any) -> dict[str, Any] | None:
    """The answer to `question` as kept (a form's `{action, content}`), None when `response` is no
    answer (the question stays open); `RpcError` -32602 when it accepts with content the form refuses."""
    if not isinstance(response, dict):
        return None
    if question["method"] != "elicitation/create":
        return response
    action = response.get("action")
    if action in REFUSALS:
        return {"action": action}
    if action != "accept":
        return None
    content = response.get("content")
    schema = question["params"].get("requestedSchema")
    if not isinstance(content, dict) or not isinstance(schema, dict):
        raise RpcError(jsonrpc.INVALID_PARAMS, f"inputResponses[{key!r}] accepts without content")
    problems = validation.problems(content, schema)
    if problems:
        raise RpcError(jsonrpc.INVALID_PARAMS, f"inputResponses[{key!r}] does not match the requested schema: "
                       + "; ".join(problems))
    return {"action": "accept", "content": content}


def take_answers(ask: Ask, answers: dict[str, Any], responses: dict[str, Any]) -> None:
    """Keep the answers `responses` give to the questions of `ask` still open; others are ignored."""
    for key, question in ask.questions.items():
        if key not in answers:
            answer = answer_to(key, question, responses.get(key))
            if answer is not None:
                answers[key] = answer


def open_questions(ask: Ask, answers: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {key: question for key, question in ask.questions.items() if key not in answers}


def run_now(call: Call, plan: TaskPlan) -> dict[str, Any] | NeedInput:
    """The plan as a plain tool call: work as progress, questions through the call, then the result."""
    state = call.state if isinstance(call.state, dict) else {}
    reached = state.get("stage", 0)
    answers = dict(state.get("answers") or {})
    for index in range(reached if isinstance(reached, int) else 0, len(plan.stages)):
        stage = plan.stages[index]
        if isinstance(stage, Work):
            call.progress(index + 1, len(plan.stages), stage.message)
            continue
        take_answers(stage, answers, call.responses)
        if refused(answers):
            break
        missing = open_questions(stage, answers)
        if missing:
            return NeedInput(missing, {"stage": index, "answers": answers})
    return plan.finish(answers)


def task_tool(plan_of: Callable[[Call], TaskPlan],
              required: bool = False) -> Callable[[Call], dict[str, Any] | NeedInput]:
    """A tool handler that runs its plan as a task when the call may become one, else as a plain
    tool; a `required` one refuses a call that may not become a task (-32021)."""
    def handler(call: Call) -> dict[str, Any] | NeedInput:
        if call.start_task is not None:
            return call.start_task(plan_of(call))
        if required:
            raise missing_tasks_capability(f"tool {call.subject}")
        return run_now(call, plan_of(call))
    return handler
