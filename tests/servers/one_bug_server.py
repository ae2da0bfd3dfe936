"""A small MCP 2026-07-28 server, standard library only, written from four sentences of the spec,
each of which `--bug NAME` breaks (repeatable); without `--bug` it keeps all four.

    python one_bug_server.py [--bug principal|capability|caching|shared]... [stdio | http]

Over HTTP it serves Streamable HTTP with JSON responses on an ephemeral port of 127.0.0.1 and prints
`listening on http://127.0.0.1:PORT/mcp` to stderr; the caller is the bearer token's name
(`Authorization: Bearer alice-token` is alice), over stdio always `local`.

- `statement` (the MRTR page: requestState "MUST" be treated as attacker-controlled input, and the
  server SHOULD bind it to the authenticated principal): asks for a month, then shows the caller's
  account (a caller with no account gets a tool error). Its state is signed and names the user it
  was issued to. `--bug principal`: the
  signature is checked, the user is not, and the statement shown is the state's user's.
- `export` (a server that cannot fulfil a request because the client did not declare a capability
  MUST return -32021 with data.requiredCapabilities, over HTTP with status 400): asks a form
  question (the format), then a sampling question (a summary). `--bug capability`: an undeclared
  capability gets a tool result with isError instead.
- resource `notes://draft` (the caching page: interim results "are not cacheable and carry no
  caching hints"): asks for a passphrase before it is read. `--bug caching`: its input_required
  result carries ttlMs and cacheScope.
- `pizza` (servers keep no state between requests; each conversation's answers travel in its
  requestState): asks the size, then the topping. `--bug shared`: the size is kept in a global
  between the two rounds instead, so two conversations at once mix.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import sys
from typing import Any

import stdlib_mcp
from stdlib_mcp import CACHE, Refused

SERVER_INFO = {"name": "one-bug", "version": "1.0"}
KEY = secrets.token_bytes(32)
"""Signs every requestState; made at start-up (one process serves a whole test)."""
BUGS: set[str] = set()
SHARED: dict[str, Any] = {}
"""`--bug shared`: the last size asked, kept between requests (the bug)."""
ACCOUNTS = {"alice": "balance 1200 EUR", "bob": "balance 15 EUR", "local": "balance 7 EUR"}
MONTH = {"month": {"type": "string", "enum": ["2026-10", "2026-11"]}}
SIZE = {"size": {"type": "string", "enum": ["small", "medium", "large"]}}
TOPPING = {"topping": {"type": "string", "enum": ["cheese", "mushroom", "olive"]}}
FORMAT = {"format": {"type": "string", "enum": ["csv", "json"]}}
PASSPHRASE = {"passphrase": {"type": "string"}}
TOOLS = [{"name": name, "description": description, "inputSchema": {"type": "object", "properties": {}}}
         for name, description in (("statement", "The caller's account statement for a month."),
                                    ("export", "Exports the data, with a summary."),
                                    ("pizza", "Orders a pizza."))]
RESOURCES = [{"uri": "notes://draft", "name": "draft", "mimeType": "text/plain"}]


def seal(data: dict[str, Any]) -> str:
    payload = base64.urlsafe_b64encode(json.dumps(data).encode()).decode()
    return payload + "." + hmac.new(KEY, payload.encode(), hashlib.sha256).hexdigest()


def unseal(state: Any) -> dict[str, Any]:
    payload, _, tag = str(state).rpartition(".")
    if not hmac.compare_digest(tag, hmac.new(KEY, payload.encode(), hashlib.sha256).hexdigest()):
        raise Refused(-32602, "requestState failed verification")
    data: dict[str, Any] = json.loads(base64.urlsafe_b64decode(payload))
    return data


def complete(result: dict[str, Any]) -> dict[str, Any]:
    return stdlib_mcp.complete(SERVER_INFO, result)


def text(words: str, error: bool = False) -> dict[str, Any]:
    return complete({"content": [{"type": "text", "text": words}], **({"isError": True} if error else {})})


def form(message: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {"method": "elicitation/create", "params": {"mode": "form", "message": message, "requestedSchema": {
        "type": "object", "properties": properties, "required": list(properties)}}}


def asking(key: str, request: dict[str, Any], state: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"resultType": "input_required", "inputRequests": {key: request}, "requestState": seal(state), **extra}


def need(declared: dict[str, Any], capability: str) -> dict[str, Any] | None:
    """None when the client declared `capability` (`elicitation.form`, `sampling`); else what the
    server answers: -32021 naming it, or with `--bug capability` a tool error."""
    top, _, mode = capability.partition(".")
    entry = declared.get(top)
    if isinstance(entry, dict) and (not mode or not entry or mode in entry):
        return None
    if "capability" in BUGS:
        return text(f"this client cannot answer: {capability}", error=True)
    raise Refused(-32021, f"Missing required client capability: {capability}",
                  {"requiredCapabilities": {top: {mode: {}} if mode else {}}})


def answered(params: dict[str, Any], key: str) -> Any:
    answer = (params.get("inputResponses") or {}).get(key)
    if not isinstance(answer, dict) or answer.get("action") != "accept":
        return None
    return (answer.get("content") or {}).get(key)


def statement(params: dict[str, Any], caller: str, declared: dict[str, Any]) -> dict[str, Any]:
    if caller not in ACCOUNTS:
        return text(f"no account for {caller}", error=True)
    month = answered(params, "month")
    if params.get("requestState") is None or month is None:
        return need(declared, "elicitation.form") or asking("month", form("Which month?", MONTH), {"user": caller})
    user = unseal(params["requestState"])["user"]
    if user != caller and "principal" not in BUGS:
        raise Refused(-32602, "requestState was issued to another user")
    return text(f"Statement of {user} for {month}: {ACCOUNTS.get(user, 'no account')}")


def export(params: dict[str, Any], caller: str, declared: dict[str, Any]) -> dict[str, Any]:
    state = unseal(params["requestState"]) if params.get("requestState") is not None else {}
    chosen = answered(params, "format") if "format" not in state else state["format"]
    if chosen is None:
        return need(declared, "elicitation.form") or asking("format", form("Which format?", FORMAT), {"step": 1})
    summary = (params.get("inputResponses") or {}).get("summary")
    if not isinstance(summary, dict):
        sampling = {"method": "sampling/createMessage", "params": {"maxTokens": 50, "messages": [
            {"role": "user", "content": {"type": "text", "text": "Summarise the export in one line."}}]}}
        return need(declared, "sampling") or asking("summary", sampling, {"format": chosen})
    return text(f"Exported as {chosen}: {summary.get('content', {}).get('text', '')}")


def pizza(params: dict[str, Any], caller: str, declared: dict[str, Any]) -> dict[str, Any]:
    state = unseal(params["requestState"]) if params.get("requestState") is not None else {}
    size, topping = answered(params, "size"), answered(params, "topping")
    if not state and size is None:
        return need(declared, "elicitation.form") or asking("size", form("Which size?", SIZE), {"step": 1})
    if topping is None:
        if "shared" in BUGS:
            SHARED["size"] = size  # the bug: one slot for every conversation
            return asking("topping", form("Which topping?", TOPPING), {"step": 2})
        return asking("topping", form("Which topping?", TOPPING), {"step": 2, "size": size})
    chosen = SHARED.get("size") if "shared" in BUGS else state.get("size")
    return text(f"A {chosen} pizza with {topping}")


def read_draft(params: dict[str, Any], declared: dict[str, Any]) -> dict[str, Any]:
    if params.get("uri") != "notes://draft":
        raise Refused(-32602, f"no resource {params.get('uri')!r}")
    if answered(params, "passphrase") is None:
        hints = CACHE if "caching" in BUGS else {}
        return need(declared, "elicitation.form") or asking(
            "passphrase", form("The passphrase?", PASSPHRASE), {"step": 1}, **hints)
    return complete({"contents": [{"uri": "notes://draft", "text": "the draft"}], **CACHE})


CALLS = {"statement": statement, "export": export, "pizza": pizza}


def respond(message: dict[str, Any], caller: str) -> dict[str, Any]:
    """The result of one request; `Refused` for an error."""
    method, params = message.get("method"), message.get("params") or {}
    declared = stdlib_mcp.declared(params)
    if method == "server/discover":
        return stdlib_mcp.discover(SERVER_INFO, {"tools": {}, "resources": {}})
    if method == "tools/list":
        return complete({"tools": TOOLS, **CACHE})
    if method == "resources/list":
        return complete({"resources": RESOURCES, **CACHE})
    if method == "resources/templates/list":
        return complete({"resourceTemplates": [], **CACHE})
    if method == "resources/read":
        return read_draft(params, declared)
    if method == "tools/call" and params.get("name") in CALLS:
        return CALLS[params["name"]](params, caller, declared)
    if method == "tools/call":
        raise Refused(-32602, f"no tool {params.get('name')!r}")
    raise Refused(-32601, f"Method not found: {method}")


def main(argv: list[str]) -> None:
    bugs, words = stdlib_mcp.flags(argv[1:], "--bug")
    BUGS.update(bugs)
    stdlib_mcp.serve(respond, words)


if __name__ == "__main__":
    main(sys.argv)
