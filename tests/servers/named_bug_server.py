"""A small MCP 2026-07-28 server, standard library only, whose one prompt and one resource each ask
two form questions through input_required, written from the spec's sentences on what a
conversation owes; `--bug NAME` (repeatable) breaks one of them, and without it the server keeps
them all.

    python named_bug_server.py [--bug deaf|lasting|twice|principal|shared|capless]... [--expiry SECONDS]
                               [--once] [stdio | http]

- prompt `greeting` asks a name, then a tone, and greets with both; resource `vault://report`
  asks an account, then a period, and reads that account's report. Each question's field is
  required and has a default.
- `deaf` (the elicitation page: "Servers should handle each state appropriately", a decline or a
  cancel is not an accept): a declined or cancelled question is taken as its default. Without it,
  a refusal ends the prompt with a message saying nothing was chosen, and the read with an error.
- `lasting` (the MRTR page: "To prevent replay, servers SHOULD include ... a short expiry (TTL)"):
  the requestState holds no time and no nonce, the same bytes on every run. Without it, each state
  carries the time it was issued and a nonce.
- `--expiry SECONDS`: a state older than that is refused ("rejecting state presented after it
  lapses"); without it a state is taken at any age (the bug the flag's absence is).
- `--once` (the MRTR page: "Servers for which a given requestState must be consumed at most once
  ... MUST enforce that invariant server-side"): a state that completed a request is refused
  after. `twice` (the bug): every completion acts again, and its result counts the times.
  With neither, a state completes again with the same result.
- `principal` (the MRTR page: the server SHOULD bind the state to the authenticated principal):
  the state names the user it was issued to and, with this bug, the name is not compared.
- `shared` (servers keep no state between requests; a conversation's answers travel in its
  requestState): round 1's answer is kept in a global until round 2 is answered, so two
  conversations at once mix.
- `capless` (the schema's MissingRequiredClientCapabilityError: "Returned when processing a request
  requires a capability the client did not declare in `clientCapabilities`"): the questions are
  asked whatever the client declared. Without it, a request whose next question is a form, from a
  client that declared no form elicitation, is refused with -32021 naming `elicitation.form`.

Every state is sealed (base64url JSON, a dot, an HMAC) and names its step; over HTTP the caller is
the bearer token's name (tests/servers/stdlib_mcp.py); the report read is the state's user's.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import sys
import time
from typing import Any, NamedTuple

import stdlib_mcp
from stdlib_mcp import CACHE, Refused

INFO = {"name": "named-bug", "version": "1.0"}
KEY = secrets.token_bytes(32)
BUGS: set[str] = set()
RULES: dict[str, Any] = {"expiry": None, "once": False}
USED: set[str] = set()
"""`--once`: the states that completed a request."""
SHARED: dict[str, Any] = {}
"""`--bug shared`: round 1's last answer, kept between requests (the bug)."""
COMPLETIONS = {"count": 0}
REFUSED = {"decline": "declined", "cancel": "cancelled"}
PROMPT = {"name": "greeting", "description": "Greets whoever answers, in the tone they choose."}
RESOURCE = {"uri": "vault://report", "name": "report", "mimeType": "text/plain"}
QUESTIONS: dict[str, list[tuple[str, str, dict[str, Any]]]] = {
    "prompts/get": [("name", "Who is to be greeted?", {"type": "string", "default": "Ada"}),
                    ("tone", "In which tone?", {"type": "string", "enum": ["formal", "casual"], "default": "formal"})],
    "resources/read": [("account", "Which account?", {"type": "string", "enum": ["savings", "current"],
                                                       "default": "savings"}),
                       ("period", "Which period?", {"type": "string", "enum": ["2026-10", "2026-11"],
                                                    "default": "2026-11"})]}


def seal(data: dict[str, Any]) -> str:
    if "lasting" not in BUGS:
        data = {**data, "at": time.monotonic(), "nonce": secrets.token_hex(8)}
    payload = base64.urlsafe_b64encode(json.dumps(data, sort_keys=True).encode()).decode()
    return payload + "." + hmac.new(KEY, payload.encode(), hashlib.sha256).hexdigest()


def unseal(state: Any, method: str, caller: str) -> dict[str, Any]:
    """The state's data, verified: its tag, its request, its user and its age."""
    payload, _, tag = str(state).rpartition(".")
    if not hmac.compare_digest(tag, hmac.new(KEY, payload.encode(), hashlib.sha256).hexdigest()):
        raise Refused(-32602, "requestState failed verification")
    data: dict[str, Any] = json.loads(base64.urlsafe_b64decode(payload))
    if data.get("method") != method:
        raise Refused(-32602, "requestState was issued for another request")
    if data.get("user") != caller and "principal" not in BUGS:
        raise Refused(-32602, "requestState was issued to another user")
    if RULES["expiry"] is not None and time.monotonic() - data.get("at", 0.0) > RULES["expiry"]:
        raise Refused(-32602, "requestState has expired")
    if RULES["once"] and state in USED:
        raise Refused(-32602, "requestState was already used")
    return data


