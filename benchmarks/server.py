"""A minimal, fast MRTR server for the benchmarks (standard library only).

    python server.py                 stdio
    python server.py --http PORT     Streamable HTTP on 127.0.0.1 (POST /mcp)

Tools: `ask` asks one form question per round, N rounds (argument `n`), threading a counter
through requestState (stdio: MRTR_BENCH_LINGER seconds of sleep after stdin closes, and
MRTR_BENCH_STAMP a file that gets the time of the last response, for result_latency.py); `big` returns a text of `size` characters, one long word (over HTTP as an
SSE response); `prose` returns `size` characters of lines of prose.
"""

from __future__ import annotations

import os

if os.environ.get("MRTR_BENCH_SERVER_CPU"):  # speed_cpu.py puts the server on a CPU of its own, imports and all
    os.sched_setaffinity(0, {int(os.environ["MRTR_BENCH_SERVER_CPU"])})

import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer  # noqa: E402
from pathlib import Path  # noqa: E402

INFO = {"io.modelcontextprotocol/serverInfo": {"name": "bench", "version": "1"}}
QUESTION = {"step": {"method": "elicitation/create", "params": {
    "mode": "form", "message": "Go on?", "requestedSchema": {
        "type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}}}}
TOOLS = [{"name": "ask", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}},
         {"name": "big", "inputSchema": {"type": "object", "properties": {"size": {"type": "integer"}}}},
         {"name": "prose", "inputSchema": {"type": "object", "properties": {"size": {"type": "integer"}}}}]
LINE = "The quick brown fox jumps over the lazy dog, and then it rests a while.\n"
CACHE = {"ttlMs": 0, "cacheScope": "public"}


def result(method: str, params: dict) -> dict:
    if method == "server/discover":
        return {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                "_meta": INFO, **CACHE}
    if method == "tools/list":
        return {"resultType": "complete", "tools": TOOLS, "_meta": INFO, **CACHE}
    arguments = params.get("arguments") or {}
    if params.get("name") in ("big", "prose"):
        size = int(arguments.get("size", 1))
        text = "x" * size if params["name"] == "big" else (LINE * (size // len(LINE) + 1))[:size]
        return {"resultType": "complete", "content": [{"type": "text", "text": text}], "_meta": INFO}
    done = int(params.get("requestState") or 0)
    if done < int(arguments.get("n", 1)):
        return {"resultType": "input_required", "inputRequests": QUESTION, "requestState": str(done + 1),
                "_meta": INFO}
    return {"resultType": "complete", "content": [{"type": "text", "text": f"done after {done}"}], "_meta": INFO}


def reply(line: bytes) -> bytes:
    message = json.loads(line)
    answer = {"jsonrpc": "2.0", "id": message["id"], "result": result(message["method"], message["params"])}
    return json.dumps(answer).encode()


def serve_stdio() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        if b'"id"' in line:
            out.write(reply(line) + b"\n")
            out.flush()
            _stamp()
    time.sleep(float(os.environ.get("MRTR_BENCH_LINGER", "0")))  # result_latency.py: a server slow to exit


def _stamp() -> None:
    """result_latency.py: when the last response was written (CLOCK_MONOTONIC, shared by processes)."""
    if os.environ.get("MRTR_BENCH_STAMP"):
        Path(os.environ["MRTR_BENCH_STAMP"]).write_text(repr(time.monotonic()))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        data = reply(body)
        big = b'"name": "big"' in body or b'"name":"big"' in body
        self.send_response(200)
        if big:
            data = b"event: message\ndata: " + data + b"\n\n"
            self.send_header("Content-Type", "text/event-stream")
        else:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


if __name__ == "__main__":
    if "--http" in sys.argv:
        server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[sys.argv.index("--http") + 1])), Handler)
        print("ready", flush=True)
        server.serve_forever()
    else:
        serve_stdio()
