"""What a client sent, checked against what it was asked: the pure rules `ClientJudge` applies.

A retry is checked against the `input_required` result it answers (`Asked`): `requestState`
echoed exactly, a new id, every asked key answered and no other, each answer fitting its question,
and no answer to a question the client's own capabilities say it cannot take. A request over HTTP
is checked against its headers. `requestState` is compared as an opaque string, never read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, NamedTuple

from mrtr_cli.forms import validation
from mrtr_cli.protocol import headers as header_rules
from mrtr_cli.protocol import meta
from mrtr_cli.protocol.lint_rules import SPEC, Finding, finding
from mrtr_cli.protocol.mrtr import INPUT_METHODS, INPUT_RESPONSES, REQUEST_STATE, required_capability
from mrtr_cli.text import safe_line

ELICITATION_ACTIONS = ("accept", "decline", "cancel")
CAPABILITY_PAGES = {"elicitation": "client/elicitation#capabilities", "sampling": "client/sampling#capabilities",
                    "roots": "client/roots#capabilities"}
"""The page that tells a client to declare each top-level capability."""


class Asked(NamedTuple):
    """An `input_required` result, as the retry must answer it: the id of the request it answered,
    the questions (key -> request object), and the state (None when the result had none)."""

    request_id: Any
    questions: Mapping[str, Any]
    state: Any


def shown(value: Any) -> str:
    """A value a client sent, short and safe for a finding's message (a big value is never repr'd whole)."""
    if isinstance(value, str):
        return safe_line(repr(value[:80]), 90)
    if value is None or isinstance(value, (bool, int, float)):
        return safe_line(repr(value), 80)
    return f"a JSON {type(value).__name__}"


def check_retry(asked: Asked, retry_id: Any, params: Mapping[str, Any]) -> list[Finding]:
    """A retry against the result it answers."""
    found = check_state(asked.state, params)
    if retry_id == asked.request_id and type(retry_id) is type(asked.request_id):
        found.append(finding("retry-id-reused", f"the retry reuses id {shown(retry_id)}, the id of the request it "
                                                "retries; a retry is a new request with a new id"))
    responses = params.get(INPUT_RESPONSES)
    responses = responses if isinstance(responses, dict) else {}
    found += check_keys(asked.questions, responses)
    declared = declared_capabilities(params)
    for key in sorted(set(asked.questions) & set(responses)):
        found += check_answer(key, asked.questions[key], responses[key], declared)
    return found


def check_state(expected: Any, params: Mapping[str, Any]) -> list[Finding]:
    """`requestState` echoed exactly when one was given, and absent when none was."""
    if REQUEST_STATE not in params:
        return [] if expected is None else [finding(
            "request-state-dropped", "the retry has no requestState; the input_required result had one, and the "
                                     "client must echo it exactly")]
    sent = params[REQUEST_STATE]
    if expected is None:
        return [finding("request-state-invented", "the retry carries a requestState, but the input_required result "
                                                  "it answers had none")]
    if type(sent) is not type(expected) or sent != expected:
        return [finding("request-state-altered", f"the retry's requestState ({_size(sent)}) is not the one "
                                                 f"received ({_size(expected)}); it must be echoed byte for byte")]
    return []


def _size(state: Any) -> str:
    return f"{len(state)} characters" if isinstance(state, str) else f"a JSON {type(state).__name__}"


def check_keys(questions: Mapping[str, Any], responses: Mapping[str, Any]) -> list[Finding]:
    """Every asked key answered; no key answered that was not asked."""
    found = []
    missing = [key for key in questions if key not in responses]
    unasked = [key for key in responses if key not in questions]
    if missing:
        found.append(finding("input-responses-missing", f"inputResponses lacks {_keys(missing)}, which the server "
                                                        "asked"))
    if unasked:
        found.append(finding("input-responses-unasked", f"inputResponses has {_keys(unasked)}, which the server did "
                                                        "not ask"))
    return found


def _keys(keys: list[Any]) -> str:
    listed = ", ".join(shown(key) for key in keys[:5])
    return listed + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")


def check_answer(key: str, question: Any, answer: Any, declared: Any) -> list[Finding]:
    """One answer: a capability the client declared, and a shape that fits the question."""
    if not isinstance(question, dict) or question.get("method") not in INPUT_METHODS:
        return []
    found = check_capability(key, question, declared)
    if question["method"] == "elicitation/create":
        found += check_elicitation_answer(key, question.get("params"), answer)
    return found


def declared_capabilities(params: Mapping[str, Any]) -> Any:
    """The clientCapabilities a request's `_meta` declares (None when it declares none)."""
    request_meta = params.get("_meta")
    return request_meta.get(meta.CLIENT_CAPABILITIES) if isinstance(request_meta, dict) else None


