"""`mrtr serve`: transcripts played back as a server (a client of either era is served by the dispatcher).

A request that matches a recorded original request gets the recorded first response; a retry
whose answers, for the keys asked, equal the recorded ones gets the next recorded response.
A recording of the older era plays back its in-flight questions one at a time, under the keys
it recorded them by (`elicitation#1`, ...): see `rounds.served_steps`. Recordings of the same request
that branch (the same replies up to a question, answered otherwise: accept in one, decline in the
other) are one server: a retry goes on in the recording whose answers it gives.
The requestState handed out is this server's own sealed token naming the transcript and the
round (the dispatcher seals it), so serving stays stateless the protocol's way. A retry that
lacks answers is asked again; one whose answers no recording of that path gave gets -32602
naming what differed from the recording it was following.
"""

from __future__ import annotations

import json
from typing import Any

from mrtr_cli import __version__
from mrtr_cli.errors import ProtocolError, UsageError
from mrtr_cli.protocol import jsonrpc
from mrtr_cli.protocol.headers import NAMED_METHODS
from mrtr_cli.protocol.mrtr import read_result
from mrtr_cli.server.app import Call, NeedInput, RpcError
from mrtr_cli.transcript.model import Transcript
from mrtr_cli.transcript.rounds import ServedStep, served_steps, without_volatile


CAPABILITY_OF = {"tools/call": "tools", "prompts/get": "prompts", "resources/read": "resources"}
"""The capability a recorded request's method is served under."""
LISTED_UNDER = {"tools": "tools", "prompts": "prompts", "resources": "resources", "resourceTemplates": "resources"}
"""The capability each listing is served under."""


class MockApp:
    """Serves what a set of transcripts recorded."""

    instructions = None
    subscriptions = None

    def __init__(self, transcripts: list[Transcript]) -> None:
        for transcript in transcripts:
            problem = unservable(transcript)
            if problem is not None:
                raise UsageError(f"cannot serve {transcript.path!r}: {problem}",
                                 "record the conversation again, or leave this transcript out")
        self.transcripts = transcripts
        self.steps = [served_steps(t.rounds) for t in transcripts]
        self._declared = sorted({CAPABILITY_OF[t.request["method"]] for t in transcripts})
        server = next((t.data["server"] for t in transcripts if t.data.get("server")), None)
        self.info = server or {"name": "mrtr-serve", "version": __version__}
        self._listings = {key: self._list(key) for key in ("tools", "prompts", "resources")}
        self._tools = {tool.get("name"): tool for tool in self._listings["tools"]}
        self._originals: dict[Any, int] = {}
        """Each recorded original request (method, subject, arguments, as `_frozen` keys) and the
        first transcript that recorded it: a request is matched in one look-up, not a scan."""
        self._recorded_alike: dict[Any, list[int]] = {}
        """Each recorded original request and every transcript that recorded it, in the order given:
        where a retry may branch."""
        for index, transcript in enumerate(transcripts):
            key = _request_key(transcript.request["method"], *_original(transcript))
            self._originals.setdefault(key, index)
            self._recorded_alike.setdefault(key, []).append(index)

    def capabilities(self) -> dict[str, Any]:
        """Exactly what the transcripts recorded: the rest is answered -32601."""
        return {name: {} for name in self._declared}

    def listing(self, key: str) -> list[dict[str, Any]]:
        """The tools, prompts or resources the transcripts recorded (listed once, at start)."""
        self._served(LISTED_UNDER[key], f"{key} list")
        return self._listings.get(key, [])

    def _served(self, capability: str, what: str) -> None:
        """-32601 for what a capability not declared would serve."""
        if capability not in self._declared:
            raise RpcError(jsonrpc.METHOD_NOT_FOUND, f"Method not found: the transcripts record no {what}",
                           status=404)

    def tool(self, name: str) -> dict[str, Any] | None:
        return self._tools.get(name)

    def _list(self, key: str) -> list[dict[str, Any]]:
        if key == "tools":
            return _unique([t.data.get("tool") or {"name": t.request["params"]["name"],
                                                   "inputSchema": {"type": "object"}}
                            for t in self._of("tools/call")])
        if key == "prompts":
            return _unique([{"name": t.request["params"]["name"]} for t in self._of("prompts/get")])
        return _unique([{"uri": t.request["params"]["uri"], "name": t.request["params"]["uri"]}
                        for t in self._of("resources/read")], "uri")

    def _of(self, method: str) -> list[Transcript]:
        return [t for t in self.transcripts if t.request["method"] == method]

    def handle(self, call: Call) -> dict[str, Any] | NeedInput:
        self._served(CAPABILITY_OF[call.method], call.method)
        if call.state is None:
            return self._respond(call, self._match(call), 0)
        index, number = int(call.state["transcript"]), int(call.state["step"])
        step = self.steps[index][number]
        if not step.asked and _result(step).get("resultType") != "input_required":
            raise RpcError(jsonrpc.INVALID_PARAMS, "Invalid params: this recorded conversation asked nothing here")
        missing = [key for key in step.asked if key not in call.responses]
        if missing:
            return self._respond(call, index, number)  # ask again rather than fail
        return self._respond(call, self._branch(index, number, call.responses), number + 1)

    def _branch(self, index: int, number: int, responses: dict[str, Any]) -> int:
        """The transcript a retry goes on in: the one it follows when its answers are the recorded ones,
        else the first of the same request that went the same way up to this question and recorded
        these answers to it; none: -32602 naming how they differ from the one followed."""
        step = self.steps[index][number]
        if _answers_match(step, responses):
            return index
        transcript = self.transcripts[index]
        alike = self._recorded_alike[_request_key(transcript.request["method"], *_original(transcript))]
        for other in alike:
            steps = self.steps[other]
            if other != index and number < len(steps) and _same_path(self.steps[index], steps, number) \
                    and _answers_match(steps[number], responses):
                return other
        raise _answers_differ(transcript, step, responses)

    def _match(self, call: Call) -> int:
        """The transcript whose original request this is; -32602 naming the nearest otherwise."""
        index = self._originals.get(_request_key(call.method, call.subject, call.arguments))
        if index is not None:
            return index
        candidates = [i for i, t in enumerate(self.transcripts) if t.request["method"] == call.method]
        raise RpcError(jsonrpc.INVALID_PARAMS, _no_match(call, [self.transcripts[i] for i in candidates]),
                       {"method": call.method, "subject": call.subject})

    def _respond(self, call: Call, index: int, number: int) -> dict[str, Any] | NeedInput:
        steps = self.steps[index]
        if number >= len(steps):
            raise RpcError(jsonrpc.INVALID_PARAMS,
                           f"Invalid params: {self.transcripts[index].path} recorded nothing after this answer")
        received = steps[number].received
        for note in received.get("notifications", []):
            params = dict(note.get("params") or {})
            if "progressToken" in params:
                params["progressToken"] = call.progress_token
            call.notify(note["method"], params)
        if "error" in received:
            error = received["error"]
            raise RpcError(error["code"], error["message"], error.get("data"))
        result = without_volatile(_result(steps[number]))
        if result.get("resultType") == "input_required":
            return NeedInput(result.get("inputRequests") or {}, {"transcript": index, "step": number})
        return result


