"""One round of a conversation as data: the one place that knows its document shape.

A round is written as the transcript form (`round_to_data`, from the parts a recorder gathers)
and read back as the session's `Round` (`round_from_data`) or as the events the engine emitted
(`round_events`). The `--json` report's round (`report_view`) and replay's comparison
(`comparable`) are views made here too, so a new field is added in one module.
Document shape: docs/transcript-format.md; the `--json` round: docs/json/conversation.schema.json.
"""

from __future__ import annotations

import copy
from collections.abc import Container, Iterator
from dataclasses import dataclass, field
from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.answering.questions import Answer
from mrtr_cli.conversation.client import Reply
from mrtr_cli.conversation.session import Round
from mrtr_cli.protocol import jsonrpc

RECEIVED_KEYS = ("status", "content_type", "notifications", "asked_in_flight", "result", "error")
"""The parts of `received`, in the order they are written."""
VOLATILE = ("_meta", "requestState")
"""Result fields that differ on every run, whatever the server does: never compared or replayed."""
QUESTION_FIELDS = ("mode", "message", "requestedSchema", "url", "messages", "systemPrompt", "maxTokens")
"""The params that make a question what it is: compared by replay, in either era."""


@dataclass
class RoundParts:
    """What a recorder gathers about one round from the engine's events, before it is written."""

    number: int
    id: Any
    params: dict[str, Any]
    headers: dict[str, str] | None = None
    received: dict[str, Any] = field(default_factory=dict)
    notifications: list[events.NotificationReceived] = field(default_factory=list)
    elapsed_ms: float | None = None
    answers: dict[str, events.AnswerChosen] = field(default_factory=dict)
    asked_in_flight: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Older era: the requests the server sent while this round's request was in flight, in order."""
    refused: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Older era: the questions asked in flight that were refused, each `{method, source, refused}`."""
    unprompted: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Older era: the requests that were not the call's (conversation/server_requests.py), each
    `{method, params}` and then how it was answered: `source` and `response`, or `refused`."""
    findings: list[events.Finding] = field(default_factory=list)
    instance: events.InstanceChosen | None = None
    """The instance of the server the round went to (`--replica`, `--restart-between-rounds`)."""
    sent_at: str | None = None
    """When its request was sent (UTC, to the second): how old a paused round's requestState is."""
    credentials: dict[str, str] = field(default_factory=dict)
    """The secret headers sent, as sent (Redaction.credentials): never written, only shown by --har with
    --show-secrets."""


def round_to_data(parts: RoundParts) -> dict[str, Any]:
    """The transcript form of a round, keys in their written order."""
    sent: dict[str, Any] = {"params": parts.params, **({"headers": parts.headers} if parts.headers is not None else {})}
    data: dict[str, Any] = {"round": parts.number, "id": parts.id}
    if parts.instance is not None:
        data["instance"] = instance_data(parts.instance)
    data.update(sent=sent, received=_received(parts))
    if parts.elapsed_ms is not None:
        data["elapsed_ms"] = round(parts.elapsed_ms, 3)
    if parts.sent_at is not None:
        data["sent_at"] = parts.sent_at
    if parts.unprompted:
        data["unprompted"] = parts.unprompted
    if parts.answers:
        data["answers"] = {key: answer_data(answer) for key, answer in parts.answers.items()}
    if parts.refused:
        data["refused"] = parts.refused
    if parts.findings:
        data["findings"] = [finding_to_data(finding) for finding in parts.findings]
    data.setdefault("answers", {})  # so a round with findings and no answers has `answers` last, as ever
    data.setdefault("findings", [])
    return data


def _received(parts: RoundParts) -> dict[str, Any]:
    notes = [{"method": note.method, "params": note.params} for note in parts.notifications]
    asked = {"asked_in_flight": parts.asked_in_flight} if parts.asked_in_flight else {}
    known = {**parts.received, **({"notifications": notes} if notes else {}), **asked}
    return {key: known[key] for key in RECEIVED_KEYS if key in known}


def answer_data(answer: events.AnswerChosen) -> dict[str, Any]:
    return {"method": answer.method, "source": answer.source, "response": answer.response}


def instance_data(instance: events.InstanceChosen) -> dict[str, Any]:
    """Where a round went, as the transcript and the `--json` report write it."""
    return {"position": instance.position, "name": instance.name}


def instance_of(data: dict[str, Any]) -> events.InstanceChosen | None:
    """The instance a recorded round went to; None when the conversation did not hop."""
    instance = data.get("instance")
    return events.InstanceChosen(data["round"], instance["position"], instance["name"]) if instance else None


