"""An HTTP server that misbehaves on purpose, one fault per path, for the client's tests.

Run in a thread of the test process (`FaultServer().start()`); `received` keeps every POST
(path, headers, JSON body) for the tests to assert on.
"""

from __future__ import annotations

import json
import threading
import time
import zlib
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

SERVER_INFO = {"io.modelcontextprotocol/serverInfo": {"name": "faults", "version": "1"}}
HOSTILE_HTML = (b"<!doctype html><html><head><title>Internal \x1b[2J Server Error</title></head>"
                b"<body><script>alert(1)</script></body></html>")
ENDLESS = 80 * 1024 * 1024
"""How far the endless bodies go: past the default --max-message-size (64M), yet bounded, so
that a client without a limit fails its test instead of eating the machine."""
TRICKLE_INTERVAL = 0.2
TRICKLE_SECONDS = 45.0
"""A trickle sends one byte each interval, for this long at most (or until the client goes)."""


class FaultServer:
    """The server and what it received."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self.attempts: dict[str, int] = {}
        self.hung_up: list[str] = []
        """Paths whose client closed the connection while the server was still writing."""
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

    def _older(self) -> bool:
        return urlsplit(self.path).path.rsplit("/", 1)[-1] == "olderasking"

    def do_GET(self) -> None:
        """Nothing should ever GET from here (mrtr fetches no $ref); record it if it does. The older
        era's server offers no GET stream (405, as the older transport allows)."""
        if self._older():
            return self.send(405, b"")
        self.owner.received.append({"path": self.path, "headers": dict(self.headers), "body": {}, "verb": "GET"})
        self.send(404, b"{}")

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self._older():
            return older_asking_on_call(self, body)
        if body.get("method") == "server/discover":  # mrtr's era probe: a modern server, faults come after
            return self.reply(body, {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                                     "ttlMs": 0, "cacheScope": "private"})
        path = self.path
        self.owner.received.append({"path": path, "headers": dict(self.headers), "body": body})
        self.owner.attempts[path] = self.owner.attempts.get(path, 0) + 1
        name = urlsplit(path).path.rsplit("/", 1)[-1]
        if body.get("method") == "tools/list" and name not in LIST_FAULTS:
            return normal(self, body)
        try:
            FAULTS.get(name, normal)(self, body)
        except (BrokenPipeError, ConnectionResetError):
            self.owner.hung_up.append(path)
            self.close_connection = True

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

    def head(self, status: int = 200, kind: str = "application/json", **headers: str) -> None:
        """The status line and headers only; the fault writes the body (and the connection closes after)."""
        self.send_response(status)
        self.send_header("Content-Type", kind)
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.close_connection = True

    def trickle(self, byte: bytes) -> None:
        """One byte each TRICKLE_INTERVAL until the client goes, the server stops, or TRICKLE_SECONDS pass."""
        stop = time.monotonic() + TRICKLE_SECONDS
        while time.monotonic() < stop and not self.owner.release.wait(TRICKLE_INTERVAL):
            self.wfile.write(byte)
            self.wfile.flush()

    def stream(self, start: bytes, filler: bytes, size: int = ENDLESS, chunked: bool = False) -> None:
        """`start`, then `filler` over and over, `size` bytes in all (chunked transfer coding if asked)."""
        self.wfile.write(_chunk(start) if chunked else start)
        for _ in range(size // len(filler)):
            self.wfile.write(_chunk(filler) if chunked else filler)


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


def slow_progress(handler: FaultHandler, body: dict[str, Any]) -> None:
    """Progress every 0.3 s for 3.6 s, then the response: more than a --timeout of 2 s in all, and each gap far
    inside it (a loaded machine may stretch one)."""
    handler.head(kind="text/event-stream")
    for _ in range(12):
        handler.owner.release.wait(0.3)
        handler.wfile.write(b"data: " + json.dumps(progress_event(body)).encode() + b"\r\n\r\n")
    handler.wfile.write(b"data: " + json.dumps(complete(body, "slow but steady")).encode() + b"\r\n\r\n")


def trickled_headers(handler: FaultHandler, body: dict[str, Any]) -> None:
    handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Slow: ")
    handler.close_connection = True
    handler.trickle(b"a")


def trickled_body(handler: FaultHandler, body: dict[str, Any]) -> None:
    handler.head(Content_Length="1000000")
    handler.wfile.write(b'{"jsonrpc": "2.0", "id": %d, "result": {"x": "' % body["id"])
    handler.trickle(b"a")


def trickled_sse(handler: FaultHandler, body: dict[str, Any]) -> None:
    handler.head(kind="text/event-stream")
    handler.wfile.write(b"data: ")
    handler.trickle(b"a")


def endless_json(handler: FaultHandler, body: dict[str, Any]) -> None:
    handler.head(Content_Length=str(ENDLESS + 100))
    handler.stream(b'{"jsonrpc": "2.0", "id": %d, "result": {"x": "' % body["id"], b"a" * 65536)


def endless_chunked(handler: FaultHandler, body: dict[str, Any]) -> None:
    handler.head(Transfer_Encoding="chunked")
    handler.stream(b'{"jsonrpc": "2.0", "id": %d, "result": {"x": "' % body["id"], b"a" * 65536, chunked=True)


def endless_sse_event(handler: FaultHandler, body: dict[str, Any]) -> None:
    handler.head(kind="text/event-stream")
    handler.stream(b": keep-alive\r\n\r\ndata: ", b"a" * 65536)


def gzip_bomb(handler: FaultHandler, body: dict[str, Any]) -> None:
    bomb = zeros_gzip()
    handler.head(Content_Encoding="gzip", Content_Length=str(len(bomb)))
    handler.wfile.write(bomb)


@lru_cache(maxsize=1)
def zeros_gzip() -> bytes:
    """ENDLESS zero bytes, gzipped (about 360 KB), built a megabyte at a time."""
    packer = zlib.compressobj(1, zlib.DEFLATED, 31)
    block = bytes(1024 * 1024)
    return b"".join(packer.compress(block) for _ in range(ENDLESS // len(block))) + packer.flush()


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


def bad_retry(handler: FaultHandler, body: dict[str, Any]) -> None:
    """SSE `retry:` fields a parser must ignore or clamp, then the response."""
    handler.head(kind="text/event-stream")
    handler.wfile.write("retry: ²\r\n\r\nretry: ٣\r\n\r\nretry: {}\r\n\r\n".format("9" * 5000).encode())
    handler.wfile.write(b"data: " + json.dumps(complete(body, "retries read")).encode() + b"\r\n\r\n")


def complete(body: dict[str, Any], text: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": body["id"], "result": {"resultType": "complete", "_meta": SERVER_INFO,
                                                           "content": [{"type": "text", "text": text}]}}


def redirect(handler: FaultHandler, body: dict[str, Any]) -> None:
    """`?status=307&to=URL`: a redirect to `to` (the query as given)."""
    query = parse_qs(urlsplit(handler.path).query, keep_blank_values=True)
    handler.send(int(query["status"][0]), b"", "text/plain", Location=query["to"][0])


FAULTS = {"headers": echo_headers, "401": unauthorized, "403": forbidden, "html500": html_500,
          "jsonrpc500": jsonrpc_500, "legacy405": legacy_405, "accepted": accepted, "cut": cut_once,
          "cutalways": cut_always, "slow": slow, "slowprogress": slow_progress, "trickleheaders": trickled_headers, "tricklebody": trickled_body,
          "tricklesse": trickled_sse, "endlessjson": endless_json, "endlesschunked": endless_chunked,
          "endlesssse": endless_sse_event, "gzipbomb": gzip_bomb, "badretry": bad_retry, "redirect": redirect}
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


def garbage_sse(handler: FaultHandler, body: dict[str, Any]) -> None:
    """An SSE stream of garbage (bytes that are not UTF-8, lines that are no field, data that is not
    JSON), then the stream ends without a response."""
    handler.head(kind="text/event-stream")
    handler.wfile.write(b"\xff\xfe\x00garbage\r\nno field here\r\ndata: {not json\r\n\r\nevent: message\r\n"
                        b"data: \xc3\x28\r\n\r\nid: \x00\r\nretry: x\r\n\r\ndata: [1, 2\r\n\r\n")


def not_gzip(handler: FaultHandler, body: dict[str, Any]) -> None:
    """A body said to be gzip that is not."""
    handler.send(200, b"this is not gzip at all", Content_Encoding="gzip")


def endless_quiet_sse(handler: FaultHandler, body: dict[str, Any]) -> None:
    """An SSE stream that never answers and never ends (until the server stops): a comment each
    TRICKLE_INTERVAL."""
    handler.head(kind="text/event-stream")
    while not handler.owner.release.wait(TRICKLE_INTERVAL):
        handler.wfile.write(b": still here\r\n\r\n")
        handler.wfile.flush()


def endless_progress_sse(handler: FaultHandler, body: dict[str, Any]) -> None:
    """An SSE stream that never answers and never ends: progress for the request, over and over."""
    handler.head(kind="text/event-stream")
    token = ((body.get("params") or {}).get("_meta") or {}).get("progressToken", "none")
    progress = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": 1}}
    handler.trickle(b"data: " + json.dumps(progress).encode() + b"\r\n\r\n")


FAULTS.update({"garbagesse": garbage_sse, "notgzip": not_gzip, "quietsse": endless_quiet_sse,
               "progresssse": endless_progress_sse})


def endless_events_on_call(handler: FaultHandler, body: dict[str, Any]) -> None:
    """A tools/call answered by an SSE stream of events that never ends (until the server stops, or
    TRICKLE_SECONDS pass): progress that always grows, and a log message, each TRICKLE_INTERVAL; never
    the response. Every other request is answered as usual."""
    if body.get("method") != "tools/call":
        return normal(handler, body)
    handler.head(kind="text/event-stream")
    token = ((body.get("params") or {}).get("_meta") or {}).get("progressToken", "none")
    stop = time.monotonic() + TRICKLE_SECONDS
    step = 0
    while time.monotonic() < stop and not handler.owner.release.wait(TRICKLE_INTERVAL):
        step += 1
        progress = {"jsonrpc": "2.0", "method": "notifications/progress",
                    "params": {"progressToken": token, "progress": step}}
        log = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": step}}
        for event in (progress, log):
            handler.wfile.write(b"event: message\r\ndata: " + json.dumps(event).encode() + b"\r\n\r\n")
        handler.wfile.flush()


FAULTS["eventssse"] = endless_events_on_call


def older_asking_on_call(handler: FaultHandler, body: dict[str, Any]) -> None:
    """A server of the initialize-handshake era (it refuses server/discover) whose tools/call is
    answered by an SSE stream that never ends: a ping request from the server each
    TRICKLE_INTERVAL (until the server stops, or TRICKLE_SECONDS pass), never the response. Every
    other request is answered as usual; the client's answers and notifications get 202."""
    method = body.get("method")
    if method is None or "id" not in body:
        return handler.send(202, b"")
    handler.owner.received.append({"path": handler.path, "headers": dict(handler.headers), "body": body})
    if method == "server/discover":
        return handler.send(200, json.dumps({"jsonrpc": "2.0", "id": body["id"], "error": {
            "code": -32601, "message": "Method not found"}}).encode())
    if method == "initialize":
        return older_reply(handler, body, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                           "serverInfo": {"name": "older-asking", "version": "1"}})
    if method == "tools/list":
        return older_reply(handler, body, {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]})
    if method != "tools/call":
        return older_reply(handler, body, {})
    handler.head(kind="text/event-stream")
    stop = time.monotonic() + TRICKLE_SECONDS
    asked = 0
    while time.monotonic() < stop and not handler.owner.release.wait(TRICKLE_INTERVAL):
        asked += 1
        ping = {"jsonrpc": "2.0", "id": f"ping-{asked}", "method": "ping"}
        handler.wfile.write(b"event: message\r\ndata: " + json.dumps(ping).encode() + b"\r\n\r\n")
        handler.wfile.flush()


def older_reply(handler: FaultHandler, body: dict[str, Any], result: dict[str, Any]) -> None:
    handler.send(200, json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": result}).encode())
