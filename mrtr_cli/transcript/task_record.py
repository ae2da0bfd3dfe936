"""A task in a transcript (the tasks extension): the one place that knows the `task` part's shape.

When the server makes a task of the request, round 1 keeps the CreateTaskResult, and the
transcript's optional `task` part (written with the outcome) keeps the rest: the task's id, each
status seen with its statusMessage, each input round with its questions and answers, how many
polls it took, and how it ended (`result` or `error`). Read back as the events the engine emitted
(`task_events`, for `show`), as the session's rounds (`task_rounds`), and as what replay compares
(`compare_tasks`: the final status, the questions in order, the answers and the result; never the
task id, the polls or the statuses between, which depend on timing). A transcript without the part
is one of a conversation without a task, as every transcript was before. A task followed from
`mrtr tasks resume` is marked `resumed`: its transcript starts at a poll, with no request to send again.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.answering.questions import Answer
from mrtr_cli.conversation.client import Reply
from mrtr_cli.conversation.session import Outcome, Round
from mrtr_cli.conversation.task_follower import KEPT_STATUSES, TaskFailed, status_entry
from mrtr_cli.transcript.compare import Difference, compare_questions
from mrtr_cli.protocol import jsonrpc, tasks
from mrtr_cli.transcript.rounds import in_flight_events, without_volatile


@dataclass
class TaskParts:
    """What a recorder gathers about the task from the engine's events."""

    created: events.TaskCreated
    statuses: list[dict[str, Any]] = field(default_factory=list)
    inputs: list[dict[str, Any]] = field(default_factory=list)
    polls: int = 0
    resumed: bool = False
    """The task was followed by its id alone (`tasks resume`): the transcript starts there."""
    left_out: int = 0
    """Statuses seen but not kept: past KEPT_STATUSES, only the last is (a server may change them on every poll)."""
    result_request: dict[str, Any] | None = None
    """Older era: the tasks/result request's id, the statuses seen before it, the questions asked on its stream."""

    def seen(self, event: events.TaskStatusChanged) -> None:
        if len(self.statuses) < KEPT_STATUSES - 1:  # the first status is the created one's
            self.statuses.append(status_entry(event.status, event.status_message))
        else:
            self.statuses[-1] = status_entry(event.status, event.status_message)
            self.left_out += 1

    def result_sent(self, request_id: int) -> None:
        """An older-era task's tasks/result was sent, after the statuses seen so far."""
        self.result_request = {"id": request_id, "after": 1 + len(self.statuses), "asked": []}

    def asked_on_stream(self, event: events.InputRequested) -> None:
        """Keep the keys of a question asked in flight on the tasks/result stream."""
        if self.result_request is not None and event.id == self.result_request["id"]:
            self.result_request["asked"] += [key for key in event.requests if key not in self.result_request["asked"]]

    def asked(self, event: events.InputRequested) -> None:
        self.inputs.append({"round": event.round, "asked": event.requests, "answers": {}})

    def answered(self, event: events.AnswerChosen) -> bool:
        """Keep `event` when it answers the task's last input round."""
        if not self.inputs or self.inputs[-1]["round"] != event.round:
            return False
        self.inputs[-1]["answers"][event.key] = {"method": event.method, "source": event.source,
                                                 "response": event.response}
        return True


def task_to_data(parts: TaskParts, outcome: Outcome) -> dict[str, Any]:
    """The `task` part, keys in their written order."""
    created = parts.created
    data: dict[str, Any] = {"id": created.task_id, **({"resumed": True} if parts.resumed else {})}
    data.update({name: value for name, value in (("poll_interval_ms", created.poll_interval_ms),
                                                 ("ttl_ms", created.ttl_ms)) if value is not None})
    data["statuses"] = [status_entry(created.status, created.status_message), *parts.statuses]
    if parts.left_out:
        data["statuses_left_out"] = parts.left_out
    data["inputs"] = parts.inputs
    if parts.result_request is not None:
        data["result_request"] = parts.result_request
    data["polls"] = parts.polls
    if outcome.status == "complete" and outcome.result is not None:
        data["result"] = outcome.result
    elif isinstance(outcome.error, TaskFailed):
        data["error"] = outcome.error.error
    return data


def final_status(data: dict[str, Any]) -> str | None:
    statuses = data.get("statuses") or []
    return str(statuses[-1]["status"]) if statuses else None