def finding_to_data(finding: events.Finding) -> dict[str, Any]:
    data = {"severity": finding.severity, "rule": finding.rule, "message": finding.message}
    return {**data, **({"page": finding.page} if finding.page else {})}


def finding_from_data(data: dict[str, Any], number: int) -> events.Finding:
    return events.Finding(data["severity"], data["rule"], data["message"], data.get("page", ""), number)


def result_of(data: dict[str, Any]) -> dict[str, Any]:
    """A recorded round's result; {} when it ended in an error or with nothing."""
    result = data["received"].get("result")
    return result if isinstance(result, dict) else {}


def asked_in(data: dict[str, Any]) -> dict[str, Any]:
    """The `inputRequests` of a recorded round's result (none: {})."""
    asked = result_of(data).get("inputRequests")
    return asked if isinstance(asked, dict) else {}


def asked_in_flight(data: dict[str, Any]) -> dict[str, Any]:
    """Older era: the requests the server sent while a recorded round was in flight (none: {})."""
    asked = data["received"].get("asked_in_flight")
    return asked if isinstance(asked, dict) else {}


def unprompted_of(data: dict[str, Any]) -> dict[str, Any]:
    """Older era: the requests a recorded round keeps beside it, not its questions (none: {})."""
    unprompted = data.get("unprompted")
    return unprompted if isinstance(unprompted, dict) else {}


def refused_of(data: dict[str, Any]) -> dict[str, Any]:
    """Older era: a recorded round's questions that were refused (none: {})."""
    refused = data.get("refused")
    return refused if isinstance(refused, dict) else {}


def roots_beside(data: dict[str, Any]) -> dict[str, Any]:
    """A round recorded before format 3, which kept a `roots/list` among the questions asked in flight,
    as format 3 keeps it: beside the round, unprompted (the comparison of an older file with a live run)."""
    asked = asked_in_flight(data)
    roots = {key: request for key, request in asked.items() if request.get("method") == "roots/list"}
    if not roots:
        return data
    received = {**data["received"], "asked_in_flight": {k: v for k, v in asked.items() if k not in roots}}
    if not received["asked_in_flight"]:
        del received["asked_in_flight"]
    return {**data, "received": received, "unprompted": {**roots, **unprompted_of(data)}}


def unprompted_methods(rounds: list[dict[str, Any]]) -> list[str]:
    """The methods a conversation's server asked unprompted, as a set (sorted): what replay compares."""
    return sorted({str(entry.get("method")) for data in rounds for entry in unprompted_of(data).values()})


@dataclass(frozen=True)
class ServedStep:
    """One reply `mrtr serve` plays back: what it received at that point of the recording (its
    result may be `input_required`, asking `asked`), and the answers recorded for those questions."""

    round: int
    received: dict[str, Any]
    asked: dict[str, Any]
    recorded_answers: dict[str, Any]


def served_steps(rounds: list[dict[str, Any]]) -> list[ServedStep]:
    """A recorded conversation as the replies a server plays back, whatever the era it was
    recorded in. A modern round is one step. An older-era round becomes one step per question
    asked in flight (an `input_required` result asking it alone, as a server of either era can
    ask it), then a step with what ended the round, when something did."""
    steps = []
    for index, data in enumerate(rounds):
        if not asked_in_flight(data):
            following = rounds[index + 1]["sent"]["params"] if index + 1 < len(rounds) else {}
            answers = following.get("inputResponses")
            answers = answers if isinstance(answers, dict) else {}
            asked = asked_in(data) if result_of(data).get("resultType") == "input_required" else {}
            steps.append(ServedStep(data["round"], data["received"], asked, answers))
            continue
        steps.extend(_in_flight_steps(data))
    return steps


def _in_flight_steps(data: dict[str, Any]) -> Iterator[ServedStep]:
    answers = data.get("answers") or {}
    for key, request in asked_in_flight(data).items():
        asking = {"result": {"resultType": "input_required", "inputRequests": {key: request}}}
        recorded = {key: answers[key]["response"]} if key in answers else {}
        yield ServedStep(data["round"], asking, {key: request}, recorded)
    ending = {key: value for key, value in data["received"].items() if key != "asked_in_flight"}
    if "result" in ending or "error" in ending:
        yield ServedStep(data["round"], ending, {}, {})


def without_volatile(result: dict[str, Any]) -> dict[str, Any]:
    """A result without the fields that change on every run."""
    return {key: value for key, value in result.items() if key not in VOLATILE}