def declares(declared: Any, capability: str) -> bool:
    """Whether a capabilities object declares a dotted capability (`elicitation.url`, `sampling.tools`).
    An empty `elicitation` object declares form mode alone."""
    top, _, sub = capability.partition(".")
    if not isinstance(declared, dict) or not isinstance(declared.get(top), dict):
        return False
    inner = declared[top]
    if top == "elicitation" and sub == "form":
        return not inner or "form" in inner
    return sub == "" or sub in inner


def check_capability(key: str, question: dict[str, Any], declared: Any) -> list[Finding]:
    """An answer to a question whose capability the client's own request did not declare."""
    capability = required_capability(question)
    if declares(declared, capability):
        return []
    top = capability.partition(".")[0]
    made = finding("answer-without-capability", f"the client answered {shown(key)} ({question['method']}, which "
                                                f"needs {capability}) but its clientCapabilities do not declare "
                                                f"{capability}")
    return [replace(made, page=SPEC + CAPABILITY_PAGES.get(top, "basic/index#meta"))]


def check_elicitation_answer(key: str, params: Any, answer: Any) -> list[Finding]:
    """An ElicitResult: one of the three actions; accepted form content valid against the schema."""
    action = answer.get("action") if isinstance(answer, dict) else None
    if action not in ELICITATION_ACTIONS:
        return [_outside(key, f"its action is {shown(action)}, not one of {', '.join(ELICITATION_ACTIONS)}")]
    params = params if isinstance(params, dict) else {}
    schema = params.get("requestedSchema")
    if action != "accept" or params.get("mode", "form") != "form" or not isinstance(schema, dict):
        return []
    content = answer.get("content")
    if not isinstance(content, dict):
        return [_outside(key, "it accepts a form without content")]
    problems = validation.problems(content, schema)
    return [_outside(key, "; ".join(problems[:3]))] if problems else []


def _outside(key: str, why: str) -> Finding:
    return finding("answer-outside-schema", f"the answer to {shown(key)} does not fit what was asked: {why}")


def check_headers(body_method: str, params: Mapping[str, Any], headers: Mapping[str, str]) -> list[Finding]:
    """A 2026-07-28 request over HTTP: MCP-Protocol-Version, Mcp-Method and Mcp-Name as the body has them."""
    version = _body_version(params)
    if version is None or not headers:
        return []
    method = safe_line(body_method, 80)
    lower = {name.lower(): value for name, value in headers.items()}
    found = []
    sent_version = lower.get(header_rules.PROTOCOL_VERSION_HEADER.lower())
    if sent_version != version:
        found.append(finding("protocol-version-header", f"{method}: MCP-Protocol-Version is {_header(sent_version)}"
                                                        f" but the body's _meta says {shown(version)}"))
    found += _standard_header(method, header_rules.METHOD_HEADER, lower, body_method)
    field = header_rules.NAMED_METHODS.get(body_method)
    if field is not None and isinstance(params.get(field), str):
        found += _standard_header(method, header_rules.NAME_HEADER, lower, params[field])
    return found


def _body_version(params: Mapping[str, Any]) -> str | None:
    request_meta = params.get("_meta")
    version = request_meta.get(meta.PROTOCOL_VERSION) if isinstance(request_meta, dict) else None
    return version if isinstance(version, str) else None


def _standard_header(method: str, name: str, lower: Mapping[str, str], body_value: str) -> list[Finding]:
    sent = lower.get(name.lower())
    try:
        decoded = header_rules.decode_value(sent) if sent is not None else None
    except ValueError:
        decoded = None
    if decoded == body_value:
        return []
    return [finding("header-mismatch", f"{method}: {name} is {_header(sent)} but the body says {shown(body_value)}")]


def _header(value: str | None) -> str:
    return "absent" if value is None else shown(value)