def asking(method: str, step: int, data: dict[str, Any], forms: bool) -> dict[str, Any]:
    """Step `step`'s question; `forms`: whether the request declared form elicitation."""
    if not forms and "capless" not in BUGS:
        raise Refused(-32021, "Missing required client capability: elicitation.form",
                      {"requiredCapabilities": {"elicitation": {"form": {}}}})
    key, message, field = QUESTIONS[method][step - 1]
    request = {"method": "elicitation/create", "params": {"mode": "form", "message": message, "requestedSchema": {
        "type": "object", "properties": {key: field}, "required": [key]}}}
    return {"resultType": "input_required", "inputRequests": {key: request},
            "requestState": seal({**data, "method": method, "step": step}), "_meta": {stdlib_mcp.SERVER_INFO: INFO}}


def answered(params: dict[str, Any], method: str, step: int) -> tuple[str, Any] | None:
    """The answer to step `step`'s question: ("accept", value), ("decline" or "cancel", the
    default when `deaf`, else None); None when it was not answered."""
    key, _, field = QUESTIONS[method][step - 1]
    answer = (params.get("inputResponses") or {}).get(key)
    if not isinstance(answer, dict) or answer.get("action") not in ("accept", "decline", "cancel"):
        return None
    if answer["action"] == "accept":
        return "accept", (answer.get("content") or {}).get(key)
    return ("accept", field["default"]) if "deaf" in BUGS else (answer["action"], None)


class Ended(NamedTuple):
    """A conversation that asks nothing more: how its questions were answered, and the answers."""

    action: str
    user: str
    first: Any = None
    second: Any = None


def conversation(method: str, params: dict[str, Any], caller: str, forms: bool) -> Ended | dict[str, Any]:
    """How the conversation ended, or the round to send now (an input_required result). The state
    says which step it is at; the answer looked for is that step's."""
    state = params.get("requestState")
    if state is None:
        return asking(method, 1, {"user": caller}, forms)
    data = unseal(state, method, caller)
    step = data.get("step")
    kept: dict[str, Any] = {key: data[key] for key in ("user", "first") if key in data}
    given = answered(params, method, step if step in (1, 2) else 1)
    if given is None:
        return asking(method, step if step in (1, 2) else 1, kept, forms)
    if given[0] != "accept":
        return Ended(given[0], data["user"])
    if step == 1:
        if "shared" in BUGS:
            SHARED[method] = given[1]  # the bug: one slot for every conversation
            return asking(method, 2, {"user": data["user"]}, forms)
        return asking(method, 2, {"user": data["user"], "first": given[1]}, forms)
    if RULES["once"]:
        USED.add(state)
    return Ended("accept", data["user"], SHARED.get(method) if "shared" in BUGS else data.get("first"), given[1])


def acted() -> str:
    """`--bug twice`: the times a completion acted, said in the result."""
    if "twice" not in BUGS:
        return ""
    COMPLETIONS["count"] += 1
    return f" (served {COMPLETIONS['count']} times)"


def get_prompt(params: dict[str, Any], caller: str, forms: bool) -> dict[str, Any]:
    if params.get("name") != PROMPT["name"]:
        raise Refused(-32602, f"no prompt {params.get('name')!r}")
    ended = conversation("prompts/get", params, caller, forms)
    if isinstance(ended, dict):
        return ended
    words = f"Nobody to greet: the question was {REFUSED[ended.action]}" if ended.action != "accept" else \
        f"Write a {ended.second} greeting for {ended.first}{acted()}."
    return stdlib_mcp.complete(INFO, {"description": "A greeting",
                                      "messages": [{"role": "user", "content": {"type": "text", "text": words}}]})


def read(params: dict[str, Any], caller: str, forms: bool) -> dict[str, Any]:
    if params.get("uri") != RESOURCE["uri"]:
        raise Refused(-32602, f"no resource {params.get('uri')!r}")
    ended = conversation("resources/read", params, caller, forms)
    if isinstance(ended, dict):
        return ended
    if ended.action != "accept":
        raise Refused(-32600, f"nothing read: the question was {REFUSED[ended.action]}")
    text = f"Report of {ended.user}'s {ended.first} account for {ended.second}{acted()}"
    return stdlib_mcp.complete(INFO, {"contents": [{"uri": RESOURCE["uri"], "text": text}], **CACHE})


def respond(message: dict[str, Any], caller: str) -> dict[str, Any]:
    method, params = message.get("method"), message.get("params") or {}
    elicitation = stdlib_mcp.declared(params).get("elicitation")
    forms = isinstance(elicitation, dict) and (not elicitation or "form" in elicitation)
    if method == "server/discover":
        return stdlib_mcp.discover(INFO, {"prompts": {}, "resources": {}})
    lists: dict[str, dict[str, Any]] = {"prompts/list": {"prompts": [PROMPT]},
                                        "resources/list": {"resources": [RESOURCE]},
                                        "resources/templates/list": {"resourceTemplates": []}}
    if method in lists:
        return stdlib_mcp.complete(INFO, {**lists[method], **CACHE})
    if method == "prompts/get":
        return get_prompt(params, caller, forms)
    if method == "resources/read":
        return read(params, caller, forms)
    raise Refused(-32601, f"Method not found: {method}")


def main(argv: list[str]) -> None:
    bugs, words = stdlib_mcp.flags(argv[1:], "--bug")
    BUGS.update(bugs)
    expiry, words = stdlib_mcp.flags(words, "--expiry")
    RULES["expiry"] = float(next(iter(expiry))) if expiry else None
    RULES["once"] = "--once" in words
    stdlib_mcp.serve(respond, [word for word in words if word != "--once"])


if __name__ == "__main__":
    main(sys.argv)