def round_from_data(method: str, data: dict[str, Any]) -> Round:
    """A recorded round as the session's Round."""
    received = data["received"]
    reply = Reply(data["id"], method, received.get("result"), received.get("error"), float(data.get("elapsed_ms", 0)))
    result = result_of(data)
    asked = asked_in(data) if result.get("resultType") == "input_required" else asked_in_flight(data)
    answers = {key: Answer(a["response"], a["source"]) for key, a in (data.get("answers") or {}).items()}
    result_type = result.get("resultType", "complete") if received.get("result") is not None else None
    return Round(data["round"], reply, data["sent"]["params"], result_type, asked, result.get("requestState"),
                 answers, instance_of(data), dict(refused_of(data)), dict(unprompted_of(data)))


def round_events(method: str, data: dict[str, Any], held_back: Container[str] = ()) -> Iterator[Any]:
    """The events of a recorded round, as the engine emitted them when it ran; the questions asked in
    flight whose keys are `held_back` (asked on an older-era task's tasks/result) are left to the task's."""
    number, params, request_id = data["round"], data["sent"]["params"], data["id"]
    text = jsonrpc.encode(jsonrpc.request(request_id, method, params))
    instance = instance_of(data)
    if instance is not None:
        yield instance
    yield events.RequestSent(request_id, method, params, text, number, "request" if number == 1 else "retry")
    received = data["received"]
    answers = {key: answer for key, answer in (data.get("answers") or {}).items() if key not in held_back}
    for note in received.get("notifications", []):
        yield events.NotificationReceived(note["method"], note.get("params", {}), request_id)
    yield from _unprompted_events(data)
    refused = refused_of(data)
    for key, request in asked_in_flight(data).items():
        if key in held_back:
            continue
        yield events.InputRequested(number, request_id, {key: request}, None, in_flight=True)
        if key in answers:
            yield _answer_event(number, key, answers.pop(key))
        elif key in refused:
            yield _refusal_event(number, key, refused[key])
    if "result" in received or "error" in received:
        yield events.ResponseReceived(request_id, method, received.get("result"), received.get("error"),
                                      float(data.get("elapsed_ms", 0)), number)
    result = result_of(data)
    if result.get("resultType") == "input_required":
        yield events.InputRequested(number, request_id, asked_in(data), result.get("requestState"))
    for key, answer in answers.items():
        yield _answer_event(number, key, answer)
    for finding in data.get("findings", []):
        yield finding_from_data(finding, number)


def in_flight_events(data: dict[str, Any], keys: set[str], request_id: int) -> Iterator[Any]:
    """The questions of round `data` asked in flight whose keys are `keys`, asked while request
    `request_id` was in flight (an older-era task's tasks/result), each with its answer."""
    answers = data.get("answers") or {}
    for key, request in asked_in_flight(data).items():
        if key in keys:
            yield events.InputRequested(data["round"], request_id, {key: request}, None, in_flight=True)
            if key in answers:
                yield _answer_event(data["round"], key, answers[key])


def _unprompted_events(data: dict[str, Any]) -> Iterator[Any]:
    """The requests kept beside a recorded round, each with its answer or refusal (drawn first: when
    each came is not kept, and is timing)."""
    for key, entry in unprompted_of(data).items():
        request = {"method": entry.get("method"), "params": entry.get("params") or {}}
        yield events.InputRequested(data["round"], None, {key: request}, None, in_flight=True, unprompted=True)
        if "response" in entry:
            yield events.AnswerChosen(data["round"], key, str(entry.get("method")), entry["response"],
                                      str(entry.get("source")), unprompted=True)
        elif "refused" in entry:
            yield _refusal_event(data["round"], key, entry, unprompted=True)


def _refusal_event(number: int, key: str, entry: dict[str, Any], unprompted: bool = False) -> events.Unanswered:
    """A recorded refusal (or a request nothing answered), as the engine said it."""
    reason = str(entry.get("refused") or "nothing answered it")
    source = entry.get("source")
    said = f"refused by {source}: {reason}" if source else reason
    return events.Unanswered(key, f"{said}; the server got an error, and mrtr goes on", number,
                             str(entry.get("method")), str(source) if source else None, unprompted, reason)


def _answer_event(number: int, key: str, answer: dict[str, Any]) -> events.AnswerChosen:
    return events.AnswerChosen(number, key, answer["method"], answer["response"], answer["source"])


