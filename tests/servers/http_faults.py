"""An HTTP server that misbehaves on purpose, one fault per path, for the client's tests.

Run in a thread of the test process (`FaultServer().start()`); `received` keeps every POST
(path, headers, JSON body) for the tests to assert on.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SERVER_INFO = {"io.modelcontextprotocol/serverInfo": {"name": "faults", "version": "1"}}
HOSTILE_HTML = (b"<!doctype html><html><head><title>Internal \x1b[2J Server Error</title></head>"
                b"<body><script>alert(1)</script></body></html>")


class FaultServer:
    """The server and what it received."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self.attempts: dict[str, int] = {}
        self.release = threading.Event()
        handler = type("Handler", (FaultHandler,), {"owner": self})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def start(self) -> FaultServer:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def calls(self, path: str) -> list[dict[str, Any]]:
        return [r for r in self.received if r["path"] == path and r["body"].get("method") == "tools/call"]


class FaultHandler(BaseHTTPRequestHandler):
    owner: FaultServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        """Nothing should ever GET from here (mrtr fetches no $ref); record it if it does."""
        self.owner.received.append({"path": self.path, "headers": dict(self.headers), "body": {}, "verb": "GET"})
        self.send(404, b"{}")

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        path = self.path
        self.owner.received.append({"path": path, "headers": dict(self.headers), "body": body})
        self.owner.attempts[path] = self.owner.attempts.get(path, 0) + 1
        fault = FAULTS.get(path.rsplit("/", 1)[-1], normal)
        if body.get("method") == "tools/list" and path.rsplit("/", 1)[-1] not in LIST_FAULTS:
            return normal(self, body)
        fault(self, body)

    def send(self, status: int, body: bytes, kind: str = "application/json", **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def reply(self, body: dict[str, Any], result: dict[str, Any]) -> None:
        message = {"jsonrpc": "2.0", "id": body["id"], "result": {"resultType": "complete", "_meta": SERVER_INFO,
                                                                   **result}}
        self.send(200, json.dumps(message).encode())

    def sse(self, events: list[dict[str, Any]], close_early: bool = False) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(b": keep-alive\r\n\r\n")
        for event in events:
            self.wfile.write(b"event: message\r\ndata: " + json.dumps(event).encode() + b"\r\n\r\n")
            self.wfile.flush()
        self.close_connection = True


TOOLS = [{"name": "t", "inputSchema": {"type": "object", "properties": {
    "token": {"type": "string", "x-mcp-header": "Token"}, "region": {"type": "string", "x-mcp-header": "Region"}}}}]


def normal(handler: FaultHandler, body: dict[str, Any]) -> None:
    if body.get("method") == "tools/list":
        return handler.reply(body, {"tools": TOOLS, "ttlMs": 0, "cacheScope": "private"})
    handler.reply(body, {"content": [{"type": "text", "text": "ok"}], "structuredContent": {"id": body["id"]}})


def echo_headers(handler: FaultHandler, body: dict[str, Any]) -> None:
    handler.reply(body, {"content": [{"type": "text", "text": "headers"}],
                         "structuredContent": {"headers": dict(handler.headers)}})


def unauthorized(handler: FaultHandler, body: dict[str, Any]) -> None:
    handler.send(401, b"", WWW_Authenticate='Bearer realm="mcp", resource_metadata="https://as.example/prm"')


def forbidden(handler: FaultHandler, body: dict[str, Any]) -> None:
    handler.send(403, b"{}", WWW_Authenticate='Bearer error="insufficient_scope", scope="tools:write"')


def html_500(handler: FaultHandler, body: dict[str, Any]) -> None:
    handler.send(500, HOSTILE_HTML, "text/html")


def jsonrpc_500(handler: FaultHandler, body: dict[str, Any]) -> None:
    error = {"jsonrpc": "2.0", "id": body["id"], "error": {"code": -32603, "message": "database down"}}
    handler.send(500, json.dumps(error).encode())


def legacy_405(handler: FaultHandler, body: dict[str, Any]) -> None:
    handler.send(405, b"Method Not Allowed", "text/plain")


def accepted(handler: FaultHandler, body: dict[str, Any]) -> None:
    handler.send(202, b"")


def progress_event(body: dict[str, Any]) -> dict[str, Any]:
    token = body["params"]["_meta"]["progressToken"]
    return {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": 1}}


def cut_once(handler: FaultHandler, body: dict[str, Any]) -> None:
    if len(handler.owner.calls(handler.path)) == 1:
        return handler.sse([progress_event(body)], close_early=True)
    result = {"resultType": "complete", "content": [{"type": "text", "text": "second time lucky"}]}
    handler.sse([progress_event(body), {"jsonrpc": "2.0", "id": body["id"], "result": result}])


def cut_always(handler: FaultHandler, body: dict[str, Any]) -> None:
    handler.sse([progress_event(body)], close_early=True)


def slow(handler: FaultHandler, body: dict[str, Any]) -> None:
    handler.owner.release.wait(30)


FAULTS = {"headers": echo_headers, "401": unauthorized, "403": forbidden, "html500": html_500,
          "jsonrpc500": jsonrpc_500, "legacy405": legacy_405, "accepted": accepted, "cut": cut_once,
          "cutalways": cut_always, "slow": slow}
LIST_FAULTS = {"401", "403", "html500", "legacy405"}
"""Paths that misbehave on tools/list too (the first request mrtr sends for a call over HTTP)."""


HUGE_INTEGER = "1" * 5000
"""Valid JSON that Python will not read: more than 4300 digits in one integer."""


def huge_integer_json(handler: FaultHandler, body: dict[str, Any]) -> None:
    frame = f'{{"jsonrpc":"2.0","id":{body["id"]},"result":{{"resultType":"complete","n":{HUGE_INTEGER}}}}}'
    handler.send(200, frame.encode())


def huge_integer_sse(handler: FaultHandler, body: dict[str, Any]) -> None:
    frame = f'{{"jsonrpc":"2.0","id":{body["id"]},"result":{{"resultType":"complete","n":{HUGE_INTEGER}}}}}'
    handler.send(200, b"event: message\r\ndata: " + frame.encode() + b"\r\n\r\n", "text/event-stream")


FAULTS.update({"hugeint": huge_integer_json, "hugeintsse": huge_integer_sse})