def unservable(transcript: Transcript) -> str | None:
    """Why a valid transcript still cannot be played back, or None when it can."""
    method, params = transcript.request["method"], transcript.request["params"]
    subject = NAMED_METHODS[method]
    if not isinstance(params.get(subject), str):
        return f"its request has no {subject} (it failed before the request was sent)"
    if not isinstance(params.get("arguments", {}), dict):
        return "the arguments of its request are not an object"
    tool = transcript.data.get("tool")
    if tool and tool.get("name") != params[subject]:
        return f"its tool definition is {tool.get('name')!r}, its request calls {params[subject]!r}"
    if not transcript.rounds:
        return "it records no round (the conversation ended before the request was sent)"
    steps = served_steps(transcript.rounds)
    if not steps:
        return "it records no reply (the server never answered nor asked)"
    problem = next(filter(None, (_step_problem(method, step) for step in steps)), None)
    return problem or _stops_at_a_question(transcript, steps[-1])


def _stops_at_a_question(transcript: Transcript, last: ServedStep) -> str | None:
    """Why a recording that ends asking a question (interrupted, or nothing answered it) cannot be
    served: a client's answer would have no recorded reply. None when it ends in a result or an error."""
    if _result(last).get("resultType") != "input_required":  # a step that asks is always input_required
        return None
    keys = ", ".join(repr(key) for key in last.asked) or "its questions"
    return (f"the recording stops at round {last.round}, at question {keys}: nothing after it was recorded "
            f"(outcome {transcript.outcome}), so a client's answer would have no reply")


def _step_problem(method: str, step: ServedStep) -> str | None:
    """Why a recorded reply cannot be played back, or None."""
    received, where = step.received, f"round {step.round}"
    if "error" in received:
        return None
    if "result" not in received:
        return f"{where} has no result or error (the server never answered)"
    try:
        read_result(method, received["result"])
    except ProtocolError as problem:
        return f"{where}: {problem.message}"
    return None


