"""Building input requests, reading the answers, and walking multi-round conversations (server side)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mrtr_cli.forms import validation
from mrtr_cli.protocol import jsonrpc
from mrtr_cli.server.app import Call, NeedInput, RpcError


def form(message: str, properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """An elicitation/create request in form mode."""
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return {"method": "elicitation/create", "params": {"mode": "form", "message": message, "requestedSchema": schema}}


def url_request(message: str, url: str, elicitation_id: str) -> dict[str, Any]:
    """An elicitation/create request in URL mode."""
    return {"method": "elicitation/create",
            "params": {"mode": "url", "message": message, "url": url, "elicitationId": elicitation_id}}


def sampling(text: str, max_tokens: int, system: str | None = None) -> dict[str, Any]:
    """A sampling/createMessage request with one user message."""
    params: dict[str, Any] = {"messages": [{"role": "user", "content": {"type": "text", "text": text}}],
                              "maxTokens": max_tokens}
    if system:
        params["systemPrompt"] = system
    return {"method": "sampling/createMessage", "params": params}


ROOTS = {"method": "roots/list"}


def accepted(call: Call, key: str, request: dict[str, Any]) -> dict[str, Any] | None:
    """The content of an accepted form answer, checked against the schema the server asked."""
    answer = call.answer(key)
    if answer is None or answer.get("action") != "accept":
        return None
    content = answer.get("content")
    if not isinstance(content, dict):
        raise RpcError(jsonrpc.INVALID_PARAMS, f"inputResponses[{key!r}] accepts without content")
    problems = validation.problems(content, request["params"]["requestedSchema"])
    if problems:
        raise RpcError(jsonrpc.INVALID_PARAMS, f"inputResponses[{key!r}] does not match the requested schema: "
                       + "; ".join(problems))
    return content


def refused(call: Call, key: str) -> str | None:
    """`decline` or `cancel` when the client answered question `key` that way."""
    answer = call.answer(key)
    action = answer.get("action") if answer else None
    return action if action in ("decline", "cancel") else None


def text_result(text: str, received: Any = None, is_error: bool = False) -> dict[str, Any]:
    """A tool result: text for people, `structuredContent.received` for tests."""
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if received is not None:
        result["structuredContent"] = {"received": received}
    if is_error:
        result["isError"] = True
    return result


Round = Callable[[dict[str, Any]], dict[str, dict[str, Any]]]
"""A round of questions, built from the answers so far: key -> input request."""


@dataclass
class Walk:
    """Where a multi-round conversation stands: answers so far, and what is still needed."""

    answers: dict[str, Any]
    need: NeedInput | None = None
    refusal: tuple[str, str] | None = None  # (key, "decline" | "cancel")


def walk(call: Call, rounds: list[Round]) -> Walk:
    """Ask the rounds in order; answers accumulate in the sealed state, so each is asked once.

    A question the retry did not answer is asked again (spec: a new input_required rather
    than an error). An elicitation declined or cancelled ends the walk with `refusal`.
    """
    answers = dict((call.state or {}).get("answers", {}) if isinstance(call.state, dict) else {})
    for build in rounds:
        questions = {k: q for k, q in build(answers).items() if k not in answers}
        for key, request in questions.items():
            refusal = refused(call, key) if request["method"] == "elicitation/create" else None
            if refusal:
                return Walk(answers, refusal=(key, refusal))
            value = _answer_value(call, key, request)
            if value is not None:
                answers[key] = value
        missing = {k: q for k, q in questions.items() if k not in answers}
        if missing:
            return Walk(answers, NeedInput(missing, {"answers": answers}))
    return Walk(answers)


def _answer_value(call: Call, key: str, request: dict[str, Any]) -> Any:
    if request["method"] == "elicitation/create":
        if request["params"].get("mode") == "url":
            answer = call.answer(key)
            return {"action": "accept"} if answer and answer.get("action") == "accept" else None
        return accepted(call, key, request)
    answer = call.answer(key)
    if answer is not None and request["method"] == "sampling/createMessage" and "content" not in answer:
        raise RpcError(jsonrpc.INVALID_PARAMS, f"inputResponses[{key!r}] is not a CreateMessageResult")
    if answer is not None and request["method"] == "roots/list" and not isinstance(answer.get("roots"), list):
        raise RpcError(jsonrpc.INVALID_PARAMS, f"inputResponses[{key!r}] is not a ListRootsResult")
    return answer