def task_events(data: dict[str, Any], request_id: int, first_round: dict[str, Any] | None = None) -> Iterator[Any]:
    """The task's events, as the engine emitted them (request `request_id` made it; a resumed task was
    first seen by a poll), each input round after the input_required status that asked it; an older-era
    tasks/result after the statuses seen before it was sent, with the questions `first_round` (the
    call's round) keeps that were asked on its stream."""
    statuses = list(data.get("statuses") or [])
    first = statuses.pop(0) if statuses else {"status": "working"}
    if is_resumed(data):
        yield events.TaskStatusChanged(data["id"], first["status"], first.get("message"))
    else:
        yield events.TaskCreated(request_id, data["id"], first["status"], first.get("message"),
                                 data.get("poll_interval_ms"), data.get("ttl_ms"))
    inputs = {entry["round"]: entry for entry in data.get("inputs") or []}
    sent = data.get("result_request")
    for number, status in enumerate([first, *statuses]):
        if number:
            yield events.TaskStatusChanged(data["id"], status["status"], status.get("message"))
        if status["status"] == "input_required" and inputs:
            yield from _input_events(inputs.pop(min(inputs)))
        if sent is not None and number + 1 == min(sent["after"], len(statuses) + 1):
            yield from _result_request_events(data["id"], sent, first_round)
    for entry in inputs.values():  # asked without a status seen in between (not usual)
        yield from _input_events(entry)


def asked_on_result(data: Any) -> set[str]:
    """The keys of the questions an older-era task's server asked on the tasks/result stream (drawn there)."""
    sent = data.get("result_request") if isinstance(data, dict) else None
    return set(sent["asked"]) if isinstance(sent, dict) else set()


def _result_request_events(task_id: str, sent: dict[str, Any], first_round: dict[str, Any] | None) -> Iterator[Any]:
    params = {"taskId": task_id}
    yield events.RequestSent(sent["id"], "tasks/result", params,
                             jsonrpc.encode(jsonrpc.request(sent["id"], "tasks/result", params)), None, "task")
    if first_round is not None:
        yield from in_flight_events(first_round, set(sent["asked"]), sent["id"])


def _input_events(entry: dict[str, Any]) -> Iterator[Any]:
    yield events.InputRequested(entry["round"], None, entry["asked"], None)
    for key, answer in (entry.get("answers") or {}).items():
        yield events.AnswerChosen(entry["round"], key, answer["method"], answer["response"], answer["source"])


def task_rounds(data: dict[str, Any]) -> list[Round]:
    """The task's input rounds as the session's rounds (for the outcome `show` reads back)."""
    return [Round(entry["round"], Reply(0, tasks.GET, None, None, 0.0), tasks.get_params(data["id"]), "input_required",
                  entry["asked"], None, {key: Answer(a["response"], a["source"])
                                         for key, a in (entry.get("answers") or {}).items()})
            for entry in data.get("inputs") or []]


def ending(data: dict[str, Any]) -> tuple[dict[str, Any] | None, TaskFailed | None]:
    """How the recorded task ended: its result, or its failure (neither: cancelled or cut off)."""
    if isinstance(data.get("result"), dict):
        return data["result"], None
    if isinstance(data.get("error"), dict):
        return None, TaskFailed(data["id"], data["error"], None)
    return None, None


def is_resumed(data: Any) -> bool:
    """Whether a transcript's `task` part starts at `mrtr tasks resume` (no request of it was sent)."""
    return isinstance(data, dict) and data.get("resumed") is True


def compare_tasks(recorded: dict[str, Any] | None, live: dict[str, Any] | None) -> list[Difference]:
    """How the live task differs from the recorded one: whether there was one, how it ended, the
    questions of each input round in order and their answers, the result or the error."""
    if recorded is None or live is None:
        return [] if recorded is live else [Difference(None, None, "task", _presence(recorded), _presence(live))]
    differences = _differ(None, None, "task status", final_status(recorded), final_status(live))
    old, new = recorded.get("inputs") or [], live.get("inputs") or []
    differences += _differ(None, None, "number of task input rounds", len(old), len(new))
    for before, after in zip(old, new):
        differences += compare_questions(before["round"], before["asked"], after["asked"])
        for key, answer in (before.get("answers") or {}).items():
            given = (after.get("answers") or {}).get(key) or {}
            differences += _differ(before["round"], key, "answer", answer.get("response"), given.get("response"))
    differences += _differ(None, None, "task result", _result(recorded), _result(live))
    return differences + _differ(None, None, "task error", _code(recorded), _code(live))


def _presence(data: dict[str, Any] | None) -> str:
    return "a task" if data is not None else "no task"


def _result(data: dict[str, Any]) -> Any:
    result = data.get("result")
    return without_volatile(result) if isinstance(result, dict) else None


def _code(data: dict[str, Any]) -> Any:
    error = data.get("error")
    return error.get("code") if isinstance(error, dict) else None


def _differ(number: int | None, key: str | None, what: str, old: Any, new: Any) -> list[Difference]:
    return [] if old == new else [Difference(number, key, what, old, new)]