def _original(transcript: Transcript) -> tuple[Any, Any]:
    params = transcript.request["params"]
    return params.get(NAMED_METHODS[transcript.request["method"]]), params.get("arguments") or {}


def _request_key(method: str, subject: Any, arguments: Any) -> Any:
    return method, _frozen(subject), _frozen(arguments)


def _frozen(value: Any) -> Any:
    """`value` as a dictionary key that is equal where the values are equal (`==`, so 1 is 1.0
    as in the scan this replaced): mappings as frozensets of pairs, lists as tuples."""
    if isinstance(value, dict):
        return frozenset((key, _frozen(item)) for key, item in value.items())
    if isinstance(value, list):
        return ("list", tuple(_frozen(item) for item in value))
    return value


def _result(step: ServedStep) -> dict[str, Any]:
    result = step.received.get("result")
    return result if isinstance(result, dict) else {}


def _answers_match(step: ServedStep, responses: dict[str, Any]) -> bool:
    """Whether the retry's answers, for the keys the step asked, are the ones recorded there."""
    return all(responses.get(key) == step.recorded_answers.get(key) for key in step.asked)


def _same_path(followed: list[ServedStep], other: list[ServedStep], number: int) -> bool:
    """Whether two recordings of one request went the same way up to step `number`: the same
    replies (without what changes on every run) and, before it, the same answers; at it, the same
    questions."""
    def reply(step: ServedStep) -> Any:
        received = step.received
        result = received.get("result")
        return {**received, "result": without_volatile(result)} if isinstance(result, dict) else received

    before = all(reply(a) == reply(b) and a.recorded_answers == b.recorded_answers
                 for a, b in zip(followed[:number], other[:number]))
    return before and reply(followed[number]) == reply(other[number])


def _answers_differ(transcript: Transcript, step: ServedStep, responses: dict[str, Any]) -> RpcError:
    """The -32602 of a retry whose answers, for the keys the step asked, are not the recorded ones."""
    recorded = step.recorded_answers
    key = next(key for key in step.asked if responses.get(key) != recorded.get(key))
    return RpcError(jsonrpc.INVALID_PARAMS,
                    f"Invalid params: the answer to {key!r} differs from the recording in {transcript.path} "
                    f"(round {step.round}): {_difference(recorded.get(key), responses.get(key))}",
                    {"transcript": transcript.path, "round": step.round, "key": key,
                     "recorded": recorded.get(key), "received": responses.get(key)})


_ABSENT: Any = object()


def _difference(recorded: Any, received: Any) -> str:
    """The first field where an answer differs from the recorded one: `content.date is "2031-01-01",
    recorded "2026-12-24"`: the values there, not both whole answers cut short."""
    where: list[str] = []
    while isinstance(recorded, dict) and isinstance(received, dict):
        name = next((k for k in [*recorded, *received] if recorded.get(k, _ABSENT) != received.get(k, _ABSENT)), None)
        if name is None:
            break
        where.append(str(name))
        recorded, received = recorded.get(name, _ABSENT), received.get(name, _ABSENT)
    field = ".".join(where) or "the answer"
    return f"{field} is {_shown(received)}, recorded {_shown(recorded)}"


def _shown(value: Any) -> str:
    return "absent" if value is _ABSENT else _short(value)


def _no_match(call: Call, candidates: list[Transcript]) -> str:
    said = f"Invalid params: no recorded conversation is {call.method} {call.subject!r} with arguments " \
           f"{_short(call.arguments)}"
    if not candidates:
        return f"{said}; the transcripts record no {call.method}"
    nearest = min(candidates, key=lambda t: _distance(_original(t), (call.subject, call.arguments)))
    subject, arguments = _original(nearest)
    return f"{said}; the nearest, in {nearest.path}, is {subject!r} with arguments {_short(arguments)}"


def _distance(recorded: tuple[Any, Any], live: tuple[Any, Any]) -> int:
    (subject, arguments), (live_subject, live_arguments) = recorded, live
    keys = set(arguments) | set(live_arguments)
    differing: int = sum(arguments.get(k) != live_arguments.get(k) for k in keys)
    return int(subject != live_subject) * 100 + differing


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 200 else text[:200] + "…"


def _unique(items: list[dict[str, Any]], key: str = "name") -> list[dict[str, Any]]:
    seen: dict[Any, dict[str, Any]] = {}
    for item in items:
        seen.setdefault(item.get(key), item)
    return list(seen.values())
