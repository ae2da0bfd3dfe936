"""A small MCP server (2026-07-28, stdio) whose one tool asks a question through MRTR.

    mrtr call greet -a greeting=Hello --answer name.name=Ada -- python examples/my_server.py
    mrtr check --tool greet --answer name.name=Ada -- python examples/my_server.py

`greet` takes a greeting; it needs the user's name, so its first answer is `input_required` with
one form question (`name`) and a `requestState` that carries the greeting. The retry brings the
answer and the state back, and the result greets the user. Standard library only, one request
per line on stdin, one response per line on stdout: the whole protocol, small enough to read,
and it passes `mrtr check`: no fail. Its state is base64 JSON anyone can read (check's
`state-readable` says so), yet a forged one is refused: the retry's state must match its
arguments. examples/weak_server.py shows what check says of a server that trusts its state.

Its warns in `mrtr check`: `state-never-expires` (the state is the greeting alone, the same bytes on every run:
nothing in it can expire; a real server seals a time or a nonce in with it).
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Callable
from typing import Any

VERSION = "2026-07-28"
INFO = {"io.modelcontextprotocol/serverInfo": {"name": "my-server", "version": "1.0"}}
CACHE = {"ttlMs": 0, "cacheScope": "private"}
GREET = {"name": "greet", "description": "Greets the user by name, asking for it first.",
         "inputSchema": {"type": "object", "properties": {"greeting": {"type": "string"}},
                         "required": ["greeting"]}}
ASK_NAME = {"method": "elicitation/create", "params": {
    "mode": "form", "message": "What is your name?",
    "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}


class Refused(Exception):
    """A request the server answers with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.error = {"code": code, "message": message, **({"data": data} if data else {})}


def complete(result: dict[str, Any]) -> dict[str, Any]:
    return {"resultType": "complete", **result, "_meta": INFO}


def check_meta(params: dict[str, Any]) -> dict[str, Any]:
    """Every request carries `_meta` with the protocol version and the client's capabilities."""
    meta = params.get("_meta")
    if not isinstance(meta, dict) or not isinstance(meta.get("io.modelcontextprotocol/clientCapabilities"), dict):
        raise Refused(-32602, "Invalid params: _meta needs the protocol version and the client capabilities")
    version = meta.get("io.modelcontextprotocol/protocolVersion")
    if version is None:
        raise Refused(-32602, "Invalid params: _meta needs the protocol version")
    if version != VERSION:
        raise Refused(-32022, "Unsupported protocol version", {"supported": [VERSION], "requested": version})
    return meta["io.modelcontextprotocol/clientCapabilities"]


def asks_forms(capabilities: dict[str, Any]) -> bool:
    """Whether the client can answer a form: `elicitation` declared, with `form` among its modes
    (`elicitation: {}` alone means forms, as before modes were named)."""
    elicitation = capabilities.get("elicitation")
    return isinstance(elicitation, dict) and (not elicitation or "form" in elicitation)


def greet(params: dict[str, Any], capabilities: dict[str, Any]) -> dict[str, Any]:
    """Round 1 asks for the name; the retry, with the answer and the state, greets."""
    greeting = str(params["arguments"]["greeting"])
    answer = (params.get("inputResponses") or {}).get("name")
    if answer is None:
        if not asks_forms(capabilities):
            raise Refused(-32021, "Missing required client capability: elicitation.form",
                          {"requiredCapabilities": {"elicitation": {"form": {}}}})
        return {"resultType": "input_required", "inputRequests": {"name": ASK_NAME},
                "requestState": seal(greeting), "_meta": INFO}
    if opened(params.get("requestState")) != greeting:
        raise Refused(-32602, "Invalid or expired requestState")
    if answer["action"] != "accept":
        return complete({"content": [{"type": "text", "text": "No name, no greeting."}], "isError": True})
    return complete({"content": [{"type": "text", "text": f"{greeting}, {answer['content']['name']}!"}]})


def seal(greeting: str) -> str:
    """The state the retry brings back. A real server signs or encrypts it; here it is only encoded."""
    return base64.urlsafe_b64encode(json.dumps({"greeting": greeting}).encode()).decode()


def opened(state: Any) -> str | None:
    try:
        return str(json.loads(base64.urlsafe_b64decode(state))["greeting"])
    except (ValueError, TypeError, KeyError):
        return None


Tool = tuple[dict[str, Any], Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]]
"""A tool as tools/list shows it, and the function that answers its tools/call (params, capabilities)."""
TOOLS: dict[str, Tool] = {"greet": (GREET, greet)}


def result_of(method: str, params: dict[str, Any], tools: dict[str, Tool]) -> dict[str, Any]:
    capabilities = check_meta(params)
    if method == "server/discover":
        return complete({"supportedVersions": [VERSION], "capabilities": {"tools": {}}, **CACHE})
    if method == "tools/list":
        return complete({"tools": [listed for listed, _ in tools.values()], **CACHE})
    if method == "tools/call" and params.get("name") in tools:
        return tools[params["name"]][1](params, capabilities)
    if method == "tools/call":
        raise Refused(-32602, f"Unknown tool: {params.get('name')}")
    raise Refused(-32601, f"Method not found: {method}")


def respond(message: dict[str, Any], tools: dict[str, Tool]) -> dict[str, Any]:
    try:
        return {"jsonrpc": "2.0", "id": message["id"],
                "result": result_of(message["method"], message["params"], tools)}
    except Refused as refused:
        return {"jsonrpc": "2.0", "id": message["id"], "error": refused.error}
    except Exception as bad:  # noqa: BLE001 - a malformed request is the client's mistake: say so, stay up
        return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32602, "message": f"Invalid params: {bad!r}"}}


def main(tools: dict[str, Tool] = TOOLS) -> None:
    """One request a line on stdin, its response a line on stdout, until stdin ends."""
    for line in sys.stdin:
        message = json.loads(line)
        if "id" in message and "method" in message:  # notifications need no answer
            sys.stdout.write(json.dumps(respond(message, tools)) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
