"""Multi Round-Trip Requests: reading a result, and building the retry.

The rules of the spec page `basic/patterns/mrtr` that concern the client live here.
`requestState` is an opaque `str`: it is taken from the result and put in the retry
unchanged, never parsed, re-encoded, trimmed or dropped. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mrtr_cli.errors import ProtocolError
from mrtr_cli.protocol.per_value import PerValue

MRTR_METHODS = ("tools/call", "resources/read", "prompts/get")
"""The only requests a server may answer with `input_required`."""
INPUT_METHODS = ("elicitation/create", "sampling/createMessage", "roots/list")
"""What an `inputRequests` entry may ask."""
COMPLETE = "complete"
"""`resultType` of a final result (also what an absent `resultType` means)."""
INPUT_REQUIRED = "input_required"
"""`resultType` of a result that asks the client for input."""
INPUT_RESPONSES = "inputResponses"
"""Retry parameter: the answers, keyed exactly as the server asked."""
REQUEST_STATE = "requestState"
"""Retry parameter: the server's opaque state, echoed exactly."""
INPUT_REQUESTS = "inputRequests"
"""Result field: the questions, keyed by the server."""


def questions(result: Any) -> list[dict[str, Any]]:
    """The questions (objects only) of an `input_required` result; none for anything else."""
    if not isinstance(result, dict) or result.get("resultType") != INPUT_REQUIRED:
        return []
    requests = result.get(INPUT_REQUESTS)
    return [r for r in requests.values() if isinstance(r, dict)] if isinstance(requests, dict) else []


@dataclass(frozen=True)
class Complete:
    """A final result."""

    result: dict[str, Any]


@dataclass(frozen=True)
class InputRequired:
    """The server wants input: questions (possibly none) and state (None when absent)."""

    requests: dict[str, dict[str, Any]]
    state: str | None


def read_result(method: str, result: Any) -> Complete | InputRequired:
    """What a result means; a result mrtr cannot use raises `ProtocolError`."""
    if not isinstance(result, dict):
        raise ProtocolError(f"the result of {method} is not a JSON object")
    result_type = result.get("resultType", COMPLETE)
    if result_type == COMPLETE:
        return Complete(result)
    if result_type != INPUT_REQUIRED:
        raise ProtocolError(f"the result of {method} has an unknown resultType {result_type!r}")
    if method not in MRTR_METHODS:
        raise ProtocolError(f"the server answered {method} with input_required, which only "
                            f"{', '.join(MRTR_METHODS)} may carry")
    return _read_input_required(method, result)


def _read_input_required(method: str, result: dict[str, Any]) -> InputRequired:
    requests = result.get(INPUT_REQUESTS)
    state = result.get(REQUEST_STATE)
    if requests is None and state is None:
        raise ProtocolError(f"the input_required result of {method} has neither inputRequests "
                            "nor requestState")
    if state is not None and not isinstance(state, str):
        raise ProtocolError(f"requestState is a JSON {type(state).__name__}, not a string")
    if requests is None:
        requests = {}
    if not isinstance(requests, dict):
        raise ProtocolError("inputRequests is not a JSON object")
    for key, request in requests.items():
        problem = _problem_of(request)
        if problem:
            raise ProtocolError(f"input request {key!r} {problem}")
    return InputRequired(requests, state)


def input_request_problem(request: Any) -> str | None:
    """Why an `inputRequests` entry cannot be answered as asked, or None when it can."""
    if not isinstance(request, dict):
        return "is not a JSON object"
    method, params = request.get("method"), request.get("params", {})
    if method not in INPUT_METHODS:
        return f"asks {method!r}, which is not one of {', '.join(INPUT_METHODS)}"
    if not isinstance(params, dict):
        return "has params that are not a JSON object"
    if method == "elicitation/create":
        return _elicitation_problem(params)
    if method == "sampling/createMessage" and not isinstance(params.get("messages"), list):
        return "is a sampling request without a messages list"
    return None


_problem_of = PerValue(input_request_problem)
"""`input_request_problem`, worked out once for a question asked again as it was."""


def _elicitation_problem(params: dict[str, Any]) -> str | None:
    mode = params.get("mode", "form")
    if not isinstance(params.get("message"), str):
        return "is an elicitation without a message"
    if mode == "form":
        return _form_problem(params.get("requestedSchema"))
    if mode == "url":
        return None if isinstance(params.get("url"), str) else "is a URL elicitation without a url"
    return f"is an elicitation of unknown mode {mode!r}"


def _form_problem(schema: Any) -> str | None:
    """Why a form's requestedSchema cannot be read as an object of fields, or None."""
    if not isinstance(schema, dict):
        return "is a form without a requestedSchema"
    properties, required = schema.get("properties", {}), schema.get("required", [])
    if not isinstance(properties, dict) or not all(isinstance(field, dict) for field in properties.values()):
        return "is a form whose requestedSchema.properties is not an object of field schemas"
    if not isinstance(required, list) or not all(isinstance(name, str) for name in required):
        return "is a form whose requestedSchema.required is not a list of field names"
    return None


def required_capability(request: dict[str, Any]) -> str:
    """The dotted client capability an input request needs (params that are not an object ask for none in particular)."""
    method, params = request["method"], request.get("params")
    params = params if isinstance(params, dict) else {}
    if method == "elicitation/create":
        return f"elicitation.{params.get('mode', 'form')}"
    if method == "sampling/createMessage":
        wants_tools = "tools" in params or "toolChoice" in params
        return "sampling.tools" if wants_tools else "sampling"
    return "roots"


def with_state(params: dict[str, Any], state: Any) -> dict[str, Any]:
    """`params` with `requestState` replaced by `state` (left out when None), the rest as it was: a
    probe's retry with another state than the one received."""
    sent = {key: value for key, value in params.items() if key != REQUEST_STATE}
    return {**sent, REQUEST_STATE: state} if state is not None else sent


def retry_params(
    original: dict[str, Any], responses: dict[str, Any] | None, state: str | None
) -> dict[str, Any]:
    """The original params plus `inputResponses` and the `requestState` exactly as received."""
    params = dict(original)
    params.pop(INPUT_RESPONSES, None)
    params.pop(REQUEST_STATE, None)
    if responses is not None:
        params[INPUT_RESPONSES] = responses
    if state is not None:
        params[REQUEST_STATE] = state
    return params