def report_view(current: Round) -> dict[str, Any]:
    """The round of a `--json` conversation document: what was asked and how it was answered."""
    questions = {}
    for key, request in current.requests.items():
        params = request.get("params")
        params = params if isinstance(params, dict) else {}
        answer, refused = current.answers.get(key), current.refused.get(key)
        questions[key] = {
            "method": request.get("method"),
            "message": params.get("message"),
            "response": answer.response if answer else None,
            "source": answer.source if answer else refused.get("source") if refused else None,
            **({"refused": refused["refused"]} if refused and not answer else {}),
        }
    view: dict[str, Any] = {"round": current.number, "id": current.reply.id, "resultType": current.result_type,
                            "questions": questions, "elapsed_ms": round(current.reply.elapsed_ms, 3)}
    if current.unprompted:
        view["unprompted"] = {key: _unprompted_view(entry) for key, entry in current.unprompted.items()}
    if current.instance is not None:
        view["instance"] = instance_data(current.instance)
    if current.reply.error is not None:
        view["error"] = current.reply.error
    return view


def _unprompted_view(entry: dict[str, Any]) -> dict[str, Any]:
    """An unprompted request in the `--json` round: its method and how it was answered."""
    view = {"method": entry.get("method"), "response": entry.get("response"), "source": entry.get("source")}
    return {**view, **({"refused": entry["refused"]} if "refused" in entry else {})}


@dataclass(frozen=True)
class AskedQuestion:
    """One question of a conversation as the era-free comparison sees it: its key (for naming
    only), method, defining params and the response it got."""

    key: str
    method: Any
    fields: dict[str, Any]
    response: Any


def question_sequence(rounds: list[dict[str, Any]]) -> list[AskedQuestion]:
    """Every question of a recorded conversation in the order asked, whatever the era: in flight
    (older) or in `inputRequests` (modern), but `roots/list` (`roots_asked`): over stdio the older era
    cannot tell when the server asks it. An elicitation without `mode` is a form, as before 2025-11-25."""
    sequence = []
    for data in rounds:
        answers = data.get("answers") or {}
        modern = asked_in(data) if result_of(data).get("resultType") == "input_required" else {}
        for key, request in {**asked_in_flight(data), **modern}.items():
            if request.get("method") == "roots/list":
                continue
            params = request.get("params")
            params = params if isinstance(params, dict) else {}
            fields = {name: params.get(name) for name in QUESTION_FIELDS}
            if request.get("method") == "elicitation/create" and fields["mode"] is None:
                fields["mode"] = "form"
            answer = answers.get(key)
            sequence.append(AskedQuestion(key, request.get("method"), fields,
                                          answer.get("response") if isinstance(answer, dict) else None))
    return sequence


def roots_asked(rounds: list[dict[str, Any]]) -> bool:
    """Whether the server asked for roots, whatever the era and whenever: a question of a round
    (`inputRequests`, in flight over HTTP) or beside it (unprompted, over stdio)."""
    for data in rounds:
        modern = asked_in(data) if result_of(data).get("resultType") == "input_required" else {}
        asked = [*asked_in_flight(data).values(), *modern.values(), *unprompted_of(data).values()]
        if any(isinstance(request, dict) and request.get("method") == "roots/list" for request in asked):
            return True
    return False


def final_result(rounds: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The result that ended a conversation without what differs between eras (resultType and the
    volatile fields); None when it did not end in a result."""
    last = rounds[-1]["received"].get("result") if rounds else None
    if not isinstance(last, dict) or last.get("resultType", "complete") != "complete":
        return None
    return {key: value for key, value in without_volatile(last).items() if key != "resultType"}


def _older_task_created(data: dict[str, Any], result: dict[str, Any]) -> bool:
    """Whether a round's result is an older-era CreateTaskResult: the call asked for a task (its
    params carry `task`, 2025-11-25) and the result is one."""
    sent = data.get("sent")
    params = sent.get("params") if isinstance(sent, dict) else None
    return isinstance(params, dict) and isinstance(params.get("task"), dict) and isinstance(result.get("task"), dict)


def comparable(data: dict[str, Any]) -> dict[str, Any]:
    """The transcript form without what legitimately changes between runs: the id, the timing,
    the answers (they are the cause, not the effect), the volatile result fields, a CreateTaskResult's
    fields (transcript/task_record.py compares the task), and the instance it went to (a replay with
    other replicas, or none, is the same conversation)."""
    received = copy.deepcopy(data["received"])
    if isinstance(received.get("result"), dict):
        received["result"] = without_volatile(received["result"])
        if received["result"].get("resultType") == "task":  # the task's id and times: its own on every run
            received["result"] = {"resultType": "task"}
        elif _older_task_created(data, received["result"]):
            received["result"] = {"task": "created"}
    return {"round": data["round"], "received": received, "findings": data.get("findings", [])}
