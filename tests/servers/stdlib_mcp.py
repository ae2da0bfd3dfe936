"""What the small standard-library MCP 2026-07-28 servers of tests/servers/ share: the JSON-RPC
envelope, the `_meta` every request must carry, server/discover's result, and the loops that serve
one over stdio (a line a message) or over Streamable HTTP with JSON responses.

Each server keeps only its own rules: a `respond(message, caller)` that returns a request's result
or raises `Refused`. Over HTTP the caller is the bearer token's name (`Authorization: Bearer
alice-token` is alice, none is anonymous); over stdio it is always `local`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

VERSION = "2026-07-28"
CACHE = {"ttlMs": 0, "cacheScope": "private"}
"""The caching hints of every complete result that must carry them (lists, discover, reads)."""
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"

Respond = Callable[[dict[str, Any], str], dict[str, Any]]
"""A server's rules: the result of one request from `caller`; `Refused` for an error."""


class Refused(Exception):
    """A JSON-RPC error to answer with: code, message, data."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data

    @property
    def error(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **({"data": self.data} if self.data is not None else {})}


def complete(info: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """A complete result naming the server (`info`: its name and version)."""
    return {"resultType": "complete", "_meta": {SERVER_INFO: info}, **result}


def discover(info: dict[str, Any], capabilities: dict[str, Any]) -> dict[str, Any]:
    return complete(info, {"supportedVersions": [VERSION], "capabilities": capabilities, **CACHE})


def declared(params: dict[str, Any]) -> dict[str, Any]:
    """The client capabilities a request's `_meta` declares: every request carries `_meta` with the
    protocol version and them (basic/index): `Refused` -32602 when it does not, -32022 naming the
    versions spoken for a version this server does not speak (basic/versioning)."""
    meta = params.get("_meta")
    if not isinstance(meta, dict) or not isinstance(meta.get(CLIENT_CAPABILITIES), dict) \
            or not isinstance(meta.get(PROTOCOL_VERSION), str):
        raise Refused(-32602, f"Invalid params: _meta must carry {PROTOCOL_VERSION} and {CLIENT_CAPABILITIES}")
    if meta[PROTOCOL_VERSION] != VERSION:
        raise Refused(-32022, "Unsupported protocol version",
                      {"supported": [VERSION], "requested": meta[PROTOCOL_VERSION]})
    capabilities: dict[str, Any] = meta[CLIENT_CAPABILITIES]
    return capabilities


def answer(respond: Respond, message: dict[str, Any], caller: str) -> tuple[int, dict[str, Any]]:
    """The response to a request, and its HTTP status (400 for an error, 404 for an unknown method).
    A request the rules stumble on (a field missing, of another type) is the client's mistake: -32602,
    and the server stays up."""
    try:
        return 200, {"jsonrpc": "2.0", "id": message.get("id"), "result": respond(message, caller)}
    except Refused as refused:
        status = 404 if refused.code == -32601 else 400
        return status, {"jsonrpc": "2.0", "id": message.get("id"), "error": refused.error}
    except Exception as bad:  # noqa: BLE001 - say so, stay up
        return 400, {"jsonrpc": "2.0", "id": message.get("id"),
                     "error": {"code": -32602, "message": f"Invalid params: {bad!r}"}}


def serve_stdio(respond: Respond) -> None:
    """One request a line on stdin, its response a line on stdout; notifications get none."""
    for line in sys.stdin:
        message = json.loads(line)
        if "id" in message and "method" in message:
            sys.stdout.write(json.dumps(answer(respond, message, "local")[1]) + "\n")
            sys.stdout.flush()


def serve_http(respond: Respond) -> None:
    """Streamable HTTP with JSON responses on an ephemeral port of 127.0.0.1, saying
    `listening on http://127.0.0.1:PORT/mcp` on stderr."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            if "id" not in message:
                self.send_response(202)
                self.end_headers()
                return
            token = (self.headers.get("Authorization") or "").removeprefix("Bearer ").strip()
            status, response = answer(respond, message, token.removesuffix("-token") or "anonymous")
            body = json.dumps(response).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802 - no stream to offer
            self.send_response(405)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/mcp", file=sys.stderr, flush=True)
    server.serve_forever()


def serve(respond: Respond, words: list[str]) -> None:
    """`http` first among `words`: over HTTP; else over stdio."""
    if words[:1] == ["http"]:
        serve_http(respond)
    else:
        serve_stdio(respond)


def flags(argv: list[str], name: str) -> tuple[set[str], list[str]]:
    """The values of each `name VALUE` pair of `argv` (repeatable), and the other words."""
    words, found = list(argv), set()
    while name in words:
        at = words.index(name)
        found.add(words[at + 1])
        del words[at:at + 2]
    return found, words
